"""Implicit batching over first-class dims: how every op sees tensors with bound dims.

An op applied to tensors with first-class dims (``functorch.dim``) works on
their positional dims, batched over the union of their bound dims (the seed's
rule 1).  A dim object used as a tensor is a 0-d int tensor batched over itself
(rule 3: ``i <= j``, ``a[i - 1]``).  A dim object passed where the op takes a
``dim`` (``t.sum(k)``, ``softmax(t, dim=k)``) selects that dim (rule 2): it is
moved to a leading positional dim, the op runs, and if it survives it is bound
again.  A few methods have rules of their own (:data:`SPECIAL`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..model import codes
from ..model.diagnostics import Span
from ..model.dims import UnknownSource
from ..model.firstclass import DimV, LevelTensorV
from ..model.shape import Shape
from ..model.values import IntV, SeqKind, TensorV, TupleV, UnknownV, Value
from .context import Arg, RuleContext
from .ops import firstclass
from .stubs import ParamKind, Table

__all__ = ["involved", "apply", "lower", "batched"]

#: Applies an op to arguments (the receiver first for methods) without first-class dims.
Apply = Callable[[Sequence[Arg], Mapping[str, Arg]], Value | None]

_DIM_PARAMS = ("dim", "dims")


def _has_levels(v: Value) -> bool:
    if isinstance(v, (DimV, LevelTensorV)):
        return True
    return isinstance(v, TupleV) and any(_has_levels(i) for i in v.items)


def involved(args: Sequence[Arg], kwargs: Mapping[str, Arg]) -> bool:
    """Does any argument hold a dim object or a tensor with bound dims?"""
    return any(_has_levels(a.value) for a in args) or any(_has_levels(a.value) for a in kwargs.values())


#: A method's own rule: (receiver and arguments, context, span, the plain op) -> result.
Special = Callable[[Sequence[Arg], RuleContext, "Span | None", Apply], "Value | None"]

#: Methods with rules of their own when first-class dims are involved.
SPECIAL: dict[str, Special] = {
    "order": lambda args, ctx, span, plain: firstclass.order(args[0], args[1:], ctx, span),
    "permute": lambda args, ctx, span, plain: firstclass.order(args[0], args[1:], ctx, span),
    "__getitem__": lambda args, ctx, span, plain: firstclass.getitem(
        args[0], args[1], ctx, span, lambda r, i: plain([r, i], {})
    ),
}


def apply(
    table: Table,
    quals: Sequence[str],
    args: Sequence[Arg],
    kwargs: Mapping[str, Arg],
    ctx: RuleContext,
    span: Span | None,
    plain: Apply,
) -> Value | None:
    """Apply op ``quals[0]`` (or the first of ``quals`` the table declares) over first-class dims."""
    special = SPECIAL.get(quals[0].rsplit(".", 1)[-1]) if quals[0].startswith("torch.Tensor.") else None
    if special is not None:
        return special(args, ctx, span, plain)
    selected = _selected_dims(table, quals, args, kwargs)
    if selected is not None:
        return _over_dims(selected, _Op(args, kwargs, ctx, span, plain))
    return _batched(args, kwargs, plain)


def _dims_of(v: Value) -> tuple[DimV, ...] | None:
    if isinstance(v, DimV):
        return (v,)
    if isinstance(v, TupleV) and v.items and all(isinstance(i, DimV) for i in v.items):
        return v.items  # type: ignore[return-value]
    return None


def _selected_dims(
    table: Table, quals: Sequence[str], args: Sequence[Arg], kwargs: Mapping[str, Arg]
) -> tuple[str | int, tuple[DimV, ...]] | None:
    """The argument (keyword or position) that passes dim objects as the op's ``dim``."""
    for name in _DIM_PARAMS:
        if name in kwargs:
            ds = _dims_of(kwargs[name].value)
            return (name, ds) if ds is not None else None
    defs = next((table.lookup(q) for q in quals if table.lookup(q)), [])
    for op in defs:  # overloads: the first with a `dim` at a position a dim object is passed at
        positional = [p for p in op.params if p.kind in (ParamKind.POSITIONAL_ONLY, ParamKind.POSITIONAL)]
        for k, p in enumerate(positional[1 : len(args)], 1):
            ds = _dims_of(args[k].value)
            if p.name in _DIM_PARAMS and ds is not None:
                return (k, ds)
    return None


@dataclass(frozen=True, slots=True)
class _Op:
    """One application of an op: its arguments, where to report, and the plain op."""

    args: Sequence[Arg]
    kwargs: Mapping[str, Arg]
    ctx: RuleContext
    span: Span | None
    plain: Apply


def _over_dims(selected: tuple[str | int, tuple[DimV, ...]], op: _Op) -> Value | None:
    """``t.sum((h, w))``: move the dims to the front, apply the op to those positions, rebind what is left."""
    where, dims = selected
    args, kwargs, ctx, span, plain = op.args, op.kwargs, op.ctx, op.span, op.plain
    recv = args[0].value
    if not isinstance(recv, LevelTensorV) or any(d not in recv.levels for d in dims):
        missing = next(d for d in dims if not isinstance(recv, LevelTensorV) or d not in recv.levels)
        ctx.report(
            codes.INVALID_ARG,
            f"dim '{missing.label}' is not a first-class dim of this tensor",
            span,
            "bind the dim by indexing the tensor with it before reducing over it",
        )
        return UnknownV(UnknownSource.ERROR)
    t = recv.tensor
    moved = t.with_shape(Shape(tuple(firstclass.size_of(d) for d in dims) + t.shape.items))
    rest = tuple(d for d in recv.levels if d not in dims)
    passed = args[where] if isinstance(where, int) else kwargs[where]
    index: Value = (
        IntV(0) if isinstance(passed.value, DimV) else TupleV(tuple(IntV(k) for k in range(len(dims))), SeqKind.TUPLE)
    )
    new_args = [Arg(firstclass.with_levels(moved, rest), args[0].span, args[0].text), *args[1:]]
    new_kwargs = dict(kwargs)
    if isinstance(where, int):
        new_args[where] = Arg(index, passed.span, passed.text)
    else:
        new_kwargs[where] = Arg(index, passed.span, passed.text)
    out = _batched(new_args, new_kwargs, plain)
    return _rebind(out, dims, t.shape.rank, recv.levels)


def _rebind(out: Value | None, dims: tuple[DimV, ...], rank: int | None, before: tuple[DimV, ...]) -> Value | None:
    """Dims that survive the op (``softmax``) are the result's leading positional dims: bind them again."""
    if isinstance(out, TupleV):
        return TupleV(tuple(_rebind(i, dims, rank, before) or UnknownV() for i in out.items), out.kind)
    t, levels = (out.tensor, out.levels) if isinstance(out, LevelTensorV) else (out, ())
    if not isinstance(t, TensorV) or rank is None or t.shape.rank != rank + len(dims):
        return out
    now = set(levels) | set(dims)
    kept = firstclass.union([d for d in before if d in now], levels)  # in the order they had
    return firstclass.with_levels(t.with_shape(Shape(t.shape.items[len(dims) :])), kept)


def _lower(v: Value, levels: list[DimV]) -> Value:
    if isinstance(v, LevelTensorV):
        levels.extend(v.levels)
        return v.tensor
    if isinstance(v, DimV):
        levels.append(v)
        return TensorV(Shape(()), "int64")
    if isinstance(v, TupleV):
        return TupleV(tuple(_lower(i, levels) for i in v.items), v.kind)
    return v


def _raise(v: Value | None, levels: tuple[DimV, ...]) -> Value | None:
    if isinstance(v, TensorV):
        return firstclass.with_levels(v, levels)
    if isinstance(v, TupleV) and any(isinstance(i, TensorV) for i in v.items):
        return TupleV(tuple(_raise(i, levels) or UnknownV() for i in v.items), v.kind)
    return v


def lower(args: Sequence[Arg], kwargs: Mapping[str, Arg]) -> tuple[list[Arg], dict[str, Arg], tuple[DimV, ...]]:
    """The arguments' positional parts, and the union of their first-class dims."""
    levels: list[DimV] = []
    low_args = [Arg(_lower(a.value, levels), a.span, a.text) for a in args]
    low_kwargs = {k: Arg(_lower(a.value, levels), a.span, a.text) for k, a in kwargs.items()}
    return low_args, low_kwargs, firstclass.union(levels)


def batched(v: Value | None, levels: tuple[DimV, ...]) -> Value | None:
    """A result computed from positional parts, batched over ``levels`` (rule 1)."""
    return _raise(v, levels)


def _batched(args: Sequence[Arg], kwargs: Mapping[str, Arg], plain: Apply) -> Value | None:
    """Rule 1: apply the op to the positional parts; the result is batched over all the dims."""
    low_args, low_kwargs, levels = lower(args, kwargs)
    return _raise(plain(low_args, low_kwargs), levels)
