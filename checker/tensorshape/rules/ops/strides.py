"""Memory layout: which ``view`` calls torch can make without a copy.

torch's ``view`` never copies: it needs strides for the new shape that address the same
elements, which exist only when each group of new dims spans a run of old dims that is
contiguous in memory (``computeStride`` in aten's ``TensorUtils.cpp``).  A fresh tensor is
contiguous; ``transpose``/``permute`` reorder its strides; a ``view`` that would need a copy
raises "view size is not compatible with input tensor's size and stride".  The strides are
tracked only where the ops define them (:class:`~tensorshape.model.values.Strides`); an op
that does not say drops them, and a tensor without them gets no claim at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ...lang.render import render_shape
from ...model import codes
from ...model.dims import Dim, Unknown
from ...model.shape import Shape
from ...model.values import Strides, TensorV
from ...unify import arith
from ...unify.arith import norm, to_sympy
from ...unify.compare import Truth, eq3, ne1
from ...unify.symbols import sp
from ..call import Call

__all__ = ["contiguous", "permuted", "reordered", "view_strides", "viewed"]


def contiguous(shape: Shape) -> Strides | None:
    """The strides of a contiguous tensor of ``shape`` (a size-0 or size-1 dim counts as 1)."""
    if shape.rank is None:
        return None
    out: list[Dim] = []
    step: Dim = 1
    for d in reversed(shape.dims):
        out.append(step)
        step = arith.mul(step, d) if not (type(d) is int and d <= 1) else step
    return Strides(tuple(reversed(out)), dense=True)


def permuted(t: TensorV, order: Sequence[int]) -> Strides | None:
    """The strides of ``t`` with its dims taken in ``order`` (``transpose``, ``permute``).

    A tensor whose layout is not known is taken as contiguous, and the result marked assumed.
    """
    base = t.strides or contiguous(t.shape)
    if base is None or len(base.values) != len(order):
        return None
    assumed = t.strides is None or t.strides.assumed
    return Strides(tuple(base.values[i] for i in order), assumed, base.dense and list(order) == sorted(order))


def _lt(a: Dim, b: Dim) -> Truth:
    """``a < b`` for two element counts; symbolic: when ``b / a`` is a product of sizes other than 1."""
    if type(a) is int and type(b) is int:
        return Truth.TRUE if a < b else Truth.FALSE
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return Truth.UNKNOWN
    if eq3(a, b) is Truth.TRUE:
        return Truth.FALSE
    ratio = sp().cancel(to_sympy(b) / to_sympy(a))
    num, den = ratio.as_numer_denom()
    if den == 1 and (num.is_Mul or num.is_Symbol):
        # A product of sizes (each at least 1) that is not 1 itself: torch's sizes here are positive.
        factors = [norm(f) for f in (num.args if num.is_Mul else (num,)) if not f.is_number]
        return Truth.TRUE if factors and all(ne1(f) is Truth.TRUE for f in factors) else Truth.UNKNOWN
    return Truth.UNKNOWN


def view_strides(
    old: Sequence[Dim], strides: Sequence[Dim], new: Sequence[Dim]
) -> tuple[Truth, tuple[Dim, ...] | None]:
    """Can a tensor of shape ``old`` and ``strides`` be viewed as ``new`` (same element count)?

    ``(TRUE, new strides)``, ``(FALSE, None)``, or ``(UNKNOWN, None)`` when a comparison of
    symbolic sizes cannot be decided.  The same walk as torch's: from the last dim, group the
    old dims into runs that are contiguous in memory, and match each run with new dims of the
    same number of elements.
    """
    if not old:
        return Truth.TRUE, tuple(1 for _ in new)
    numel = arith.prod(old)
    if type(numel) is int and numel == 0:
        return Truth.TRUE, contiguous(Shape(tuple(new))).values  # type: ignore[union-attr]
    out: list[Dim] = [0] * len(new)
    view_d = len(new) - 1
    chunk_base: Dim = strides[-1]
    tensor_numel: Dim = 1
    view_numel: Dim = 1
    for tensor_d in range(len(old) - 1, -1, -1):
        tensor_numel = arith.mul(tensor_numel, old[tensor_d])
        if tensor_d > 0:
            not_one = ne1(old[tensor_d - 1])
            jump = eq3(strides[tensor_d - 1], arith.mul(tensor_numel, chunk_base))
            if not_one is Truth.UNKNOWN or (not_one is Truth.TRUE and jump is Truth.UNKNOWN):
                return Truth.UNKNOWN, None
            ends = not_one is Truth.TRUE and jump is Truth.FALSE
        else:
            ends = True
        if not ends:
            continue
        while view_d >= 0:
            less = _lt(view_numel, tensor_numel)
            one = eq3(new[view_d], 1)
            if less is Truth.UNKNOWN or (less is Truth.FALSE and one is Truth.UNKNOWN):
                return Truth.UNKNOWN, None
            if less is Truth.FALSE and one is Truth.FALSE:
                break
            out[view_d] = arith.mul(view_numel, chunk_base)
            view_numel = arith.mul(view_numel, new[view_d])
            view_d -= 1
        same = eq3(view_numel, tensor_numel)
        if same is not Truth.TRUE:
            return (Truth.UNKNOWN if same is Truth.UNKNOWN else Truth.FALSE), None
        if tensor_d > 0:
            chunk_base = strides[tensor_d - 1]
            tensor_numel = 1
            view_numel = 1
    if view_d != -1:
        return Truth.FALSE, None
    return Truth.TRUE, tuple(out)


def reordered(t: TensorV | None, result: TensorV, order: Sequence[int]) -> TensorV:
    """``result`` (``t`` with its dims in ``order``) with the strides that reordering gives."""
    if t is None or t.shape.rank != len(order) or result.shape.rank != len(order):
        return result
    return replace(result, strides=permuted(t, order))


def viewed(call: Call, t: TensorV | None, result: TensorV, at: str) -> TensorV | None:
    """``t.view(...)`` or ``t.reshape(...)`` giving ``result``: check that a view needs no copy.

    Returns ``result`` with its strides, or ``None`` after reporting an error.  A view that needs
    a copy is an error when ``t``'s layout is known, an obligation when it was assumed (or a
    symbolic size leaves the question open); ``reshape`` copies instead, into a contiguous tensor.
    """
    lay = t.strides if t is not None else None
    if t is None or lay is None or t.shape.rank is None or result.shape.rank is None:
        return result
    if lay.dense:
        # Any view of a contiguous tensor works, and is contiguous.
        dense = contiguous(result.shape)
        return replace(result, strides=replace(dense, assumed=lay.assumed) if dense is not None else None)
    truth, new = view_strides(t.shape.dims, lay.values, result.shape.dims)
    if truth is Truth.TRUE and new is not None:
        return replace(result, strides=Strides(new, lay.assumed))
    if call.name != "view":
        return replace(result, strides=contiguous(result.shape)) if truth is Truth.FALSE and not lay.assumed else result
    message = (
        f"view of {render_shape(t.shape)} as {render_shape(result.shape)} needs a copy: its dims are not "
        "contiguous in memory (after a transpose or permute)"
    )
    if truth is Truth.FALSE and not lay.assumed:
        call.error(
            codes.RESHAPE,
            message + "; torch raises: view size is not compatible with input tensor's size and stride",
            at,
            "call .contiguous() before .view(), or use .reshape()",
        )
        return None
    call.oblige(message if truth is Truth.FALSE else message.replace("needs a copy", "may need a copy"), [])
    return result
