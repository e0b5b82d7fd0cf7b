"""Tensor attributes and size queries: shape, size(), dim(), numel(), T, mT, dtype."""

from __future__ import annotations

from ...lang.render import render_shape
from ...model import codes
from ...model.dims import Unknown, UnknownSource
from ...model.shape import Shape
from ...model.values import DTypeV, IntV, SeqKind, SeqV, TensorV, TupleV, UnknownV, Value, unknown_tensor
from ...unify import arith
from ..call import Call
from ..registry import rule
from .strides import contiguous
from .util import run_rank_among, run_rank_at_least, wrap_dim


def size_value(shape: Shape) -> Value:
    """A tensor's ``.shape``: a ``torch.Size`` of (possibly symbolic) ints."""
    if shape.rank is None:
        return SeqV(IntV(Unknown(UnknownSource.UNANNOTATED)), SeqKind.SIZE, sizes=shape)
    return TupleV(tuple(IntV(d) for d in shape.dims), SeqKind.SIZE)


@rule("shape")
def shape(call: Call) -> Value:
    t = call.tensor("self")
    if t is None:
        return UnknownV()
    return size_value(t.shape)


@rule("size")
def size(call: Call) -> Value:
    t = call.tensor("self")
    if t is None:
        return UnknownV()
    if call.is_none("dim"):
        return size_value(t.shape)
    i = wrap_dim(call, call.int("dim"), t.shape, "dim")
    if i is None:
        return IntV(Unknown(UnknownSource.UNANNOTATED))
    if t.shape.rank == 0:
        call.error(codes.DIM_RANGE, "a 0-dim tensor has no sizes", "dim")
        return IntV(Unknown(UnknownSource.ERROR))
    return IntV(t.shape.items[i])


@rule("ndim")
def ndim(call: Call) -> Value:
    t = call.tensor("self")
    rank = None if t is None else t.shape.rank
    return IntV(Unknown(UnknownSource.UNANNOTATED) if rank is None else rank)


@rule("numel")
def numel(call: Call) -> Value:
    t = call.tensor("self") or call.tensor("input")
    if t is None or t.shape.rank is None:
        return IntV(Unknown(UnknownSource.UNANNOTATED))
    return IntV(arith.prod(t.shape.dims))


@rule("dtype")
def dtype(call: Call) -> Value:
    t = call.tensor("self")
    return DTypeV(t.dtype if t else None)


@rule("reverse_dims")
def reverse_dims(call: Call) -> Value:
    """``x.T`` (all dims reversed)."""
    t = call.tensor("self")
    if t is not None and call.name == "H" and not run_rank_among(call, t.shape, (0, 2), "H", "self"):
        return unknown_tensor(UnknownSource.ERROR)
    if t is None or t.shape.rank is None:
        return unknown_tensor()
    if call.name == "H" and t.shape.rank not in (0, 2):
        call.error(codes.RANK_MISMATCH, f"H needs a matrix (2 dims), got {render_shape(t.shape)}", "self")
        return unknown_tensor(UnknownSource.ERROR)
    return TensorV(Shape(tuple(reversed(t.shape.dims))), t.dtype)


@rule("matrix_transpose")
def matrix_transpose(call: Call) -> Value:
    """``x.mT``: swap the last two dims."""
    t = call.tensor("self")
    if t is None:
        return unknown_tensor()
    s = t.shape
    if s.rank == 0:
        return t  # the identity on 0-d tensors (deprecated by torch)
    if s.rank is not None and s.rank < 2:
        call.error(codes.RANK_MISMATCH, f"mT needs at least 2 dims, got {render_shape(s)}", "self")
        return unknown_tensor(UnknownSource.ERROR)
    if s.rank is None and len(s.suffix) < 2:
        if s.min_rank > 0:  # a 0-d tensor is its own mT: only a run alone may have no dims
            run_rank_at_least(call, s, 2, call.name, "self")
        return TensorV(Shape.unknown(), t.dtype)
    items = list(s.items)
    items[-1], items[-2] = items[-2], items[-1]
    return TensorV(Shape(tuple(items)), t.dtype)


@rule("to")
def to(call: Call) -> Value:
    """``x.to(...)``, ``x.float()``, ``x.long()``...: same shape, maybe a new dtype."""
    t = call.tensor("self")
    if t is None:
        return unknown_tensor()
    dt = call.params.get("dtype")
    for name in ("dtype", "other"):
        if call.has(name):
            v = call.value(name)
            if isinstance(v, DTypeV):
                dt = v.name
            elif isinstance(v, TensorV):
                dt = v.dtype if name == "other" else dt
    if call.has("args"):
        v = call.value("args")
        if isinstance(v, TupleV):
            for item in v.items:
                if isinstance(item, DTypeV):
                    dt = item.name
                elif isinstance(item, TensorV):
                    dt = item.dtype
    # ``.contiguous()`` gives a contiguous tensor; the others make no claim on the layout.
    lay = contiguous(t.shape) if call.name == "contiguous" else None
    return TensorV(t.shape, dt or t.dtype, t.layout, t.names, lay)


@rule("removed_api")
def removed_api(call: Call) -> Value:
    """An API torch 2.13 no longer has: a warning, and the tensor passes through unchanged."""
    call.error(
        codes.REMOVED_API,
        f"{call.params.get('what', 'this API')} are not available in torch 2.13 (the call raises)",
        None,
        'describe dims with jaxtyping annotations (Float[Tensor, "batch channels"]) instead',
    )
    t = call.tensor("self")
    return t if t is not None else unknown_tensor(UnknownSource.UNSUPPORTED)
