"""Shape manipulation: view/reshape, flatten, squeeze, permute, expand, cat, split..."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ...lang.render import render_dim, render_shape
from ...model import codes
from ...model.constraints import Rel
from ...model.dims import Dim, Star, Unknown, UnknownSource
from ...model.shape import Item, Shape
from ...model.text import plural
from ...model.values import IntV, NoneV, SeqKind, SeqV, TensorV, TupleV, UnknownV, Value, unknown_tensor
from ...unify import arith
from ...unify.broadcast import broadcast_shapes
from ...unify.compare import Truth, Verdict, eq3, le3, ne1
from ..call import Call, as_dims, sizes_with_run
from ..registry import rule
from . import strides
from .util import (
    replace,
    run_exact_rank,
    run_expands,
    run_rank_among,
    run_rank_at_least,
    same_run,
    spec_text,
    wrap_dim,
    wrap_dims,
)

_ERR = unknown_tensor(UnknownSource.ERROR)


def _same(call: Call, shape: Shape) -> TensorV:
    t = call.tensor("self") or call.tensor("input")
    return TensorV(shape, t.dtype if t else None)


def _self(call: Call) -> tuple[str, Shape] | None:
    for name in ("self", "input", "tensor", "logits"):
        if call.has(name):
            s = call.shape(name)
            if s is not None:
                return name, s
    return None


def _numel(shape: Shape) -> Dim:
    return arith.prod(shape.dims) if shape.rank is not None else Unknown(UnknownSource.UNANNOTATED)


def _infer_sizes(call: Call, shape: Shape, sizes: Sequence[Dim], at: str) -> tuple[Dim, ...] | None:
    """Resolve one ``-1`` in a target shape and check the element count."""
    holes = [i for i, d in enumerate(sizes) if arith.is_int_value(d, -1)]
    if len(holes) > 1:
        call.error(codes.RESHAPE, f"only one dim can be -1, got [{', '.join(map(render_dim, sizes))}]", at)
        return None
    for d in sizes:
        if type(d) is int and d < -1:
            call.error(codes.INVALID_ARG, f"invalid size {d} in [{', '.join(map(render_dim, sizes))}]", at)
            return None
    total = _numel(shape)
    known = arith.prod(d for i, d in enumerate(sizes) if i not in holes)

    def shown() -> str:
        return "[" + ", ".join(render_dim(d) for d in sizes) + "]"

    if holes:
        if known == 0:
            call.error(codes.RESHAPE, f"cannot infer -1 in {shown()}: the other dims have 0 elements", at)
            return None
        div = call.facts.divisible(total, known) if not isinstance(total, Unknown) else None
        if type(total) is int and type(known) is int and total % known:
            call.error(
                codes.RESHAPE,
                f"shape {shown()} is invalid for {render_shape(shape)} ({plural(total, 'element')} are not divisible by {known})",
                at,
                "the product of the new dims must equal the number of elements",
            )
            return None
        inferred = (
            arith.floordiv(total, known) if not isinstance(total, Unknown) else Unknown(UnknownSource.UNANNOTATED)
        )
        if div is None and not isinstance(total, Unknown) and not isinstance(known, Unknown):
            inferred_sym = call.facts.simplify(arith.floordiv(total, known))
            call.check(
                Truth.UNKNOWN,
                (total, known),
                lambda: (
                    f"{render_shape(shape)} has {plural(render_dim(total), 'element')}; -1 in {shown()} needs them divisible by {render_dim(known)}"
                ),
                rel=Rel.DIVISIBLE,
                at=at,
                code=codes.RESHAPE,
            )
            inferred = inferred_sym
        out = list(sizes)
        out[holes[0]] = inferred
        return tuple(out)
    around = [d for d in (*shape.prefix, *shape.suffix) if type(d) is int] if shape.rank is None else []
    if around and type(known) is int and len(around) == shape.min_rank:
        # The run's dims multiply to any count (0 too: a run may hold a 0), the tensor's to a multiple of k.
        k = math.prod(around)
        if known != 0 and (k == 0 or known % k):
            call.error(
                codes.RESHAPE,
                f"shape {shown()} is invalid for {render_shape(shape)}: {plural(known, 'element')}, but a "
                f"multiple of {k} whatever its run",
                at,
                "the product of the new dims must equal the number of elements",
            )
            return None
    verdict = call.check(
        eq3(total, known, call.facts),
        (total, known),
        lambda: (
            f"shape {shown()} is invalid for {render_shape(shape)}: {plural(render_dim(known), 'element')} vs {render_dim(total)}"
        ),
        rel=Rel.EQ,
        at=at,
        hint="the product of the new dims must equal the number of elements",
        code=codes.RESHAPE,
    )
    # A count that differs for every size: torch raises here, and the sizes asked for are not a
    # tensor the code after it sees (they would only report the same bug again further on).
    return None if verdict is Verdict.ERROR else tuple(sizes)


@rule("view")
def view(call: Call) -> Value:
    """``x.view(*shape)`` / ``x.reshape(*shape)`` / ``torch.reshape(x, shape)``."""
    got = _self(call)
    name = "shape" if call.has("shape") else "size"
    spliced = sizes_with_run(call.value(name))
    if got is not None and spliced is not None:
        return _view_run(call, got[1], spliced.items, name)
    sizes = call.ints(name)
    if got is None or sizes is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    out = _infer_sizes(call, shape, sizes, name)
    if out is None:
        return _ERR
    return strides.viewed(call, call.tensor(src), _same(call, Shape(out)), name) or _ERR


def _view_run(call: Call, shape: Shape, items: Sequence[Item], at: str) -> Value:
    """``x.view(*x.shape[:-1], 4, -1)`` where ``x`` has a run of dims of unknown length: the sizes
    before the run that ``x`` shares with the target (the run itself included) stay, and the dims
    after it are reshaped as a view of known rank (``[*b d]`` gives ``[*b 4 d/4]``, checked as
    such). Where the run does not line up with ``x``'s own, the target's sizes with ``-1`` unknown."""
    star = next(k for k, i in enumerate(items) if isinstance(i, Star))
    head, rest = tuple(items[: star + 1]), tuple(items[star + 1 :])
    # Only a named run is known to be the same run: two runs known nothing about (``[... 2]`` viewed
    # as ``x.shape`` of an unknown ``x``) may have any lengths.
    named = getattr(items[star], "name", None) is not None
    if named and shape.star_index == star and shape.items[: star + 1] == head:  # the run leads: reshape after it
        out = _infer_sizes(call, Shape(shape.items[star + 1 :]), rest, at)
        return _ERR if out is None else _same(call, Shape(head + out))
    back = len(items) - star  # the run and what follows it
    i = shape.star_index
    if named and i is not None and len(shape.items) - i == back and shape.items[i:] == tuple(items[star:]):
        out = _infer_sizes(call, Shape(shape.items[:i]), items[:star], at)
        return _ERR if out is None else _same(call, Shape(out + tuple(items[star:])))
    sizes = [d for d in items if not isinstance(d, Star)]
    if sum(1 for d in sizes if d == -1) > 1 or any(type(d) is int and d < -1 for d in sizes):
        _infer_sizes(call, Shape(()), sizes, at)  # the errors it gives without the run
        return _ERR
    return _same(call, Shape(tuple(Unknown(UnknownSource.UNANNOTATED) if d == -1 else d for d in items)))


@rule("view_as")
def view_as(call: Call) -> Value:
    got, other = _self(call), call.shape("other")
    if got is None or other is None or other.rank is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    out = _infer_sizes(call, got[1], other.dims, "other")
    if out is None:
        return _ERR
    return strides.viewed(call, call.tensor(got[0]), _same(call, Shape(out)), "other") or _ERR


@rule("flatten")
def flatten(call: Call) -> Value:
    got = _self(call)
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    if shape.rank == 0:
        # A 0-d tensor flattens to one element; its dims must still be -1 or 0.
        for p in ("start_dim", "end_dim"):
            if wrap_dim(call, call.int(p), shape, p) is None and type(call.int(p)) is int:
                return _ERR
        return _same(call, Shape((1,)))
    if shape.rank is None:
        start, end = call.int("start_dim"), call.int("end_dim")
        if type(start) is int and type(end) is int and (start >= 0) == (end >= 0) and start > end:
            # Counted from the same end, start comes after end for every length of the run.
            call.error(codes.INVALID_ARG, f"start_dim {start} comes after end_dim {end}", "start_dim")
            return _ERR
        for p in ("start_dim", "end_dim"):
            wrap_dim(call, call.int(p), shape, p)  # a dim beyond the dims around the run: checked at run time
        return _same(call, _flatten_variadic(shape, start, end))
    s = wrap_dim(call, call.int("start_dim"), shape, "start_dim")
    e = wrap_dim(call, call.int("end_dim"), shape, "end_dim")
    if s is None or e is None:
        return _ERR
    if s > e:
        call.error(codes.INVALID_ARG, f"start_dim {s} comes after end_dim {e}", "start_dim")
        return _ERR
    d = shape.dims
    return _same(call, Shape(d[:s] + (arith.prod(d[s : e + 1]),) + d[e + 1 :]))


def _flatten_variadic(shape: Shape, start: Dim | None, end: Dim | None) -> Shape:
    """``flatten`` of a shape with a run of unknown length: exact when both ends lie on one side of the run."""
    if type(start) is not int or type(end) is not int:
        return Shape.unknown()
    k = next(i for i, d in enumerate(shape.items) if isinstance(d, Star))
    prefix, suffix = shape.items[:k], shape.items[k + 1 :]
    if 0 <= start <= end < len(prefix):
        dims = prefix[start : end + 1]
        return Shape(prefix[:start] + (arith.prod(dims),) + shape.items[end + 1 :])
    if -len(suffix) <= start <= end < 0:
        a, b = len(suffix) + start, len(suffix) + end
        dims = suffix[a : b + 1]
        return Shape(shape.items[: k + 1] + suffix[:a] + (arith.prod(dims),) + suffix[b + 1 :])
    if start >= 0 and end < 0 and start <= len(prefix) and -end <= len(suffix) + 1:
        # Everything from ``start`` through the run (through its last dim when ``end`` is there, or
        # through the last dim before it when the run is empty): one dim of unknown size.
        return Shape(prefix[:start] + (Unknown(UnknownSource.UNANNOTATED),) + suffix[len(suffix) + end + 1 :])
    return Shape.unknown()


@rule("unflatten", "unflatten_module")
def unflatten(call: Call) -> Value:
    got = _self(call)
    sizes = call.ints("sizes") if call.has("sizes") else call.ints("unflattened_size")
    if got is None or sizes is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    i = wrap_dim(call, call.int("dim"), shape, "dim")
    if i is None:
        return _same(call, Shape.unknown())
    piece = Shape((shape.items[i],))
    out = _infer_sizes(call, piece, sizes, "sizes")
    return _ERR if out is None else _same(call, replace(shape, i, out))


@rule("squeeze")
def squeeze(call: Call) -> Value:
    got = _self(call)
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    dims = None if call.is_none("dim") else call.ints("dim")
    if dims is None and not call.is_none("dim"):
        return _same(call, Shape.unknown())
    if dims is None:
        if shape.rank is None:
            return _same(call, Shape.unknown())
        kept: list[Item] = []
        for d in shape.dims:
            t = ne1(d, call.facts)
            if t is Truth.UNKNOWN:
                return _same(call, Shape.unknown())
            if t is Truth.TRUE:
                kept.append(d)
        return _same(call, Shape(tuple(kept)))
    idx = wrap_dims(call, dims, shape, "dim")
    if idx is None:
        return _same(call, Shape.unknown())
    if shape.rank == 0:
        return _same(call, shape)
    items = list(shape.items)
    for i in sorted(idx, reverse=True):
        t = ne1(items[i], call.facts)
        if t is Truth.FALSE:
            del items[i]
        elif t is Truth.UNKNOWN:
            return _same(call, Shape.unknown())
    return _same(call, Shape(tuple(items)))


@rule("unsqueeze")
def unsqueeze(call: Call) -> Value:
    got = _self(call)
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    i = wrap_dim(call, call.int("dim"), shape, "dim", extra=1)
    if i is None:
        return _same(call, Shape.unknown())
    items = list(shape.items)
    items.insert(i, 1)
    return _same(call, Shape(tuple(items)))


@rule("permute")
def permute(call: Call) -> Value:
    got = _self(call)
    dims = call.ints("dims")
    if got is None or dims is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    if shape.rank is None and not shape.is_unknown:
        # Exactly one dim per entry of ``dims``: a run takes the length left (torch raises for any other).
        exact = run_exact_rank(call, shape, len(dims), "permute", src)
        if exact is None:
            return _ERR
        shape = exact
    if shape.rank is None:
        return _same(call, Shape.unknown())
    if len(dims) != shape.rank:
        call.error(
            codes.INVALID_ARG,
            f"permute needs {plural(shape.rank, 'dim')} for {render_shape(shape)}, got {len(dims)}",
            "dims",
            "list every dim exactly once",
        )
        return _ERR
    idx = wrap_dims(call, dims, shape, "dims")
    if idx is None:
        return _ERR
    return strides.reordered(call.tensor(src), _same(call, Shape(tuple(shape.items[i] for i in idx))), idx)


@rule("transpose")
def transpose(call: Call) -> Value:
    got = _self(call)
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    a = wrap_dim(call, call.int("dim0"), shape, "dim0")
    b = wrap_dim(call, call.int("dim1"), shape, "dim1")
    if a is None or b is None:
        return _same(call, Shape.unknown())
    if shape.rank == 0:
        return _same(call, shape)
    items = list(shape.items)
    items[a], items[b] = items[b], items[a]
    order = list(range(len(items)))
    order[a], order[b] = order[b], order[a]
    return strides.reordered(call.tensor(src), _same(call, Shape(tuple(items))), order)


@rule("t")
def t(call: Call) -> Value:
    got = _self(call)
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    if shape.rank is None:
        if not run_rank_among(call, shape, (0, 1, 2), "t()", src):
            return _ERR
        return _same(call, Shape.unknown())
    if shape.rank > 2:
        call.error(
            codes.RANK_MISMATCH,
            f"t() expects at most 2 dims, got {render_shape(shape)}",
            src,
            "use `.mT` or `transpose(-2, -1)`",
        )
        return _ERR
    return strides.reordered(call.tensor(src), _same(call, Shape(tuple(reversed(shape.dims)))), range(shape.rank)[::-1])


@rule("expand")
def expand(call: Call) -> Value:
    got = _self(call)
    name = "size" if call.has("size") else "sizes"
    sizes = call.ints(name)
    if call.has("other"):
        o = call.shape("other")
        sizes = o.dims if o is not None and o.rank is not None else None
        name = "other"
    run = sizes_with_run(call.value(name)) if sizes is None and name != "other" else None
    if got is not None and (run is not None or (sizes is not None and got[1].rank is None)):
        return _expand_run(call, got[0], got[1], run or Shape(tuple(sizes or ())), name)
    if got is None or sizes is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    assert shape.rank is not None  # a run was handled above
    if len(sizes) < shape.rank:
        call.error(
            codes.INVALID_ARG,
            f"expand needs at least {plural(shape.rank, 'size')} for {render_shape(shape)}, got {len(sizes)}",
            name,
        )
        return _ERR
    lead = len(sizes) - shape.rank
    out: list[Item] = []
    for i, target in enumerate(sizes):
        if i < lead:
            if target == -1:
                call.error(codes.INVALID_ARG, "-1 is not allowed for a new leading dim", name)
                return _ERR
            out.append(target)
            continue
        d = _expand_dim(call, src, shape, Shape(tuple(sizes)), shape.dims[i - lead], target, i - lead, name)
        if d is None:
            return _ERR
        out.append(d)
    return _same(call, Shape(tuple(out)))


def _expand_dim(call: Call, src: str, shape: Shape, to: Shape, cur: Dim, target: Dim, k: int, at: str) -> Dim | None:
    """One dim of ``shape`` (its ``k``-th) expanded to ``target``: the dim it gives, or ``None``
    where torch raises (reported)."""
    if target == -1 or eq3(cur, target, call.facts) is Truth.TRUE:
        return cur
    one = ne1(cur, call.facts)
    if one is Truth.FALSE:
        return target
    v = call.check(
        Truth.FALSE if one is Truth.TRUE and eq3(cur, target, call.facts) is Truth.FALSE else Truth.UNKNOWN,
        (cur, target),
        f"cannot expand {render_shape(shape)} to {render_shape(to)}: dim {k} is {render_dim(cur)}, not 1 or {render_dim(target)}",
        rel=Rel.EQ,
        at=at,
        hint="only dims of size 1 can be expanded",
        code=codes.BROADCAST,
        checks=[(src, spec_text(shape.items))],
    )
    return None if v is Verdict.ERROR else target


def _expand_run(call: Call, src: str, shape: Shape, to: Shape, at: str) -> Value:
    """``expand`` where the tensor or the sizes hold a run of unknown length (``x.expand(*s, d)``).
    The sizes and the dims line up from the right, so the dims after the runs are checked as usual
    (and, where both hold the same named run after as many dims, those before it too); a ``-1``
    elsewhere keeps a dim not known here."""
    xs, ts = shape.items, to.items
    if to.rank is not None and to.rank < shape.min_rank:
        call.error(
            codes.INVALID_ARG,
            f"expand needs at least {plural(shape.min_rank, 'size')} for {render_shape(shape)}, got {to.rank}",
            at,
        )
        return _ERR
    out: list[Item] = [Unknown(UnknownSource.UNANNOTATED) if d == -1 else d for d in ts]
    pairs = []
    k = 1
    while k <= min(len(xs), len(ts)) and not isinstance(xs[-k], Star) and not isinstance(ts[-k], Star):
        pairs.append((len(ts) - k, len(xs) - k))
        k += 1
    star = shape.star
    if star is not None and star.name is not None and to.star == star and len(to.prefix) == len(shape.prefix):
        pairs.extend((j, j) for j in range(len(shape.prefix)))  # the same run after the same number of dims
    lead = len(xs) if shape.star_index is None else shape.star_index
    for t, x in pairs:
        cur, target = xs[x], ts[t]
        d = _expand_dim(call, src, shape, to, cur, target, x if x < lead else x - len(xs), at)
        if d is None:
            return _ERR
        out[t] = d
    if not run_expands(shape, to, call.facts):
        call.error(
            codes.BROADCAST,
            f"cannot expand {render_shape(shape)} to {render_shape(to)} whatever the length of its run",
            at,
            "only dims of size 1 can be expanded",
        )
        return _ERR
    return _same(call, Shape(tuple(out)))


@rule("repeat")
def repeat(call: Call) -> Value:
    got = _self(call)
    name = next((n for n in ("repeats", "sizes", "dims") if call.has(n)), "sizes")
    reps = call.ints(name)
    if got is None or reps is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    tile = call.params.get("tile", False)
    if shape.rank is None:
        if tile or shape.is_unknown:
            return _same(call, Shape.unknown())
        # ``[*b d].repeat(r0, r1)``: at most as many dims as counts, whatever the run's length; the
        # output has one dim per count, the dims after the run repeated by the last counts.
        if len(reps) < shape.min_rank:
            call.error(
                codes.INVALID_ARG,
                f"repeat needs at least {plural(shape.min_rank, 'count')} for {render_shape(shape)} whatever "
                f"the length of its run, got {len(reps)}",
                name,
                "pass one count per dim (use 1 to keep a dim)",
            )
            return _ERR
        run_rank_among(call, shape, range(len(reps) + 1), "repeat", name)
        i = shape.star_index
        assert i is not None
        after = shape.items[i + 1 :]
        tail = [arith.mul(d, r) for d, r in zip(after, reps[len(reps) - len(after) :])] if after else []
        head = [Unknown(UnknownSource.UNANNOTATED)] * (len(reps) - len(tail))
        return _same(call, Shape((*head, *tail)))
    if len(reps) < shape.rank:
        if not tile:
            call.error(
                codes.INVALID_ARG,
                f"repeat needs at least {shape.rank} counts for {render_shape(shape)}, got {len(reps)}",
                name,
                "pass one count per dim (use 1 to keep a dim)",
            )
            return _ERR
        reps = (1,) * (shape.rank - len(reps)) + tuple(reps)
    lead = len(reps) - shape.rank
    out = list(reps[:lead]) + [arith.mul(d, r) for d, r in zip(shape.dims, reps[lead:])]
    return _same(call, Shape(tuple(out)))


@rule("movedim")
def movedim(call: Call) -> Value:
    got = _self(call)
    src_d, dst_d = call.ints("source"), call.ints("destination")
    if got is None or src_d is None or dst_d is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    name, shape = got
    if shape.rank is None:
        for p, ds in (("source", src_d), ("destination", dst_d)):
            for d in ds:
                wrap_dim(call, d, shape, p)  # beyond the dims around the run: checked at run time
        return _same(call, Shape.unknown())
    if len(src_d) != len(dst_d):
        call.error(
            codes.INVALID_ARG, f"source and destination need as many dims ({len(src_d)} vs {len(dst_d)})", "destination"
        )
        return _ERR
    s = wrap_dims(call, src_d, shape, "source")
    d = wrap_dims(call, dst_d, shape, "destination")
    if s is None or d is None:
        return _ERR
    order: list[int | None] = [None] * shape.rank
    for a, b in zip(s, d):
        order[b] = a
    rest = iter(i for i in range(shape.rank) if i not in s)
    full = [o if o is not None else next(rest) for o in order]
    return _same(call, Shape(tuple(shape.dims[i] for i in full)))


@rule("narrow")
def narrow(call: Call) -> Value:
    got = _self(call)
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    i = wrap_dim(call, call.int("dim"), shape, "dim")
    start, length = call.int("start"), call.int("length")
    if i is None or length is None:
        return _same(call, Shape.unknown())
    size = shape.items[i]
    if type(length) is int and length < 0:
        call.error(codes.INVALID_ARG, f"length must be non-negative, got {length}", "length")
        return _same(call, Shape.unknown(UnknownSource.ERROR))
    if start is not None and type(start) is int and start < 0 and type(size) is int:
        start = start + size
    if start is not None:
        end = arith.add(start, length)
        call.check(
            le3(end, size, call.facts),
            (end, size),
            f"start {render_dim(start)} + length {render_dim(length)} exceeds dim {i} of size {render_dim(size)}",
            rel=Rel.LE,
            at="length",
            code=codes.INDEX_RANGE,
        )
    return _same(call, replace(shape, i, (length,)))


@rule("diff")
def diff(call: Call) -> Value:
    """``torch.diff(input, n, dim, prepend, append)``: ``n`` fewer elements along ``dim`` (none below
    zero), after ``prepend`` and ``append`` are joined on; torch raises on a 0-d input and on a
    negative ``n``."""
    got = _self(call)
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    _, shape = got
    if shape.rank == 0:
        call.error(codes.RANK_MISMATCH, "diff expects input to be at least one-dimensional", "input")
        return _same(call, Shape.unknown(UnknownSource.ERROR))
    n = call.int("n") if call.has("n") else 1
    if type(n) is int and n < 0:
        call.error(codes.INVALID_ARG, f"order must be non-negative but got {n}", "n")
        return _same(call, Shape.unknown(UnknownSource.ERROR))
    i = wrap_dim(call, call.int("dim") if call.has("dim") else -1, shape, "dim")
    if i is None:
        return _same(call, Shape.unknown())
    size = shape.items[i]
    for extra in ("prepend", "append"):
        if call.has(extra) and call.value(extra) is not None and not isinstance(call.value(extra), NoneV):
            return _same(call, replace(shape, i, (Unknown(),)))  # (joined on: their own sizes)
    if n is None or isinstance(size, Star):
        return _same(call, replace(shape, i, (Unknown(),)) if not isinstance(size, Star) else Shape.unknown())
    out = arith.dmax(arith.sub(size, n), 0) if not (type(size) is int and type(n) is int) else max(size - n, 0)
    return _same(call, replace(shape, i, (out,)))


def _pieces(shape: Shape, i: int, sizes: Sequence[Dim], t: TensorV | None) -> TupleV:
    return TupleV(tuple(TensorV(replace(shape, i, (s,)), t.dtype if t else None) for s in sizes), SeqKind.TUPLE)


@rule("split")
def split(call: Call) -> Value:
    got = _self(call)
    if got is None:
        return SeqV(unknown_tensor(UnknownSource.UNSUPPORTED), SeqKind.TUPLE)
    src, shape = got
    t = call.tensor(src)
    pname = next(n for n in ("split_size_or_sections", "split_size", "sections") if call.has(n))
    i = wrap_dim(call, call.int("dim"), shape, "dim")
    if i is None:
        return SeqV(TensorV(Shape.unknown()), SeqKind.TUPLE)
    size = shape.items[i]
    v = call.value(pname)
    if isinstance(v, TupleV):
        sections = as_dims(v)
        if sections is None:
            return SeqV(TensorV(Shape.unknown()), SeqKind.TUPLE)
        total = arith.dsum(sections)
        call.check(
            eq3(total, size, call.facts),
            (total, size),
            f"split sizes [{', '.join(map(render_dim, sections))}] sum to {render_dim(total)}, but dim {i} has size {render_dim(size)}",
            rel=Rel.EQ,
            at=pname,
            code=codes.INVALID_ARG,
        )
        return _pieces(shape, i, sections, t)
    step = call.int(pname)
    if type(step) is int and step <= 0:
        call.error(codes.INVALID_ARG, f"split size must be positive, got {step}", pname)
        return SeqV(TensorV(Shape.unknown()), SeqKind.TUPLE)
    if type(size) is int and type(step) is int:
        n, last = divmod(size, step)
        sizes = [step] * n + ([last] if last else [])
        if not sizes:
            sizes = [0]
        return _pieces(shape, i, sizes, t)
    if step is not None and not isinstance(step, Unknown) and call.facts.divisible(size, step) is True:
        count = arith.floordiv(size, step)
        if type(count) is int:
            return _pieces(shape, i, [step] * count, t)
    return SeqV(
        TensorV(replace(shape, i, (Unknown(UnknownSource.DATA_DEPENDENT),)), t.dtype if t else None), SeqKind.TUPLE
    )


@rule("chunk")
def chunk(call: Call) -> Value:
    got = _self(call)
    if got is None:
        return SeqV(unknown_tensor(UnknownSource.UNSUPPORTED), SeqKind.TUPLE)
    src, shape = got
    t = call.tensor(src)
    n = call.int("chunks")
    if type(n) is int and n <= 0:
        call.error(codes.INVALID_ARG, f"chunks must be positive, got {n}", "chunks")
        return SeqV(TensorV(Shape.unknown()), SeqKind.TUPLE)
    i = wrap_dim(call, call.int("dim"), shape, "dim")
    if i is None:
        return SeqV(TensorV(Shape.unknown()), SeqKind.TUPLE)
    size = shape.items[i]
    if type(size) is int and type(n) is int:
        step = -(-size // n) if size else 1
        full, last = divmod(size, step) if step else (0, 0)
        sizes = [step] * full + ([last] if last else [])
        return _pieces(shape, i, sizes or [0], t)
    if n is not None and type(n) is int and call.facts.divisible(size, n) is True:
        return _pieces(shape, i, [arith.floordiv(size, n)] * n, t)
    if type(n) is int:
        # Sizes unknown, but usually ``n`` equal pieces of ``size // n``; keep the count unknown.
        return SeqV(
            TensorV(replace(shape, i, (Unknown(UnknownSource.DATA_DEPENDENT),)), t.dtype if t else None), SeqKind.TUPLE
        )
    return SeqV(TensorV(Shape.unknown()), SeqKind.TUPLE)


@rule("unbind")
def unbind(call: Call) -> Value:
    got = _self(call)
    if got is None:
        return SeqV(unknown_tensor(UnknownSource.UNSUPPORTED), SeqKind.TUPLE)
    src, shape = got
    t = call.tensor(src)
    i = wrap_dim(call, call.int("dim"), shape, "dim")
    if i is None:
        return SeqV(TensorV(Shape.unknown()), SeqKind.TUPLE)
    size = shape.items[i]
    piece = TensorV(replace(shape, i, ()), t.dtype if t else None)
    if type(size) is int:
        return TupleV((piece,) * size, SeqKind.TUPLE)
    return SeqV(piece, SeqKind.TUPLE)


def _tensor_list(call: Call, name: str) -> tuple[list[TensorV], bool, Dim | None] | None:
    """The tensors of a list argument, whether they are its items (its length is known), and its
    length when that is a known size: a list of known length, or one of repeated elements whose count
    is a symbol (``[h(f) for h in self.heads]`` over a ``ModuleList`` of ``n``; the ``batch_size``
    samples a ``collate_fn`` is handed), whose one tensor stands for them all."""
    v = call.value(name)
    if isinstance(v, TupleV):
        out = []
        for item in v.items:
            if isinstance(item, TensorV):
                out.append(item)
            else:
                out.append(TensorV(Shape.unknown()))
        return out, True, len(out)
    if isinstance(v, SeqV):
        elem = v.elem if isinstance(v.elem, TensorV) else TensorV(Shape.unknown())
        return [elem], False, v.length
    return None


def _nonempty_list(call: Call, name: str, empty: str) -> tuple[list[TensorV], bool, Dim | None] | Value:
    """:func:`_tensor_list`, or the result to give when there is none: unknown for a value that is
    not a list, an error (message ``empty``) for a list known to be empty."""
    got = _tensor_list(call, name)
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    if got[1] and not got[0]:
        call.error(codes.INVALID_ARG, empty, name)
        return _ERR
    return got


@rule("cat")
def cat(call: Call) -> Value:
    got = _nonempty_list(call, "tensors", "expected a non-empty list of tensors")
    if isinstance(got, Value):
        return got
    tensors, known_len, count = got
    # Legacy: 1-D empty tensors are skipped.
    shapes = [t.shape for t in tensors if not (t.shape.rank == 1 and t.shape.items[0] == 0)]
    if not shapes:
        return TensorV(Shape((0,)))
    ref = next((s for s in shapes if s.rank is not None), None)
    if ref is None:
        wrap_dim(call, call.int("dim"), shapes[0], "dim")  # beyond the dims around the run: checked at run time
        return TensorV(Shape.unknown(), tensors[0].dtype)
    if ref.rank == 0:
        call.error(
            codes.RANK_MISMATCH, "zero-dimensional tensors cannot be concatenated", "tensors", "use `torch.stack`"
        )
        return _ERR
    i = wrap_dim(call, call.int("dim"), ref, "dim")
    if i is None:
        return TensorV(Shape.unknown(), tensors[0].dtype)
    total: Dim = 0
    for k, s in enumerate(shapes):
        if s.rank is None:
            total = Unknown(UnknownSource.UNANNOTATED)
            call.oblige(f"tensor {k} must have {plural(ref.rank, 'dim')}", [])
            continue
        if s.rank != ref.rank:
            call.error(
                codes.RANK_MISMATCH,
                f"tensors must have the same number of dims: {render_shape(ref)} and {render_shape(s)} (tensor {k})",
                "tensors",
            )
            return _ERR
        for j, (a, b) in enumerate(zip(ref.dims, s.dims)):
            if j == i:
                continue

            def mismatch(s: Shape = s, j: int = j, k: int = k) -> str:
                return f"sizes must match except in dim {i}: {render_shape(ref)} and {render_shape(s)} differ in dim {j} (tensor {k})"

            v = call.check(
                eq3(a, b, call.facts),
                (a, b),
                mismatch,
                rel=Rel.EQ,
                at="tensors",
                hint=f"concatenation along dim {i} needs every other dim equal",
                checks=[],
            )
            if v is Verdict.ERROR:
                return _ERR
        total = arith.add(total, s.dims[i])
    listed = call.value("tensors")
    if (
        not known_len
        and count is not None
        and isinstance(listed, SeqV)
        and listed.varied
        and not isinstance(total, (int, Unknown))
    ):
        # Items appended in a loop, whose sizes along ``dim`` differ: their sum is some size.
        total = call.fresh("n")
    elif not known_len:
        # ``count`` repeated elements like the one seen, or an unknown number of them.
        total = Unknown(UnknownSource.DATA_DEPENDENT) if count is None else arith.mul(count, total)
    return TensorV(replace(ref, i, (total,)), tensors[0].dtype)


@rule("meshgrid")
def meshgrid(call: Call) -> Value:
    """``torch.meshgrid(a, b, indexing="ij")`` (or of one list of tensors): one tensor per input, each
    shaped by the inputs' lengths in order (with ``indexing="xy"`` the first two swapped); an input
    must be 0-D (one element) or 1-D."""
    v = call.value("tensors")
    if isinstance(v, TupleV) and len(v.items) == 1 and isinstance(v.items[0], TupleV):
        v = v.items[0]  # ``torch.meshgrid([a, b])``
    if not isinstance(v, TupleV) or not v.items:
        return UnknownV()
    lengths: list[Dim] = []
    for k, item in enumerate(v.items):
        if not isinstance(item, TensorV) or item.shape.rank is None:
            return TupleV(tuple(unknown_tensor() for _ in v.items))
        if item.shape.rank > 1:
            call.error(
                codes.RANK_MISMATCH,
                f"meshgrid expects 0-D or 1-D tensors, got tensor {k} of shape {render_shape(item.shape)}",
                "tensors",
                "flatten the inputs first",
            )
            return TupleV(tuple(_ERR for _ in v.items))
        lengths.append(item.shape.dims[0] if item.shape.rank == 1 else 1)
    if call.str("indexing") == "xy" and len(lengths) >= 2:
        lengths[0], lengths[1] = lengths[1], lengths[0]
    dtype = next((t.dtype for t in v.items if isinstance(t, TensorV)), None)
    return TupleV(tuple(TensorV(Shape(tuple(lengths)), dtype) for _ in v.items))


@rule("stack")
def stack(call: Call) -> Value:
    got = _nonempty_list(call, "tensors", "expected a non-empty list of tensors")
    if isinstance(got, Value):
        return got
    tensors, _, count = got
    ref = next((t.shape for t in tensors if t.shape.rank is not None), tensors[0].shape)
    for k, t in enumerate(tensors):
        s = t.shape
        if s.rank is not None and ref.rank is not None:
            if s.rank != ref.rank:
                call.error(
                    codes.SHAPE_MISMATCH,
                    f"stack expects each tensor to be equal size, but got {render_shape(ref)} and {render_shape(s)} (tensor {k})",
                    "tensors",
                )
                return _ERR
            for a, b in zip(ref.dims, s.dims):
                v = call.check(
                    eq3(a, b, call.facts),
                    (a, b),
                    f"stack expects each tensor to be equal size, but got {render_shape(ref)} and {render_shape(s)} (tensor {k})",
                    rel=Rel.EQ,
                    at="tensors",
                )
                if v is Verdict.ERROR:
                    return _ERR
    i = wrap_dim(call, call.int("dim"), ref, "dim", extra=1)
    n: Dim = count if count is not None else Unknown(UnknownSource.DATA_DEPENDENT)
    if i is None:
        return TensorV(Shape.unknown(), tensors[0].dtype)
    items = list(ref.items)
    items.insert(i, n)
    return TensorV(Shape(tuple(items)), tensors[0].dtype)


@rule("pad_sequence")
def pad_sequence(call: Call) -> Value:
    """``pad_sequence([L_i *rest])``: ``[B maxL *rest]`` (``batch_first``) or ``[maxL B *rest]``, ``*rest``
    the first sequence's trailing dims, into which every sequence must broadcast (a tensor ``[B L
    *rest]`` is its rows)."""
    v = call.value("sequences")
    if isinstance(v, TensorV) and v.shape.rank is not None and v.shape.rank >= 2:
        dims = v.shape.dims
        rows: Dim = dims[0]
        longest: Dim = dims[1]
        trailing: tuple[Item, ...] = dims[2:]
        dtype = v.dtype
    else:
        got = sequences(call, "sequences")
        if isinstance(got, Value):
            return got
        rows, longest, trailing, dtype = got.rows, got.longest, got.trailing, got.dtype
    batch_first = call.bool("batch_first")
    if batch_first is None:
        return TensorV(Shape((Unknown(), Unknown(), *trailing)), dtype)
    lead = (rows, longest) if batch_first else (longest, rows)
    return TensorV(Shape((*lead, *trailing)), dtype)


@dataclass(frozen=True)
class Sequences:
    """A list of variable-length sequences ``[L_i *trailing]`` (``pad_sequence``, ``pack_sequence``)."""

    #: How many (a known size, or unknown).
    rows: Dim
    #: The longest ``L_i``.
    longest: Dim
    trailing: tuple[Item, ...]
    dtype: str | None
    #: Each ``L_i``, when the list's items are known (``None`` otherwise).
    lengths: tuple[Dim, ...] | None


def sequences(call: Call, name: str) -> Sequences | Value:
    """The sequences of list argument ``name``, each of which must broadcast into its rows ``[L_i
    *trailing]`` of the padded batch (``*trailing`` the first sequence's trailing dims); or the result
    to give (unknown, or an error reported)."""
    got = _nonempty_list(call, name, "received an empty list of sequences")
    if isinstance(got, Value):
        return got
    tensors, known_len, count = got
    ref = tensors[0].shape
    if ref.rank is None:
        return _run_sequences(call, name, tensors)
    lengths: list[Dim] = []
    trailing = ref.dims[1:]
    for t in tensors:
        s = t.shape
        if s.rank is None:
            return unknown_tensor(UnknownSource.UNSUPPORTED)
        if s.rank == 0:
            call.error(codes.INVALID_ARG, "a sequence has no dims (it must be at least 1-D)", name)
            return _ERR
        # Each sequence is copied into its rows of the result: it must broadcast to [L_i *trailing].
        target = (s.dims[0], *trailing)
        message = (
            f"a sequence {render_shape(s)} does not fit its rows {render_shape(Shape(target))} of the padded batch"
        )
        if s.rank > len(target):
            call.error(codes.SHAPE_MISMATCH, message, name)
            return _ERR
        for a, b in zip(reversed(s.dims), reversed(target)):
            if a == 1:
                continue
            if call.check(eq3(a, b, call.facts), (a, b), message, rel=Rel.EQ, at=name) is Verdict.ERROR:
                return _ERR
        lengths.append(s.dims[0])
    rows = count if count is not None else Unknown(UnknownSource.DATA_DEPENDENT)
    # The longest sequence: known from the items, or the one constant length all repeated elements
    # have. Repeated elements may still differ in a size that is not a constant (a sample's length),
    # so there the longest is a size of this batch of its own (an opaque symbol, so what is padded
    # alike relates: ``logits.reshape(-1, C)`` against ``tags.reshape(-1)``).
    longest: Dim
    if known_len:
        longest = arith.dmax(*lengths)
    elif type(lengths[0]) is int:
        longest = lengths[0]
    else:
        longest = call.fresh("max_len")
    if isinstance(longest, Unknown):
        longest = call.fresh("max_len")
    return Sequences(rows, longest, trailing, tensors[0].dtype, tuple(lengths) if known_len else None)


def _run_sequences(call: Call, name: str, tensors: Sequence[TensorV]) -> Value:
    """Sequences whose first holds a run: unknown, after checking each sequence of known rank
    against the first's dims after the run (``[4 *b 2]``: every row ends in 2, whatever the run's
    length, once a first dim stands before it)."""
    ref = tensors[0].shape
    star = ref.star_index
    if star is None or star == 0:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    suffix = ref.items[star + 1 :]
    for t in tensors[1:]:
        if t.shape.rank is None:
            continue
        dims = t.shape.dims
        message = f"a sequence {render_shape(t.shape)} does not fit its rows of the padded batch (ending in {render_shape(Shape(suffix))})"
        for a, b in zip(reversed(dims), reversed(suffix)):
            assert not isinstance(b, Star)
            if a != 1 and call.check(eq3(a, b, call.facts), (a, b), message, rel=Rel.EQ, at=name) is Verdict.ERROR:
                return _ERR
    return unknown_tensor(UnknownSource.UNSUPPORTED)


@rule("same_shape")
def same_shape(call: Call) -> Value:
    """Ops whose result has the input's shape, after checking a ``dim`` argument if any."""
    got = _self(call)
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    need, most = call.params.get("min_rank"), call.params.get("max_rank")
    if shape.rank is not None and (
        (need is not None and shape.rank < need) or (most is not None and shape.rank > most)
    ):
        wanted = f"{need} to {most}" if most is not None else f"at least {need}"
        call.error(codes.RANK_MISMATCH, f"input must have {plural(wanted, 'dim')}, got {render_shape(shape)}", src)
        return _ERR
    if shape.rank is None and need is not None:
        if most is not None and not run_rank_among(call, shape, range(need, most + 1), call.name, src):
            return _ERR
        if most is None:
            run_rank_at_least(call, shape, need, call.name, src)
    for name in ("dim", "dims"):
        if call.has(name) and not call.is_none(name):
            ds = call.ints(name)
            if ds is not None:
                wrap_dims(call, ds, shape, name)
    aligned = call.params.get("aligned")
    if aligned is not None and not _aligned(call, aligned, "dims"):
        return _ERR
    dtype = call.params.get("dtype")
    t = call.tensor(src)
    return TensorV(shape, dtype or (t.dtype if t else None))


def _aligned(call: Call, name: str, dims: str) -> bool:
    """``roll``: one shift per dim rolled (one shift alone when no dims are given)."""
    n_s = _count(call.value(name))
    n_d = 0 if call.is_none(dims) else _count(call.value(dims))
    if n_s is None or n_d is None or n_s == (n_d or 1):
        return True
    call.error(
        codes.INVALID_ARG,
        f"{name} and {dims} must align: {n_s} {name}, {n_d} {dims}",
        name,
        "give one shift per dim, or a single shift to roll the flattened tensor",
    )
    return False


def _count(v: Value) -> int | None:
    """How many ints an int-or-sequence argument holds (``None``: not known)."""
    if isinstance(v, IntV):
        return 1
    items = as_dims(v)
    return None if items is None else len(items)


@rule("cross")
def cross(call: Call) -> Value:
    """``torch.cross``: same ranks, the operands broadcast; ``dim`` (default: the first dim of size 3) has size 3."""
    a, b = call.shape("input"), call.shape("other")
    if a is None or b is None:
        return _ERR
    # One operand's rank fixes the other's run.
    fixed_a = run_exact_rank(call, a, b.rank, f"cross with a {b.rank}-D other", "input") if b.rank is not None else a
    fixed_b = run_exact_rank(call, b, a.rank, f"cross of a {a.rank}-D input", "other") if a.rank is not None else b
    if fixed_a is None or fixed_b is None:
        return _ERR
    a, b = fixed_a, fixed_b
    if (a.rank is not None and b.rank is not None and a.rank != b.rank) or (same_run(a, b) and a.min_rank != b.min_rank):
        call.error(codes.RANK_MISMATCH, f"{render_shape(a)} and {render_shape(b)} have different ranks", "other")
        return _ERR
    out, issues = broadcast_shapes([a, b], call.facts)
    if any(i.verdict is Verdict.ERROR for i in issues):
        call.error(codes.BROADCAST, f"{render_shape(a)} and {render_shape(b)} do not broadcast", "other")
        return _ERR
    if out.rank is None or a.rank is None or b.rank is None:
        return _same(call, out)
    if call.is_none("dim") or not call.has("dim"):
        for name, sh in (("input", a), ("other", b)):
            # Both have length 3 at the dim: one with no 3 among its known sizes fails whatever the other's.
            if all(type(d) is int for d in sh.dims) and 3 not in sh.dims:
                call.error(codes.SHAPE_MISMATCH, f"no dim of size 3 in {render_shape(sh)}", name)
                return _ERR
        if not all(type(d) is int for d in out.dims):
            return _same(call, out)
        if 3 not in out.dims:
            call.error(codes.SHAPE_MISMATCH, f"no dim of size 3 in {render_shape(out)}", "input")
            return _ERR
        i = out.dims.index(3)
    else:
        d = call.int("dim")
        if out.rank == 0:
            call.error(codes.SHAPE_MISMATCH, f"no dim of size 3 in {render_shape(out)}", "input")
            return _ERR
        j = wrap_dim(call, d, out, "dim")
        if j is None:
            return _ERR if type(d) is int else _same(call, out)
        i = j
    for name, sh in (("input", a), ("other", b)):
        if type(sh.dims[i]) is int and sh.dims[i] != 3:
            call.error(codes.SHAPE_MISMATCH, f"dim {i} of {render_shape(sh)} has size {sh.dims[i]}, expected 3", name)
            return _ERR
    return _same(call, out)


@rule("cosine_similarity")
def cosine_similarity(call: Call) -> Value:
    """F.cosine_similarity: the operands broadcast, then ``dim`` is reduced away."""
    a, b = call.shape("x1"), call.shape("x2")
    if a is None or b is None:
        return _ERR
    out, issues = broadcast_shapes([a, b], call.facts)
    if any(i.verdict is Verdict.ERROR for i in issues):
        call.error(codes.BROADCAST, f"{render_shape(a)} and {render_shape(b)} do not broadcast", "x2")
        return _ERR
    if out.rank is None:
        return TensorV(Shape.unknown())
    i = wrap_dim(call, call.int("dim"), out, "dim")
    if i is None:
        return _ERR if type(call.int("dim")) is int else TensorV(Shape.unknown())
    if out.rank == 0:
        return TensorV(out)
    return TensorV(Shape(out.dims[:i] + out.dims[i + 1 :]))
