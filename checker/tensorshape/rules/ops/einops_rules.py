"""einops: ``rearrange``, ``reduce``, ``repeat``, ``pack``, ``einsum`` and the ``einops.layers.torch`` modules.

A pattern side is a list of groups (``b (h w) c`` has three); a group's size
is the product of its axes.  On the input side every group must resolve: its
known axes divide the dim, and at most one axis is unknown (it is solved as
``dim // known``, with a divisibility check, as einops does at run time).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...lang.render import render_dim, render_shape
from ...model import codes
from ...model.constraints import Rel
from ...model.dims import Dim, Unknown, UnknownSource
from ...model.shape import Item, Shape
from ...model.text import plural
from ...model.values import DictV, SeqKind, SeqV, StrV, TensorV, TupleV, Value, unknown_tensor
from ...unify import arith
from ...unify.compare import Truth, Verdict, eq3
from ..call import Call, as_dim
from ..registry import rule
from .util import run_exact_rank, run_rank_at_least

__all__ = ["parse_side", "EinopsSyntaxError"]

ELLIPSIS = "..."


class EinopsSyntaxError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Group:
    #: Axis names; ``"1"`` is a unit axis, digits an anonymous axis of that size, ``...`` the ellipsis.
    axes: tuple[str, ...]
    composite: bool


def parse_side(text: str) -> list[Group]:
    groups: list[Group] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "(":
            j = text.find(")", i)
            if j < 0:
                raise EinopsSyntaxError("unbalanced parenthesis")
            inner = text[i + 1 : j].split()
            if any("(" in a for a in inner):
                raise EinopsSyntaxError("nested parentheses are not allowed")
            groups.append(Group(tuple(inner), True))
            i = j + 1
        elif c == ")":
            raise EinopsSyntaxError("unbalanced parenthesis")
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in "()":
                j += 1
            groups.append(Group((text[i:j],), False))
            i = j
    names = [a for g in groups for a in g.axes if not a.isdigit()]
    for a in names:
        if a != ELLIPSIS and not a.isidentifier():
            raise EinopsSyntaxError(f"invalid axis name {a!r}")
    dup = {a for a in names if names.count(a) > 1}
    if dup:
        raise EinopsSyntaxError(f"axis {sorted(dup)[0]} appears twice on one side")
    return groups


def _pattern(call: Call, param: str = "pattern") -> tuple[list[Group], list[Group]] | None:
    v = call.value(param)
    if not isinstance(v, StrV) or v.value is None:
        return None
    left, arrow, right = v.value.partition("->")
    if not arrow:
        call.error(codes.INVALID_ARG, f"pattern {v.value!r} needs `->`", param)
        return None
    try:
        return parse_side(left), parse_side(right)
    except EinopsSyntaxError as e:
        call.error(codes.INVALID_ARG, f"pattern {v.value!r}: {e}", param)
        return None


def _lengths(call: Call) -> dict[str, Dim]:
    """``**axes_lengths`` keyword arguments (``h=2``)."""
    out: dict[str, Dim] = {}
    v = call.value("axes_lengths") if call.has("axes_lengths") else None
    if isinstance(v, DictV):
        for k, x in v.items:
            d = as_dim(x)
            if d is not None:
                out[k] = d
    return out


def _solve_input(call: Call, groups: list[Group], shape: Shape, sizes: dict[str, Dim]) -> Shape | None:
    """Bind the input side's axes to the tensor's dims; the dims the ellipsis covers, or ``None`` on error."""
    ell_groups = [i for i, g in enumerate(groups) if ELLIPSIS in g.axes]
    n_fixed = len(groups) - len(ell_groups)
    if shape.rank is None and ell_groups:
        run_rank_at_least(call, shape, n_fixed, "the pattern", "tensor")
    elif shape.rank is None:
        # One dim per axis: a run takes the length left (einops raises for any other).
        fixed = run_exact_rank(call, shape, len(groups), "the pattern", "tensor")
        if fixed is None:
            return None
        shape = fixed
    if shape.rank is None:
        return None
    if (not ell_groups and shape.rank != len(groups)) or (ell_groups and shape.rank < n_fixed):
        want = f"at least {n_fixed}" if ell_groups else str(len(groups))
        call.error(
            codes.RANK_MISMATCH, f"the pattern expects {plural(want, 'dim')}, got {render_shape(shape)}", "tensor"
        )
        return None
    if ell_groups and groups[ell_groups[0]].composite:
        call.error(codes.INVALID_ARG, "`(...)` is not allowed on the input side", "pattern")
        return None
    dims = list(shape.dims)
    ell: Shape = Shape(())
    if ell_groups:
        at = ell_groups[0]
        span = shape.rank - n_fixed
        ell = Shape(tuple(dims[at : at + span]))
        dims = dims[:at] + [1] + dims[at + span :]
    for g, d in zip(groups, dims):
        if ELLIPSIS in g.axes:
            continue
        known: Dim = 1
        unknown: list[str] = []
        for a in g.axes:
            if a.isdigit():
                known = arith.mul(known, int(a))
            elif a in sizes:
                known = arith.mul(known, sizes[a])
            else:
                unknown.append(a)
        if len(unknown) > 1:
            call.error(
                codes.UNSOLVABLE,
                f"cannot infer the sizes of {', '.join(unknown)} from a dim of size {render_dim(d)}",
                "pattern",
                f"pass all but one of them as keyword arguments, e.g. {unknown[0]}=...",
            )
            return None
        if unknown:
            div = call.facts.divisible(d, known) if not isinstance(d, Unknown) else None
            if type(d) is int and type(known) is int and (known == 0 or d % known):
                call.error(
                    codes.UNSOLVABLE,
                    f"dim of size {d} is not divisible by {render_dim(known)} "
                    f"({' * '.join(a for a in g.axes if a != unknown[0])}) to infer {unknown[0]}",
                    "tensor",
                )
                return None
            if div is None and not isinstance(d, Unknown) and not isinstance(known, Unknown) and known != 1:
                call.check(
                    Truth.UNKNOWN,
                    (d, known),
                    f"{render_dim(d)} must be divisible by {render_dim(known)} to infer {unknown[0]}",
                    code=codes.UNSOLVABLE,
                    rel=Rel.DIVISIBLE,
                    at="tensor",
                )
            sizes[unknown[0]] = arith.floordiv(d, known) if known != 1 else d
        else:
            v = call.check(
                eq3(known, d, call.facts),
                (known, d),
                f"group ({' '.join(g.axes)}) has size {render_dim(known)}, but the dim is {render_dim(d)}",
                rel=Rel.EQ,
                at="tensor",
            )
            if v is Verdict.ERROR or v is Verdict.UNPROVEN:
                return None
    return ell


def _output(groups: list[Group], sizes: Mapping[str, Dim], ell: Shape) -> Shape:
    items: list[Item] = []
    for g in groups:
        if ELLIPSIS in g.axes:
            if g.composite:
                items.append(arith.prod([*ell.dims, *(sizes.get(a, 1) for a in g.axes if a != ELLIPSIS)]))
            else:
                items.extend(ell.items)
            continue
        size: Dim = 1
        for a in g.axes:
            size = arith.mul(size, int(a) if a.isdigit() else sizes.get(a, Unknown(UnknownSource.UNSUPPORTED)))
        items.append(size)
    return Shape(tuple(items))


def _names(groups: Sequence[Group]) -> set[str]:
    return {a for g in groups for a in g.axes if not a.isdigit() and a != ELLIPSIS}


def _run(call: Call, kind: str) -> Value:
    t = call.tensor("tensor")
    pat = _pattern(call)
    if t is None or pat is None:
        return unknown_tensor(UnknownSource.ERROR if pat is None else UnknownSource.UNSUPPORTED)
    left, right = pat
    sizes = dict(_lengths(call))
    given = dict(sizes)
    lnames, rnames = _names(left), _names(right)
    unused = sorted(set(given) - lnames - rnames)
    if unused:
        call.error(codes.INVALID_ARG, f"axis lengths {', '.join(unused)} are given but not in the pattern", "pattern")
        return unknown_tensor(UnknownSource.ERROR)
    if kind == "rearrange" and lnames != rnames:
        only = sorted(lnames ^ rnames)
        call.error(
            codes.INVALID_ARG,
            f"axes {', '.join(only)} appear on one side only",
            "pattern",
            "use reduce to drop an axis and repeat to add one",
        )
        return unknown_tensor(UnknownSource.ERROR)
    if kind == "reduce" and not rnames <= lnames:
        call.error(
            codes.INVALID_ARG,
            f"output axes {', '.join(sorted(rnames - lnames))} are not in the input",
            "pattern",
        )
        return unknown_tensor(UnknownSource.ERROR)
    if kind == "repeat":
        if not lnames <= rnames:
            call.error(
                codes.INVALID_ARG,
                f"input axes {', '.join(sorted(lnames - rnames))} are missing from the output",
                "pattern",
            )
            return unknown_tensor(UnknownSource.ERROR)
        missing = sorted(a for a in rnames - lnames if a not in given)
        if missing:
            call.error(
                codes.UNSOLVABLE,
                f"the sizes of new axes {', '.join(missing)} are not given",
                "pattern",
                f"pass them as keyword arguments, e.g. {missing[0]}=2",
            )
            return unknown_tensor(UnknownSource.ERROR)
    ell = _solve_input(call, left, t.shape, sizes)
    if ell is None:
        return unknown_tensor(UnknownSource.ERROR if t.shape.rank is not None else UnknownSource.UNANNOTATED)
    has_ell_left = any(ELLIPSIS in g.axes for g in left)
    has_ell_right = any(ELLIPSIS in g.axes for g in right)
    if has_ell_left != has_ell_right and kind != "reduce":
        call.error(codes.INVALID_ARG, "`...` must appear on both sides", "pattern")
        return unknown_tensor(UnknownSource.ERROR)
    if kind == "reduce" and has_ell_left and not has_ell_right:
        ell = Shape(())
    return TensorV(_output(right, sizes, ell), t.dtype)


@rule("einops_rearrange")
def rearrange(call: Call) -> Value:
    return _run(call, "rearrange")


@rule("einops_reduce")
def reduce(call: Call) -> Value:
    return _run(call, "reduce")


@rule("einops_repeat")
def repeat(call: Call) -> Value:
    return _run(call, "repeat")


@rule("einops_pack")
def pack(call: Call) -> Value:
    """``pack(tensors, "b * d")``: the ``*`` dims of each tensor flattened and concatenated."""
    v = call.value("tensors")
    pat = call.value("pattern")
    if not isinstance(v, TupleV) or not isinstance(pat, StrV) or pat.value is None:
        return TupleV((unknown_tensor(), SeqV(TupleV(()), SeqKind.LIST)))
    axes = pat.value.split()
    if axes.count("*") != 1:
        call.error(codes.INVALID_ARG, f"pack pattern {pat.value!r} needs exactly one `*`", "pattern")
        return TupleV((unknown_tensor(UnknownSource.ERROR), SeqV(TupleV(()), SeqKind.LIST)))
    at = axes.index("*")
    before, after = at, len(axes) - at - 1
    total: Dim = 0
    outer: list[Dim] | None = None
    shapes: list[Value] = []
    for k, x in enumerate(v.items):
        if not isinstance(x, TensorV) or x.shape.rank is None:
            return TupleV((unknown_tensor(), SeqV(TupleV(()), SeqKind.LIST)))
        s = x.shape
        if s.rank is not None and s.rank < before + after:
            call.error(
                codes.RANK_MISMATCH, f"tensor {k} {render_shape(s)} has fewer dims than {pat.value!r} needs", "tensors"
            )
            return TupleV((unknown_tensor(UnknownSource.ERROR), SeqV(TupleV(()), SeqKind.LIST)))
        dims = list(s.dims)
        mid = dims[before : len(dims) - after]
        rest = dims[:before] + dims[len(dims) - after :]
        if outer is None:
            outer = rest
        else:
            for a, b in zip(outer, rest):
                if eq3(a, b, call.facts) is Truth.FALSE:
                    call.error(
                        codes.SHAPE_MISMATCH,
                        f"tensor {k} {render_shape(s)} differs from tensor 0 outside `*`",
                        "tensors",
                    )
                    return TupleV((unknown_tensor(UnknownSource.ERROR), SeqV(TupleV(()), SeqKind.LIST)))
        total = arith.add(total, arith.prod(mid))
        shapes.append(TupleV(tuple(_int_value(d) for d in mid), SeqKind.SIZE))
    assert outer is not None
    packed = TensorV(Shape((*outer[:before], total, *outer[before:])))
    return TupleV((packed, TupleV(tuple(shapes), SeqKind.LIST)))


def _int_value(d: Dim) -> Value:
    from ...model.values import IntV

    return IntV(d)


@rule("einops_einsum")
def einsum(call: Call) -> Value:
    """``einops.einsum(a, b, "b i d, b j d -> b i j")``: multi-letter axis names."""
    v = call.value("tensors_and_pattern")
    if not isinstance(v, TupleV) or not v.items or not isinstance(v.items[-1], StrV):
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    pattern = v.items[-1].value
    ops = v.items[:-1]
    if pattern is None or not all(isinstance(x, TensorV) for x in ops):
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    lhs, arrow, rhs = pattern.partition("->")
    if not arrow:
        call.error(codes.INVALID_ARG, f"einsum pattern {pattern!r} needs `->`", "tensors_and_pattern")
        return unknown_tensor(UnknownSource.ERROR)
    terms = [t.split() for t in lhs.split(",")]
    if len(terms) != len(ops):
        call.error(
            codes.INVALID_ARG,
            f"pattern {pattern!r} has {plural(len(terms), 'input')}, {plural(len(ops), 'tensor')} given",
            "tensors_and_pattern",
        )
        return unknown_tensor(UnknownSource.ERROR)
    sizes: dict[str, Dim] = {}
    for k, (term, x) in enumerate(zip(terms, ops)):
        assert isinstance(x, TensorV)
        s = x.shape
        if s.rank is None and "..." not in term:
            # One dim per axis: a run takes the length left (einops raises for any other).
            fixed = run_exact_rank(call, s, len(term), f"input {k}", "tensors_and_pattern")
            if fixed is None:
                return unknown_tensor(UnknownSource.ERROR)
            s = fixed
        if s.rank is None or "..." in term:
            return unknown_tensor(UnknownSource.UNSUPPORTED)
        if s.rank != len(term):
            call.error(
                codes.RANK_MISMATCH,
                f"input {k} is {render_shape(s)}, the pattern names {plural(len(term), 'axis', 'axes')}",
                "tensors_and_pattern",
            )
            return unknown_tensor(UnknownSource.ERROR)
        for a, d in zip(term, s.dims):
            if a in sizes and (sizes[a] == 1 or d == 1):  # size-1 axes broadcast
                sizes[a] = d if sizes[a] == 1 else sizes[a]
            elif a in sizes:
                verdict = call.check(
                    eq3(sizes[a], d, call.facts),
                    (sizes[a], d),
                    f"axis {a} is {render_dim(sizes[a])} in one input and {render_dim(d)} in input {k}",
                    rel=Rel.EQ,
                    at="tensors_and_pattern",
                )
                if verdict is Verdict.ERROR or verdict is Verdict.UNPROVEN:
                    return unknown_tensor(UnknownSource.ERROR)
            else:
                sizes[a] = d
    out = rhs.split()
    for a in out:
        if a not in sizes:
            call.error(codes.INVALID_ARG, f"output axis {a} is not in any input", "tensors_and_pattern")
            return unknown_tensor(UnknownSource.ERROR)
    return TensorV(Shape(tuple(sizes[a] for a in out)), ops[0].dtype if isinstance(ops[0], TensorV) else None)
