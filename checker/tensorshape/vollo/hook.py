"""Apply the Vollo data-dimension rules to every op the engine applies (a post hook).

Every tensor value carries a :class:`~tensorshape.model.values.Layout`: a
compile-time constant (weights, buffers, tensors built from literals) or an
activation with its data dim.  After an op's shape rule has run, this hook
computes the result's layout from the operands' and reports what the Vollo
compiler would reject.  A layout that is not known (``None``) is never an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..model import codes
from ..model.dims import Dim
from ..model.values import EllipsisV, IntV, Layout, NoneV, SeqV, SliceV, TensorV, TupleV, Value
from ..rules.call import Call, as_dims
from ..unify import arith
from .transfer import MatmulSide, Violation, matmul, notation, reshape

__all__ = ["vollo_hook", "CONSTANT"]

CONSTANT = Layout(constant=True)

_CREATION = frozenset(
    """zeros ones empty full rand randn randint randperm arange linspace logspace eye tensor as_tensor
    from_numpy zeros_like ones_like empty_like full_like rand_like randn_like randint_like tril_indices
    triu_indices""".split()
)
_REDUCTIONS = frozenset({"reduce", "minmax", "var_mean", "median", "mode", "kthvalue", "logsumexp"})
_PRESERVE_RULES = frozenset({"same_shape", "dropout", "expand", "expand_as", "contiguous", "softmax"})


def vollo_hook(call: Call, result: Value) -> Value:
    if not call.ctx.options.vollo:
        return result
    try:
        return _apply(call, result)
    except (IndexError, TypeError, ValueError):  # a layout we cannot follow is unknown, never a crash
        return _with(result, None)


def _tensors(call: Call) -> list[tuple[str, TensorV]]:
    out = []
    for p in call.op.params:
        a = call.bound.get(p.name)
        if a is None:
            continue
        if isinstance(a.value, TensorV):
            out.append((p.name, a.value))
        elif isinstance(a.value, TupleV):
            out.extend((p.name, v) for v in a.value.items if isinstance(v, TensorV))
    return out


def _with(result: Value, layout: Layout | None) -> Value:
    if isinstance(result, TensorV):
        return replace(result, layout=layout)
    if isinstance(result, TupleV):
        return TupleV(tuple(_with(v, layout) for v in result.items), result.kind)
    return result


def _act(d: int | None) -> Layout:
    return Layout(False, d)


def _report(call: Call, v: Violation, at: str | None = None) -> None:
    call.error(v.code, v.message, at, v.hint)


def _apply(call: Call, result: Value) -> Value:
    name = call.name
    rule = call.op.rule
    module = call.module.qualname.rsplit(".", 1)[-1] if call.module is not None else None
    ins = _tensors(call)
    if module is None and not ins and name in _CREATION:
        return _with(result, CONSTANT)
    layouts = [t.layout for _, t in ins]
    if module is None and ins and all(lay is not None and lay.constant for lay in layouts):
        return _with(result, CONSTANT)
    if any(lay is None for lay in layouts) and module is None:
        return _with(result, None)
    out = result if isinstance(result, TensorV) else None
    out_rank = out.shape.rank if out is not None else None

    # -- modules --------------------------------------------------------------------
    if module is not None:
        return _module(call, module, ins, result)

    acts = [(n, t) for n, t in ins if t.layout is not None and not t.layout.constant]
    if not acts:
        return _with(result, None)
    src_name, src = acts[0]
    assert src.layout is not None
    d = src.layout.data_dim
    rank = src.shape.rank
    if d is None or rank is None:
        return _with(result, _act(None))

    if rule in ("matmul", "matmul_fixed", "linear"):
        return _matmul(call, ins, result, linear=rule == "linear")
    if "pointwise" in call.op.kinds or rule in _PRESERVE_RULES:
        if "pointwise" in call.op.kinds:
            return _with(result, _pointwise(call, acts, out_rank))
        return _with(result, _act(d))
    if rule == "getitem":
        return _with(result, _getitem(call, d, rank))
    if rule == "unsqueeze":
        i = _dim(call, "dim", rank + 1)
        return _with(result, _act(None if i is None else d + (1 if i <= d else 0)))
    if rule == "squeeze":
        return _with(result, _squeeze(call, src, d, rank))
    if rule in _REDUCTIONS:
        return _with(result, _reduce(call, d, rank))
    if rule == "transpose":
        a, b = _dim(call, "dim0", rank), _dim(call, "dim1", rank)
        if a is None or b is None:
            return _with(result, _act(None))
        return _with(result, _act(b if d == a else a if d == b else d))
    if rule == "t":
        return _with(result, _act(rank - 1 - d if rank == 2 else d))
    if rule == "permute":
        order = _int_list(call.ints("dims"), rank)
        if order is None:
            return _with(result, _act(None))
        return _with(result, _act(order.index(d) if d in order else None))
    if rule in ("view", "flatten", "unflatten", "reshape_as", "view_as"):
        if out is None or out.shape.rank is None:
            return _with(result, _act(None))
        got = reshape(src.shape.dims, d, out.shape.dims, call.ctx.facts)
        if isinstance(got, Violation):
            _report(call, got)
            return _with(result, _act(None))
        return _with(result, _act(got))
    if rule == "cat":
        return _with(result, _concat(call, acts, d, stack=False))
    if rule == "stack":
        return _with(result, _concat(call, acts, d, stack=True))
    if rule == "repeat" or rule == "tile":
        return _with(result, _act(d + (out_rank - rank) if out_rank is not None else None))
    if rule == "movedim":
        return _with(result, _act(None))
    if out_rank == rank:
        return _with(result, _act(d))
    return _with(result, _act(None))


def _int_list(raw: Sequence[Dim] | None, rank: int) -> list[int] | None:
    """Dim arguments as axes (``None`` when any is symbolic or out of range)."""
    if raw is None or rank <= 0:
        return None
    out = []
    for x in raw:
        if not isinstance(x, int) or not -rank <= x < rank:
            return None
        out.append(x % rank)
    return out


def _dim(call: Call, param: str, rank: int) -> int | None:
    i = call.int(param)
    if type(i) is not int or not -rank <= i < rank:
        return None
    return i % rank


def _pointwise(call: Call, acts: Sequence[tuple[str, TensorV]], out_rank: int | None) -> Layout:
    aligned: list[tuple[str, TensorV, int]] = []
    for n, t in acts:
        assert t.layout is not None
        if t.layout.data_dim is None or t.shape.rank is None:
            return _act(None)
        aligned.append((n, t, t.layout.data_dim - t.shape.rank))
    first = aligned[0]
    for n, t, r in aligned[1:]:
        if r != first[2]:
            a = notation(first[1].shape.rank or 0, (first[1].shape.rank or 0) + first[2])
            b = notation(t.shape.rank or 0, (t.shape.rank or 0) + r)
            call.error(
                codes.VOLLO_POINTWISE,
                f"{a} (*) {b}: shape and data dim must match",
                n,
                "transpose one operand so both have the data dim on the same axis",
            )
            return _act(None)
    return _act(None if out_rank is None else out_rank + first[2])


def _getitem(call: Call, d: int, rank: int) -> Layout:
    index = call.value("index")
    items: list[Value] = list(index.items) if isinstance(index, TupleV) else [index]
    if any(isinstance(v, (TensorV, SeqV)) or (isinstance(v, TupleV)) for v in items):
        return _act(None)
    used = sum(1 for v in items if not isinstance(v, (NoneV, EllipsisV)))
    expanded: list[Value] = []
    for v in items:
        if isinstance(v, EllipsisV):
            expanded.extend([SliceV(NoneV(), NoneV(), NoneV())] * (rank - used))
        else:
            expanded.append(v)
    axis = 0
    out_axis = 0
    for v in expanded:
        if isinstance(v, NoneV):
            out_axis += 1
            continue
        if axis == d:
            if isinstance(v, IntV):
                call.error(
                    codes.VOLLO_DATA_DIM_REMOVED,
                    f"indexing the data dim of {notation(rank, d)} with an integer removes it",
                    "index",
                    "slice a width-1 range instead (`x[..., i:i + 1]`): it keeps the data dim",
                )
                return _act(None)
            return _act(out_axis)
        if not isinstance(v, IntV):
            out_axis += 1
        axis += 1
    return _act(out_axis + (d - axis))


def _squeeze(call: Call, src: TensorV, d: int, rank: int) -> Layout:
    dims: list[int] | None
    if not call.has("dim") or call.is_none("dim"):
        dims = [i for i, x in enumerate(src.shape.dims) if x == 1] if src.shape.rank is not None else None
    else:
        wanted = _int_list(as_dims(call.value("dim")), rank)
        if wanted is None:
            return _act(None)
        dims = [i for i in wanted if src.shape.dims[i] == 1]
    if dims is None:
        return _act(None)
    if d in dims:
        call.error(
            codes.VOLLO_DATA_DIM_REMOVED,
            f"squeezing the data dim of {notation(rank, d)} removes it",
            "dim",
            "squeeze another axis, or keep the width-1 data dim",
        )
        return _act(None)
    return _act(d - sum(1 for i in dims if i < d))


def _reduce(call: Call, d: int, rank: int) -> Layout:
    keep = bool(call.bool("keepdim")) if call.has("keepdim") else False
    if not call.has("dim") or call.is_none("dim"):
        dims: list[int] = list(range(rank))
    else:
        got = _int_list(as_dims(call.value("dim")), rank)
        if got is None:
            return _act(None)
        dims = got
    if d in dims and not keep:
        call.error(
            codes.VOLLO_REDUCE,
            f"{notation(rank, d)}.{call.name}(dim={d}) reduces the data dim without keepdim",
            "dim",
            "pass keepdim=True: the reduction then keeps a width-1 data dim",
        )
        return _act(None)
    if keep:
        return _act(d)
    return _act(d - sum(1 for i in dims if i < d))


def _concat(call: Call, acts: Sequence[tuple[str, TensorV]], d: int, stack: bool) -> Layout:
    for _n, t in acts[1:]:
        assert t.layout is not None
        if t.layout.data_dim != d:
            call.error(
                codes.VOLLO_POINTWISE,
                f"{'stack' if stack else 'cat'}: tensors have different data dims "
                f"({notation(t.shape.rank or 0, d)} and {notation(t.shape.rank or 0, t.layout.data_dim)})",
                "tensors",
                "transpose the tensors so they share the data dim",
            )
            return _act(None)
    if not stack:
        return _act(d)
    rank = acts[0][1].shape.rank
    i = call.int("dim")
    if rank is None or type(i) is not int:
        return _act(None)
    i = i % (rank + 1)
    return _act(d + (1 if i <= d else 0))


def _side(t: TensorV) -> MatmulSide | None:
    rank = t.shape.rank
    if rank is None or t.layout is None:
        return None
    numel: Dim | None = arith.prod(t.shape.dims) if t.layout.constant else None
    return MatmulSide(rank, t.layout.constant, t.layout.data_dim, numel)


def _matmul(call: Call, ins: Sequence[tuple[str, TensorV]], result: Value, linear: bool) -> Value:
    if len(ins) < 2:
        return _with(result, None)
    (_, lt), (rn, rt) = ins[0], ins[1]
    if linear:
        # F.linear(x, W): x @ W.T with a constant W.
        left, right = _side(lt), _side(rt)
        if left is None or right is None:
            return _with(result, None)
        right = MatmulSide(
            right.rank, right.constant, None if right.data_dim is None else right.rank - 1 - right.data_dim, right.numel
        )
    else:
        left, right = _side(lt), _side(rt)
        if left is None or right is None:
            return _with(result, None)
    got = matmul(left, right, call.ctx.options.allow_dynamic_weights)
    if isinstance(got, Violation):
        _report(call, got, rn)
        return _with(result, _act(None))
    return _with(result, CONSTANT if left.constant and right.constant else _act(got))


def _module(call: Call, module: str, ins: Sequence[tuple[str, TensorV]], result: Value) -> Value:
    if not ins:
        return _with(result, None)
    _, x = ins[0]
    lay = x.layout
    if lay is None:
        return _with(result, None)
    if lay.constant:
        return _with(result, CONSTANT)
    d, rank = lay.data_dim, x.shape.rank
    if d is None or rank is None:
        return _with(result, _act(None))
    out_rank = result.shape.rank if isinstance(result, TensorV) else None
    if module == "Linear":
        if d != rank - 1:
            if call.ctx.options.allow_dynamic_weights:
                return _with(result, _act(d))
            call.error(
                codes.VOLLO_DYNAMIC_WEIGHTS,
                f"Linear on {notation(rank, d)}: the data dim is not the input's last axis, "
                "so this needs allow_dynamic_weights",
                None,
                "transpose the input so its data dim is last before the Linear, "
                "or enable dynamic weights (--allow-dynamic-weights)",
            )
            return _with(result, _act(None))
        return _with(result, _act(d))
    if module in ("LayerNorm", "RMSNorm"):
        shape = as_dims(call.value("normalized_shape"))
        n = len(shape) if shape is not None else 1
        if d < rank - n:
            call.error(
                codes.VOLLO_NORM,
                f"{module} over the last {n} axis(es) of {notation(rank, d)} does not normalise over the data dim",
                None,
                "transpose the input so the data dim is last before normalising",
            )
            return _with(result, _act(None))
        return _with(result, _act(d))
    if module == "Conv1d":
        if d != rank - 2:
            call.error(
                codes.VOLLO_CONV,
                f"Conv1d on {notation(rank, d)}: the data dim must be the channel axis ({rank - 2})",
                None,
                "transpose the input to [batch channels! length] before the convolution",
            )
            return _with(result, _act(None))
        return _with(result, _act(d))
    if out_rank == rank:
        return _with(result, _act(d))
    return _with(result, _act(None))
