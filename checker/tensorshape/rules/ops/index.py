"""Indexing and slicing (``x[i, :n, None, ..., mask]``), gather, index_select, masked ops."""

from __future__ import annotations

from collections.abc import Sequence

from ...lang.render import render_dim, render_shape
from ...model import codes
from ...model.constraints import Rel
from ...model.dims import Dim, Star, Unknown, UnknownSource
from ...model.shape import Item, Shape
from ...model.text import plural
from ...model.values import (
    BoolV,
    EllipsisV,
    IntV,
    MaybeIntV,
    NoneV,
    SeqKind,
    SeqV,
    SliceV,
    TensorV,
    TupleV,
    UnknownV,
    Value,
    unknown_tensor,
)
from ...unify import arith
from ...unify.broadcast import broadcast_shapes
from ...unify.compare import Truth, Verdict, eq3, le3
from ...unify.facts import NO_FACTS, Facts
from ..call import Call, as_dim
from ..registry import rule
from .util import replace, run_most, run_rank_of, run_rank_shared, wrap_dim

_DATA = UnknownSource.DATA_DEPENDENT


def slice_length(
    size: Dim, start: Dim | None, stop: Dim | None, step: Dim | None, *, exact: bool = False, facts: Facts = NO_FACTS
) -> Dim:
    """The length of ``size``-long axis sliced by ``start:stop:step`` (Python semantics).

    A stop the facts prove within the axis gives ``stop - start`` (``data[idx : idx + k]`` has ``k``
    items inside a dataset's ``__getitem__``, whose ``idx + 1 <= len`` is a fact); one they prove
    beyond it is clamped as Python does.  An undecided stop of a prefix is assumed in range
    (``x[:, :n]`` has ``n`` columns), the usual intent; a window at a symbolic start
    (``data[i : i + k]``) is in range only by a bound on ``i`` the code does not show, so it is
    clamped (``min(i + k, size) - min(i, size)``), as is every undecided stop with ``exact``.  A
    symbolic start before a stop in range is empty when it passes the stop (``x[r:8]`` is
    ``max(8 - r, 0)`` unless the facts prove ``r <= 8``).
    """
    st = 1 if step is None else step
    if type(size) is int and all(x is None or type(x) is int for x in (start, stop)) and type(st) is int:
        return len(range(size)[slice(start, stop, st)])  # type: ignore[arg-type]
    if isinstance(st, Unknown) or isinstance(size, Unknown):
        return Unknown(UnknownSource.UNANNOTATED)
    if st != 1:
        if type(st) is not int or st < 1:
            return Unknown(UnknownSource.UNANNOTATED)

    def resolve(x: Dim | None, default: Dim) -> Dim:
        if x is None:
            return default
        if type(x) is int and x < 0:
            # ``z[..., :-1]`` of a symbolic axis: counted from the end and in range, as ``z[..., 1:]``
            # is (``n-1`` both, so ``z[..., 1:] - z[..., :-1]`` broadcasts); a known size is clamped
            return arith.add(size, x) if type(size) is not int and not exact else arith.dmax(arith.add(size, x), 0)
        if type(x) is not int and le3(x, -1) is Truth.TRUE:
            # ``freqs[-n:]``: counted from the end, and in range like any symbolic bound
            return arith.add(size, x)
        return x

    a = resolve(start, 0)
    b = resolve(stop, size)
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return Unknown(UnknownSource.UNANNOTATED)
    # Clamp to the axis unless the facts prove the stop within it; an undecided prefix is assumed
    # in range (the usual intent) unless ``exact``.
    within = le3(b, size, facts)
    window = type(a) is not int
    if within is Truth.FALSE or ((exact or window) and within is not Truth.TRUE):
        b = arith.dmin(b, size)
        a = arith.dmin(a, size) if a != 0 and le3(a, size, facts) is not Truth.TRUE else a
        if st == 1:
            return arith.dmax(arith.sub(b, a), 0)
    elif window and le3(a, b, facts) is not Truth.TRUE:
        # ``x[r:8]`` with the stop in range: empty, not negative, when ``r`` passes it
        return arith.dmax(arith.sub(b, a), 0) if st == 1 else arith.ceildiv(arith.dmax(arith.sub(b, a), 0), st)
    elif type(b) is int and type(size) is not int:
        pass
    elif eq3(b, size) is not Truth.TRUE and type(b) is int and type(size) is int:
        b = min(b, size)
    length = arith.sub(b, a)
    if st != 1:
        length = arith.ceildiv(length, st)
    if type(length) is int and length < 0:
        return 0
    return length


def _norm_index(v: Value) -> list[Value] | None:
    if isinstance(v, TupleV) and v.kind is SeqKind.TUPLE:
        return list(v.items)
    if isinstance(v, SeqV) and v.kind is SeqKind.TUPLE:
        return None  # a tuple of unknown length: how many dims it indexes is unknown
    return [v]


def _is_adv(v: Value) -> bool:
    return isinstance(v, TensorV) or (isinstance(v, TupleV) and v.kind is SeqKind.LIST) or isinstance(v, SeqV)


def _adv_shape(v: Value) -> tuple[Shape, bool]:
    """The broadcast shape an advanced index contributes, and whether it is a boolean mask."""
    if isinstance(v, TensorV):
        return v.shape, v.dtype == "bool"
    if isinstance(v, TupleV):
        if v.items and all(isinstance(x, BoolV) for x in v.items):
            return Shape((Unknown(_DATA),)), True
        return Shape((len(v.items),)), False
    return Shape((Unknown(_DATA),)), False


def _bounded_run(shape: Shape, consumed: int) -> Shape | None:
    """``shape`` with its run replaced by unknown dims, when the run holds at most ``most`` dims and
    ``consumed`` indices without an ellipsis need all of them (torch raises with fewer dims): an LSTM's
    ``h_n`` of ``[4 ... 24]`` (a batch dim or none) indexed as ``h_n[-1, :, :]`` is ``[4 ? 24]``."""
    star, at = shape.star, shape.star_index
    if star is None or at is None or star.most is None:
        return None
    need = consumed - shape.min_rank
    if need > star.most:
        return None  # more than it can hold: the caller reports it
    if star.most == 0 or need == star.most:
        run = tuple(Unknown(star.source) for _ in range(star.most))
        return Shape(shape.items[:at] + run + shape.items[at + 1 :])
    return None


def index_shape(call: Call, shape: Shape, index: Sequence[Value]) -> Shape | None:
    """The result shape of ``x[index]``, reporting out-of-range indices."""
    for v in index:
        if isinstance(v, MaybeIntV) or not isinstance(
            v, (NoneV, EllipsisV, BoolV, IntV, TensorV, SliceV, TupleV, SeqV)
        ):
            return Shape.unknown()  # an index we cannot classify: say nothing
    consumed = 0
    for v in index:
        if isinstance(v, (NoneV, EllipsisV)):
            continue
        if isinstance(v, TensorV) and v.dtype == "bool" and v.shape.rank is not None:
            consumed += max(v.shape.rank, 1) if v.shape.rank else 1
        elif isinstance(v, BoolV):
            continue
        else:
            consumed += 1
    n_ell = sum(isinstance(v, EllipsisV) for v in index)
    if n_ell > 1:
        call.error(codes.INVALID_ARG, "an index can only have a single ellipsis ('...')", "index")
        return None
    bounded = _bounded_run(shape, consumed) if n_ell == 0 and shape.rank is None else None
    if bounded is not None:
        shape = bounded  # the indices say how long a run of at most a few dims is
    most = shape.min_rank + shape.star.most if shape.star is not None and shape.star.most is not None else None
    if shape.rank is None and most is not None and consumed > most:
        # More indices than the dims the tensor can have, whatever its run holds.
        call.error(
            codes.INDEX_RANGE,
            f"too many indices for {render_shape(shape)}: {plural(consumed, 'index', 'indices')}, at most {plural(most, 'dim')}",
            "index",
            "index at most as many dims as the tensor has; use None to add a dim",
        )
        return None
    if shape.rank is not None and consumed > shape.rank:
        call.error(
            codes.INDEX_RANGE,
            f"too many indices for {render_shape(shape)}: {plural(consumed, 'index', 'indices')}, {plural(shape.rank, 'dim')}",
            "index",
            "index at most as many dims as the tensor has; use None to add a dim",
        )
        return None
    if shape.rank is None:
        # Only the leading indices before an ellipsis (or all, with no ellipsis) are placeable.
        if n_ell == 0 and consumed > len(shape.prefix):
            return Shape.unknown()
    items = list(shape.items)
    out: list[Item] = []
    pos = 0  # next axis of the input
    adv: list[tuple[int, Shape]] = []  # (output position, index shape)
    adv_positions: list[int] = []
    for k, v in enumerate(index):
        if isinstance(v, EllipsisV):
            if shape.rank is None:
                rest = sum(1 for w in index[k + 1 :] if not isinstance(w, (NoneV, EllipsisV)))
                if rest > len(shape.suffix):
                    return Shape.unknown()
                star_at = shape.star_index
                assert star_at is not None
                # Copy everything up to where the remaining indices start.
                end = len(items) - rest
                out.extend(items[pos:end])
                pos = end
            else:
                take = shape.rank - consumed
                out.extend(items[pos : pos + take])
                pos += take
            continue
        if isinstance(v, NoneV):
            out.append(1)
            continue
        if isinstance(v, BoolV):
            out.append(1 if v.value is not False else 0)
            continue
        if pos >= len(items) or isinstance(items[pos], Star):
            return Shape.unknown()
        size: Dim = items[pos]
        if isinstance(v, IntV) or (isinstance(v, TensorV) and v.shape.rank == 0 and v.dtype != "bool"):
            i = as_dim(v) if isinstance(v, IntV) else Unknown(_DATA)
            if type(i) is int and not isinstance(size, Unknown):
                lo_ok = le3(arith.neg(size), i, call.facts) if i < 0 else Truth.TRUE
                hi_ok = le3(i + 1, size, call.facts) if i >= 0 else Truth.TRUE
                for t in (lo_ok, hi_ok):
                    if t is not Truth.TRUE:
                        verdict = call.check(
                            t,
                            (size,),
                            f"index {i} is out of bounds for dim {pos} with size {render_dim(size)}",
                            at="index",
                            code=codes.INDEX_RANGE,
                        )
                        if verdict is Verdict.ERROR:
                            return None
                        break
            pos += 1
            continue
        if isinstance(v, SliceV):
            start, stop, step = (None if isinstance(x, NoneV) else as_dim(x) for x in (v.start, v.stop, v.step))
            if any(not isinstance(x, NoneV) and as_dim(x) is None for x in (v.start, v.stop, v.step)):
                out.append(Unknown(UnknownSource.UNANNOTATED))
            elif step is not None and type(step) is int and step <= 0:
                call.error(codes.INVALID_ARG, "slice step must be positive", "index")
                return None
            else:
                out.append(slice_length(size, start, stop, step, exact=call.ctx.options.exact_bounds, facts=call.facts))
            pos += 1
            continue
        if _is_adv(v):
            s, is_mask = _adv_shape(v)
            if is_mask and isinstance(v, TensorV) and s.rank is not None and s.rank >= 1:
                for j, md in enumerate(s.dims):
                    if pos + j < len(items) and not isinstance(items[pos + j], Star):
                        ad: Dim = items[pos + j]
                        verdict = call.check(
                            eq3(md, ad, call.facts),
                            (md, ad),
                            f"mask {render_shape(s)} does not match dims {pos}..{pos + s.rank - 1} of {render_shape(shape)}",
                            rel=Rel.EQ,
                            at="index",
                            code=codes.SHAPE_MISMATCH,
                        )
                        if verdict is Verdict.ERROR:
                            return None
                adv.append((len(out), Shape((Unknown(_DATA),))))
                pos += s.rank
            else:
                adv.append((len(out), s))
                pos += 1
            adv_positions.append(len(out))
            continue
        if isinstance(v, UnknownV):
            return Shape.unknown()
        return Shape.unknown()
    out.extend(items[pos:])
    if adv:
        bshape, issues = broadcast_shapes([s for _, s in adv], call.facts)
        for iss in issues:
            if iss.verdict is Verdict.ERROR:
                call.error(codes.BROADCAST, "advanced indices do not broadcast together", "index")
                return None
        # Adjacent advanced indices stay in place; separated ones go first.
        adjacent = all(b - a == 0 for a, b in zip(adv_positions, adv_positions[1:]))
        at = adv_positions[0] if adjacent else 0
        res = out[:at] + list(bshape.items) + out[at:]
        if sum(isinstance(x, Star) for x in res) > 1:
            return Shape.unknown()
        return Shape(tuple(res))
    if sum(isinstance(x, Star) for x in out) > 1:
        return Shape.unknown()
    return Shape(tuple(out))


@rule("getitem")
def getitem(call: Call) -> Value:
    t = call.tensor("self")
    if t is None:
        return UnknownV()
    index = _norm_index(call.value("index"))
    if index is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    out = index_shape(call, t.shape, index)
    if out is None:
        return unknown_tensor(UnknownSource.ERROR, t.dtype)
    return TensorV(out, t.dtype)


@rule("index_select")
def index_select(call: Call) -> Value:
    t, idx = call.tensor("input"), call.shape("index")
    if t is None or idx is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    if idx.rank is not None and idx.rank > 1:
        call.error(codes.RANK_MISMATCH, f"index must be 0-D or 1-D, got {render_shape(idx)}", "index")
        return unknown_tensor(UnknownSource.ERROR)
    # A run in the index is at most one dim long, and so is the input's where it is the same run.
    both = run_rank_shared(call, idx, (0, 1), "index_select's index", "index", (t.shape,))
    if both is None:
        return unknown_tensor(UnknownSource.ERROR)
    idx, shape = both
    i = wrap_dim(call, call.int("dim"), shape, "dim", most=run_most(idx, 1, shape))
    if i is None:
        return TensorV(Shape.unknown(), t.dtype)
    n: Dim = idx.items[0] if idx.rank == 1 else 1 if idx.rank == 0 else Unknown(UnknownSource.UNANNOTATED)
    if shape.rank == 0:
        return TensorV(shape, t.dtype)
    return TensorV(replace(shape, i, (n,)), t.dtype)


@rule("gather")
def gather(call: Call) -> Value:
    """``gather(input, dim, index)``: the index's shape; the input's rank (a 0-d operand counts as
    1-d), and no bigger than the input off ``dim``.  torch checks neither for an index of no elements."""
    t, idx = call.tensor("input"), call.tensor("index")
    if t is None or idx is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    s, ix = t.shape, idx.shape
    if ix.rank is None or any(eq3(d, 0, call.facts) is Truth.TRUE for d in ix.dims):
        # A run in the index may hold a 0: then any rank is accepted.
        wrap_dim(call, call.int("dim"), s, "dim")
        return TensorV(ix, t.dtype)
    # The index's rank fixes the input's run.
    fixed = run_rank_of(call, s, (0, 1) if ix.rank <= 1 else (ix.rank,), f"gather with a {ix.rank}-D index", "input")
    if fixed is None:
        return unknown_tensor(UnknownSource.ERROR)
    s = fixed
    i = wrap_dim(call, call.int("dim"), s, "dim")
    if s.rank is not None:
        if max(s.rank, 1) != max(ix.rank, 1):
            call.error(
                codes.RANK_MISMATCH,
                f"index {render_shape(ix)} and input {render_shape(s)} must have the same number of dims",
                "index",
            )
            return unknown_tensor(UnknownSource.ERROR)
        for j, (a, b) in enumerate(zip(ix.dims, s.dims)):
            if j == i:
                continue
            v = call.check(
                le3(a, b, call.facts),
                (a, b),
                f"index {render_shape(ix)} is larger than input {render_shape(s)} in dim {j}",
                rel=Rel.LE,
                at="index",
                code=codes.SHAPE_MISMATCH,
            )
            if v is Verdict.ERROR:
                return unknown_tensor(UnknownSource.ERROR)
    return TensorV(idx.shape, t.dtype)


@rule("scatter")
def scatter(call: Call) -> Value:
    """scatter/scatter_add/index_add/index_copy: the result has ``self``'s shape."""
    t = call.tensor("input") or call.tensor("self")
    if t is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    shape = t.shape
    idx = call.shape("index")
    src = call.shape("src") if call.has("src") and not call.is_none("src") else None
    vector = call.name in ("index_add", "index_copy", "index_fill")  # a 0-d or 1-d index
    if vector and idx is not None:
        # A run in index_add's index is at most one dim long, and so is the input's and the source's
        # where it is the same run.
        others = (shape,) if src is None else (shape, src)
        sized = run_rank_shared(call, idx, (0, 1), f"{call.name}'s index", "index", others)
        if sized is None:
            return unknown_tensor(UnknownSource.ERROR)
        idx, shape, src = sized[0], sized[1], None if src is None else sized[2]
    # One operand's rank fixes another's run: scatter's index and input have one rank (an empty or
    # 0-d index aside); index_add's source and input do (a 0-d one aside).
    ranks: tuple[int, ...] = ()
    if call.name.startswith("index_"):
        if src is not None and src.rank:
            ranks = (0, src.rank)
    elif idx is not None and idx.rank and not (idx.rank == 1 and idx.dims[0] == 0):
        ranks = (idx.rank,)
    if ranks:
        other = "source" if call.name.startswith("index_") else "index"
        fixed = run_rank_of(call, shape, ranks, f"{call.name} with a {ranks[-1]}-D {other}", "input")
        if fixed is None:
            return unknown_tensor(UnknownSource.ERROR)
        shape = fixed
    if idx is not None and shape.rank and not call.name.startswith("index_"):
        fixed = run_rank_of(call, idx, (0, 1, shape.rank), f"{call.name} of a {shape.rank}-D input", "index")
        if fixed is None:
            return unknown_tensor(UnknownSource.ERROR)
        idx = fixed
    most = run_most(idx, 1, shape) if vector and idx is not None else None
    i = wrap_dim(call, call.int("dim"), shape, "dim", most=most) if call.has("dim") else None
    if call.has("dim") and i is None and type(call.int("dim")) is int:
        return unknown_tensor(UnknownSource.ERROR)
    if i is None or idx is None or shape.rank is None or idx.rank is None:
        return TensorV(t.shape, t.dtype)
    if call.name.startswith("index_"):
        if idx.rank > 1:
            call.error(codes.RANK_MISMATCH, f"index must be 1-D, got {render_shape(idx)}", "index")
            return unknown_tensor(UnknownSource.ERROR)
        if src is not None and src.rank is not None and src.rank != 0 and shape.rank != 0:
            n = idx.dims[0] if idx.rank == 1 else 1
            expected = Shape(shape.dims[:i] + (n,) + shape.dims[i + 1 :])
            if src.rank != shape.rank or any(
                eq3(a, b, call.facts) is Truth.FALSE for a, b in zip(src.dims, expected.dims)
            ):
                call.error(
                    codes.SHAPE_MISMATCH,
                    f"source {render_shape(src)} should be {render_shape(expected)} (the input with dim {i} "
                    f"replaced by the index length)",
                    "src",
                )
                return unknown_tensor(UnknownSource.ERROR)
        return TensorV(t.shape, t.dtype)
    # scatter, scatter_add, scatter_reduce: index, input and src have one rank; index fits in both.
    if idx.rank != shape.rank and not (idx.rank == 0 or (idx.rank == 1 and idx.dims[0] == 0)):
        call.error(
            codes.RANK_MISMATCH,
            f"index {render_shape(idx)} must have the rank of the input {render_shape(shape)}",
            "index",
        )
        return unknown_tensor(UnknownSource.ERROR)
    if idx.rank == shape.rank:
        for j, (a, b) in enumerate(zip(idx.dims, shape.dims)):
            if j != i and type(a) is int and type(b) is int and a > b:
                call.error(
                    codes.SHAPE_MISMATCH,
                    f"index {render_shape(idx)} is larger than the input {render_shape(shape)} in dim {j}",
                    "index",
                )
                return unknown_tensor(UnknownSource.ERROR)
        if src is not None and src.rank is not None and src.rank == idx.rank:
            for j, (a, b) in enumerate(zip(idx.dims, src.dims)):
                if type(a) is int and type(b) is int and a > b:
                    call.error(
                        codes.SHAPE_MISMATCH,
                        f"index {render_shape(idx)} is larger than src {render_shape(src)} in dim {j}",
                        "index",
                    )
                    return unknown_tensor(UnknownSource.ERROR)
    return TensorV(t.shape, t.dtype)


@rule("masked")
def masked(call: Call) -> Value:
    """masked_fill / masked_scatter: the input and the mask broadcast; the result has their joint shape."""
    t, m = call.tensor("input") or call.tensor("self"), call.tensor("mask")
    if t is None or m is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    out, issues = broadcast_shapes([t.shape, m.shape], call.facts)
    for iss in issues:
        if iss.verdict is Verdict.ERROR:
            call.error(
                codes.BROADCAST,
                f"mask {render_shape(m.shape)} does not broadcast to {render_shape(t.shape)} (dim {iss.position})",
                "mask",
                "the mask's dims must equal the input's or be 1",
            )
            return unknown_tensor(UnknownSource.ERROR)
        if iss.verdict is Verdict.OBLIGATION:
            call.broadcast_undecided(
                iss.dims,
                f"mask {render_shape(m.shape)} must broadcast to {render_shape(t.shape)} (dim {iss.position})",
                "mask",
            )
    # Out of place, the input and the mask broadcast together (in place, the engine then
    # requires the result to keep the input's shape).
    return TensorV(out, t.dtype)


@rule("masked_select")
def masked_select(call: Call) -> Value:
    t, m = call.tensor("input"), call.tensor("mask")
    if t is None or m is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    _, issues = broadcast_shapes([t.shape, m.shape], call.facts)
    for iss in issues:
        if iss.verdict is Verdict.ERROR:
            call.error(
                codes.BROADCAST, f"mask {render_shape(m.shape)} does not broadcast with {render_shape(t.shape)}", "mask"
            )
            return unknown_tensor(UnknownSource.ERROR)
        if iss.verdict is Verdict.OBLIGATION:
            call.broadcast_undecided(
                iss.dims,
                f"mask {render_shape(m.shape)} must broadcast with {render_shape(t.shape)} (dim {iss.position})",
                "mask",
            )
    return TensorV(Shape((Unknown(_DATA),)), t.dtype)


@rule("nonzero")
def nonzero(call: Call) -> Value:
    t = call.tensor("input")
    if t is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    r = t.shape.rank
    if call.bool("as_tuple"):
        if r is None:
            return SeqV(TensorV(Shape((Unknown(_DATA),)), "int64"), SeqKind.TUPLE)
        return TupleV(tuple(TensorV(Shape((Unknown(_DATA),)), "int64") for _ in range(max(r, 1))), SeqKind.TUPLE)
    return TensorV(Shape((Unknown(_DATA), Unknown(UnknownSource.UNANNOTATED) if r is None else r)), "int64")


@rule("bincount")
def bincount(call: Call) -> Value:
    """``torch.bincount``: a 1-D count of ``max(input) + 1`` bins, or ``minlength`` when more: a length
    the data decides.  The input is 1-D, and ``weights`` too, of the input's length."""
    x = call.shape("input")
    if x is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    if x.rank is not None and x.rank != 1:
        call.error(codes.RANK_MISMATCH, f"bincount takes a 1-D input, got {render_shape(x)}", "input")
        return unknown_tensor(UnknownSource.ERROR)
    weighted = call.has("weights") and not call.is_none("weights")
    if weighted and any(type(d) is int and d == 0 for d in x.items):
        return TensorV(Shape((Unknown(_DATA),)), "int64")  # an empty input: torch never looks at the weights
    if weighted:
        w = call.shape("weights")
        if w is not None and w.rank is not None and w.rank != 1:
            call.error(codes.RANK_MISMATCH, f"bincount's weights must be 1-D, got {render_shape(w)}", "weights")
            return unknown_tensor(UnknownSource.ERROR)
        call.match({"input": "n", "weights": "n"})
    return TensorV(Shape((Unknown(_DATA),)), None if weighted else "int64")


@rule("take_along_dim")
def take_along_dim(call: Call) -> Value:
    """``torch.take_along_dim``: without ``dim``, the flattened input indexed by the flattened
    indices; with ``dim``, the other dims broadcast and ``dim`` takes the indices' size."""
    a, idx = call.shape("input"), call.shape("indices")
    if a is None or idx is None or a.rank is None or idx.rank is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    if call.is_none("dim") or not call.has("dim"):
        return TensorV(Shape((arith.prod(idx.dims),)))
    d = call.int("dim")
    if a.rank == 0 and type(d) is int:
        call.error(codes.DIM_RANGE, f"dim {d} given, but the input {render_shape(a)} has no dims", "dim")
        return unknown_tensor(UnknownSource.ERROR)
    i = wrap_dim(call, d, a, "dim")
    if i is None:
        return unknown_tensor(UnknownSource.ERROR if type(d) is int else UnknownSource.UNSUPPORTED)
    if idx.rank != a.rank:
        call.error(
            codes.RANK_MISMATCH,
            f"indices {render_shape(idx)} must have the rank of the input {render_shape(a)}",
            "indices",
        )
        return unknown_tensor(UnknownSource.ERROR)
    rest_a = Shape(a.dims[:i] + (1,) + a.dims[i + 1 :])
    rest_i = Shape(idx.dims[:i] + (1,) + idx.dims[i + 1 :])
    out, issues = broadcast_shapes([rest_a, rest_i], call.facts)
    if any(x.verdict is Verdict.ERROR for x in issues) or out.rank is None:
        call.error(
            codes.BROADCAST,
            f"indices {render_shape(idx)} do not broadcast with the input {render_shape(a)} outside dim {i}",
            "indices",
        )
        return unknown_tensor(UnknownSource.ERROR)
    return TensorV(Shape(out.dims[:i] + (idx.dims[i],) + out.dims[i + 1 :]))
