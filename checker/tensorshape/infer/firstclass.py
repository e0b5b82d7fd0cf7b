"""The libcst front end's side of first-class dims (``functorch.dim``).

Dim objects take their variable's name (``i, j = dims(2)`` names them ``i`` and
``j``, as torch does by reading the bytecode); ``dims()`` without a count makes
as many as the assignment unpacks into; ``i.size`` reads and ``i.size = n``
binds a dim's size; ``t.dims`` lists a tensor's bound dims.
"""

from __future__ import annotations

from ..lang.render import render_dim, render_shape
from ..model.diagnostics import Span
from ..model.dims import Unknown, UnknownSource
from ..model.firstclass import SIZES, DimsV, DimV, LevelTensorV, new_dim
from ..model.values import BoolV, IntV, TensorV, TupleV, Value, int_value
from ..rules.context import RuleContext
from ..rules.ops.firstclass import bind_size

__all__ = ["TENSORLIKE", "firstclass_attr", "named", "unpack_dims", "set_attr", "render_levels"]

#: Values that ops treat as tensors: a dim object is a 0-d tensor of its indices.
TENSORLIKE = (TensorV, LevelTensorV, DimV)


def firstclass_attr(recv: Value, name: str) -> Value | None:
    """``i.size``, ``i.is_bound``, ``t.dims``; ``None`` for everything else."""
    if isinstance(recv, DimV):
        size = SIZES.size(recv)
        if name == "size":
            return IntV(Unknown(UnknownSource.UNSUPPORTED) if size is None else size)
        if name == "is_bound":
            return BoolV(size is not None)
        if name == "dims":
            return TupleV((recv,))
    if isinstance(recv, LevelTensorV) and name == "dims":
        return TupleV(recv.levels)
    return None


def named(value: Value, name: str) -> Value:
    """A value assigned to ``name``: an unnamed dim object takes the name."""
    if isinstance(value, DimsV):
        return new_dim(value.sizes[0] if value.sizes else None, name)
    if isinstance(value, DimV) and value.name is None:
        return DimV(value.ident, name)
    return value


def unpack_dims(value: DimsV, n: int) -> TupleV:
    """``a, b, c = dims()``: three fresh dims."""
    sizes = value.sizes + (None,) * n
    return TupleV(tuple(new_dim(sizes[k]) for k in range(n)))


def set_attr(recv: Value, name: str, value: Value, ctx: RuleContext, span: Span | None) -> bool:
    """``i.size = 5``: bind a dim object's size; ``False`` when ``recv`` is not a dim object."""
    if not isinstance(recv, DimV) or name != "size":
        return False
    size = int_value(value)
    if size is not None:
        bind_size(recv, size, ctx, span)
    return True


def render_levels(v: LevelTensorV | DimV) -> str:
    """``[c] with dims (i=3, k=n)``: the positional shape and the bound dims' sizes."""
    if isinstance(v, DimV):
        return f"dim {_level(v)}"
    return f"{render_shape(v.tensor.shape)} with dims ({', '.join(_level(d) for d in v.levels)})"


def _level(d: DimV) -> str:
    size = SIZES.size(d)
    return f"{d.label}={'?' if size is None else render_dim(size)}"
