"""Reductions with ``dim``/``keepdim``, and ops that return values and indices."""

from __future__ import annotations

from ...lang.render import render_dim, render_shape
from ...model import codes
from ...model.constraints import Rel
from ...model.dims import Unknown, UnknownSource
from ...model.shape import Item, Shape
from ...model.values import SeqKind, TensorV, TupleV, Value, unknown_tensor
from ...unify.compare import le3
from ..call import Call
from ..registry import rule
from .shape_ops import _self
from .util import replace, wrap_dim, wrap_dims


def reduced_shape(call: Call, shape: Shape, dim_param: str = "dim") -> Shape | None:
    """The shape after reducing over ``dim`` (all dims when it is None), honouring ``keepdim``."""
    keep = bool(call.bool("keepdim")) if call.has("keepdim") else False
    if not call.has(dim_param) or call.is_none(dim_param):
        if keep and shape.rank is not None:
            return Shape((1,) * shape.rank)
        return Shape(()) if not keep else Shape.unknown()
    dims = call.ints(dim_param)
    if dims is None:
        return Shape.unknown()
    if len(dims) == 0:
        # ``dim=[]`` reduces over everything (sum/mean), like None.
        return (
            Shape((1,) * shape.rank) if keep and shape.rank is not None else Shape(()) if not keep else Shape.unknown()
        )
    if shape.rank == 0:
        wrap_dims(call, dims, shape, dim_param)
        return shape
    idx = wrap_dims(call, dims, shape, dim_param)
    if idx is None:
        return Shape.unknown()
    items: list[Item] = list(shape.items)
    for i in sorted(idx, reverse=True):
        if keep:
            items[i] = 1
        else:
            del items[i]
    return Shape(tuple(items))


@rule("reduce")
def reduce(call: Call) -> Value:
    """sum, mean, prod, amax, std, var, logsumexp, norm, all, any, argmax..."""
    got = _self(call)
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    out = reduced_shape(call, shape)
    if out is None:
        return unknown_tensor(UnknownSource.ERROR)
    t = call.tensor(src)
    return TensorV(out, call.params.get("dtype") or (t.dtype if t else None))


@rule("reduce_indices")
def reduce_indices(call: Call) -> Value:
    """max/min/median/mode/kthvalue with a dim: ``(values, indices)``."""
    got = _self(call)
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    if call.has("k"):
        i = wrap_dim(call, call.int("dim"), shape, "dim")
        k = call.int("k")
        if i is not None and k is not None and shape.rank != 0:
            size = shape.items[i]
            call.check(
                le3(k, size, call.facts),
                (k, size),
                f"k={render_dim(k)} is larger than dim {i} of {render_shape(shape)}",
                rel=Rel.LE,
                at="k",
                code=codes.INDEX_RANGE,
            )
    out = reduced_shape(call, shape)
    if out is None:
        return unknown_tensor(UnknownSource.ERROR)
    t = call.tensor(src)
    return TupleV((TensorV(out, t.dtype if t else None), TensorV(out, "int64")), SeqKind.TUPLE)


@rule("topk")
def topk(call: Call) -> Value:
    got = _self(call)
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    t = call.tensor(src)
    i = wrap_dim(call, call.int("dim"), shape, "dim")
    k = call.int("k")
    if i is None or k is None:
        return TupleV((TensorV(Shape.unknown()), TensorV(Shape.unknown(), "int64")))
    if shape.rank == 0:
        out = shape
    else:
        size = shape.items[i]
        call.check(
            le3(k, size, call.facts),
            (k, size),
            f"k={render_dim(k)} is larger than dim {i} of {render_shape(shape)}",
            rel=Rel.LE,
            at="k",
            code=codes.INDEX_RANGE,
            hint="k must be at most the size of the dim",
        )
        out = replace(shape, i, (k,))
    return TupleV((TensorV(out, t.dtype if t else None), TensorV(out, "int64")), SeqKind.TUPLE)


@rule("multinomial")
def multinomial(call: Call) -> Value:
    """``torch.multinomial(probs, num_samples)``: indices ``[num_samples]`` of a 1-d ``probs``,
    ``[rows num_samples]`` of a 2-d one.  torch refuses another rank, ``num_samples`` of 0 or less,
    and (without replacement) more samples than categories."""
    got = _self(call)
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED, "int64")
    src, shape = got
    n = call.int("num_samples")
    if shape.rank is not None and shape.rank not in (1, 2):
        call.error(codes.RANK_MISMATCH, f"prob_dist must be 1 or 2 dim, got {render_shape(shape)}", src)
        return unknown_tensor(UnknownSource.ERROR)
    if type(n) is int and n <= 0:
        call.error(codes.INVALID_ARG, f"cannot sample num_samples={n} <= 0 samples", "num_samples")
        return unknown_tensor(UnknownSource.ERROR)
    replacement = call.bool("replacement") if call.has("replacement") else False
    if shape.rank is None:
        return unknown_tensor(UnknownSource.UNANNOTATED, "int64")
    categories = shape.items[-1]
    if n is not None and replacement is False:
        call.check(
            le3(n, categories, call.facts),
            (n, categories),
            f"cannot sample num_samples={render_dim(n)} > {render_dim(categories)} categories "
            f"({render_shape(shape)}) without replacement",
            rel=Rel.LE,
            at="num_samples",
            code=codes.INDEX_RANGE,
            hint="pass replacement=True, or sample at most as many as there are categories",
        )
    drawn = n if n is not None else Unknown(UnknownSource.UNANNOTATED)
    return TensorV(Shape((*shape.items[:-1], drawn)), "int64")


@rule("sort")
def sort(call: Call) -> Value:
    """sort / cummax / cummin: ``(values, indices)`` of the input's shape."""
    got = _self(call)
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    src, shape = got
    t = call.tensor(src)
    if call.has("dim") and not call.is_none("dim") and shape.rank != 0:
        wrap_dim(call, call.int("dim"), shape, "dim")
    return TupleV((TensorV(shape, t.dtype if t else None), TensorV(shape, "int64")), SeqKind.TUPLE)
