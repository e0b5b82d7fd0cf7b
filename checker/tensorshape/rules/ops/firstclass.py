"""First-class dims (``functorch.dim``): making dims, binding them by indexing, ``order``.

``dims()`` makes dim objects; ``A[i, (j, k), ...]`` binds them to ``A``'s
positional dims (a tuple or list splits one dim, inferring at most one unsized
member); ``t.order(i, (j, k))`` turns bound dims back into leading positional
dims (a tuple flattens).  How every other op treats tensors with bound dims
(implicit batching) is :mod:`tensorshape.rules.levels`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...lang.render import render_dim
from ...model import codes
from ...model.constraints import Rel
from ...model.diagnostics import Span
from ...model.dims import Dim, Unknown, UnknownSource
from ...model.firstclass import SIZES, DimsV, DimV, LevelTensorV, new_dim
from ...model.shape import Shape
from ...model.values import (
    EllipsisV,
    IntV,
    NoneV,
    SeqKind,
    TensorV,
    TupleV,
    UnknownV,
    Value,
)
from ...unify import arith
from ...unify.compare import Truth, eq3
from ..call import Call, as_dim
from ..context import Arg, RuleContext
from ..registry import rule

__all__ = ["dims", "bind_size", "size_of", "getitem", "order", "union"]

#: Applies the ordinary (positional) ``__getitem__`` to a tensor and an index.
GetItem = Callable[[Arg, Arg], Value | None]


def size_of(d: DimV) -> Dim:
    s = SIZES.size(d)
    return Unknown(UnknownSource.UNSUPPORTED) if s is None else s


def union(*groups: Sequence[DimV]) -> tuple[DimV, ...]:
    """Dims in order of first appearance."""
    return tuple(dict.fromkeys(d for g in groups for d in g))


@rule("fc_dims")
def dims(call: Call) -> Value:
    """``dims()``, ``dims(3)``, ``dims(sizes=[3, None])``: one dim, a tuple, or as many as unpacked."""
    sizes_v = call.value("sizes")
    sizes: list[Dim | None] | None = None
    if isinstance(sizes_v, TupleV):
        sizes = [None if isinstance(s, NoneV) else as_dim(s) for s in sizes_v.items]
    n = call.int("n")
    count = n if n is not None else (len(sizes) if sizes is not None else None)
    if count is None:
        return DimsV(tuple(sizes or ()))
    if type(count) is not int or count < 1:
        return UnknownV(UnknownSource.UNSUPPORTED)
    made = tuple(new_dim(sizes[i] if sizes is not None and i < len(sizes) else None) for i in range(count))
    return made[0] if count == 1 else TupleV(made)


def bind_size(d: DimV, size: Dim, ctx: RuleContext, span: Span | None) -> None:
    """Bind ``d`` to ``size``; a dim already bound to a different size is a ``dim-rebind`` error."""
    known = SIZES.size(d)
    if known is None:
        SIZES.set(d, size)
        return
    if eq3(known, size, ctx.facts) is Truth.FALSE:
        ctx.report(
            codes.DIM_REBIND,
            f"Dim '{d.label}' previously bound to a dimension of size {render_dim(known)} "
            f"cannot bind to a dimension of size {render_dim(size)}",
            span,
            "a first-class dim has one size; use a different dim object for this axis",
        )


def _bind_pack(pack: Sequence[DimV], size: Dim, ctx: RuleContext, span: Span | None) -> None:
    """``A[(i, j)]``: split a dim of ``size`` into ``i * j``, inferring at most one unsized dim."""
    unsized = [d for d in pack if SIZES.size(d) is None]
    names = ", ".join(d.label for d in pack)
    if len(unsized) > 1:
        ctx.report(
            codes.UNSOLVABLE,
            f"cannot infer the sizes of two dims at once: {unsized[0].label} and {unsized[1].label}",
            span,
            f"set all but one of ({names}) first, e.g. `{unsized[0].label}.size = ...`",
        )
        return
    known = arith.prod(size_of(d) for d in pack if d not in unsized)
    if unsized:
        if isinstance(size, Unknown) or isinstance(known, Unknown):
            return
        divisible = ctx.facts.divisible(size, known)
        if divisible is None:
            ctx.require(
                Rel.DIVISIBLE, size, known, f"{render_dim(size)} must be divisible by {render_dim(known)} ({names})"
            )
        if divisible is False:
            ctx.report(
                codes.UNSOLVABLE,
                f"a dim of size {render_dim(size)} is not divisible by {render_dim(known)} "
                f"to infer {unsized[0].label} in ({names})",
                span,
                "the other dims of the pack must multiply to a divisor of the dim",
            )
            return
        SIZES.set(unsized[0], arith.floordiv(size, known))
        return
    if eq3(known, size, ctx.facts) is Truth.FALSE:
        ctx.report(
            codes.DIM_REBIND,
            f"dim pack ({names}) has size {render_dim(known)}, but binds to a dimension of size {render_dim(size)}",
            span,
            "the sizes of a dim pack must multiply to the size of the dim it splits",
        )


def _pack(v: Value) -> tuple[DimV, ...] | None:
    if isinstance(v, TupleV) and v.items and all(isinstance(i, DimV) for i in v.items):
        return v.items  # type: ignore[return-value]
    return None


def _consumes(v: Value) -> bool:
    return not isinstance(v, (NoneV, EllipsisV))


def _positions(items: Sequence[Value]) -> list[int | None]:
    """The positional dim each index item applies to (negative after ``...``)."""
    out: list[int | None] = []
    ell = next((k for k, v in enumerate(items) if isinstance(v, EllipsisV)), None)
    after = sum(1 for v in items[ell + 1 :] if _consumes(v)) if ell is not None else 0
    p = 0
    for k, v in enumerate(items):
        if not _consumes(v):
            out.append(None)
            continue
        if ell is not None and k > ell:
            out.append(-after)
            after -= 1
        else:
            out.append(p)
            p += 1
    return out


def getitem(receiver: Arg, index: Arg, ctx: RuleContext, span: Span | None, plain: GetItem) -> Value | None:
    """``A[i, (j, k), :, t[i]]`` on a tensor: bind dims and index with tensors that have dims."""
    recv = receiver.value
    base = recv.tensor if isinstance(recv, LevelTensorV) else recv
    if not isinstance(base, TensorV):
        return UnknownV(UnknownSource.UNSUPPORTED)
    iv = index.value
    items = list(iv.items) if isinstance(iv, TupleV) and iv.kind is SeqKind.TUPLE else [iv]
    placeholders: list[Value] = []
    binds: list[tuple[int | None, DimV | tuple[DimV, ...]]] = []
    levels: list[DimV] = list(recv.levels) if isinstance(recv, LevelTensorV) else []
    for pos, item in zip(_positions(items), items):
        pack = _pack(item)
        if isinstance(item, DimV) or pack is not None:
            binds.append((pos, item if isinstance(item, DimV) else pack))  # type: ignore[arg-type]
            placeholders.append(IntV(0))
        elif isinstance(item, LevelTensorV):
            levels.extend(item.levels)
            rank0 = item.tensor.shape.rank == 0
            placeholders.append(IntV(0) if rank0 else item.tensor)
        else:
            placeholders.append(item)
    for pos, target in binds:
        d = base.shape.dim(pos) if pos is not None else None
        size: Dim = Unknown(UnknownSource.UNSUPPORTED) if d is None else d
        if isinstance(target, DimV):
            bind_size(target, size, ctx, span)
            levels.append(target)
        else:
            _bind_pack(target, size, ctx, span)
            levels.extend(target)
    idx = placeholders[0] if len(items) == 1 and iv is items[0] else TupleV(tuple(placeholders), SeqKind.TUPLE)
    out = plain(Arg(base, receiver.span, receiver.text), Arg(idx, index.span, index.text))
    if not isinstance(out, TensorV):
        return out
    return with_levels(out, union(levels))


def with_levels(t: TensorV, levels: tuple[DimV, ...]) -> Value:
    return LevelTensorV(t, levels) if levels else t


def order(receiver: Arg, args: Sequence[Arg], ctx: RuleContext, span: Span | None) -> Value:
    """``t.order(i, (j, k))``: bound dims become leading positional dims; a tuple flattens."""
    recv = receiver.value
    if not isinstance(recv, LevelTensorV):
        return UnknownV(UnknownSource.UNSUPPORTED)
    lead: list[Dim] = []
    used: list[DimV] = []
    for a in args:
        group = (a.value,) if isinstance(a.value, DimV) else _pack(a.value)
        if group is None:
            return UnknownV(UnknownSource.UNSUPPORTED)
        for d in group:
            if d not in recv.levels or d in used:
                ctx.report(
                    codes.INVALID_ARG,
                    f"order: dim '{d.label}' is not a first-class dim of this tensor"
                    + (" (it is ordered twice)" if d in used else ""),
                    a.span or span,
                    "order names dims the tensor was indexed with; bind it first (`A[..., d]`)",
                )
                return UnknownV(UnknownSource.ERROR)
            used.append(d)
        lead.append(arith.prod(size_of(d) for d in group))
    rest = tuple(d for d in recv.levels if d not in used)
    t = recv.tensor
    return with_levels(t.with_shape(Shape(tuple(lead) + t.shape.items)), rest)
