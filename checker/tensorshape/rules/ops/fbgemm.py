"""FBGEMM's jagged tensor operators (``torch.ops.fbgemm.*``).

FBGEMM keeps a jagged tensor as three pieces: ``values`` (the rows of every
sub-tensor stacked, ``[total, *inner]``), ``offsets`` (a list of 1-D tensors,
one per jagged dim; the first has ``B + 1`` entries) and, to make it dense,
``max_lengths`` (one per jagged dim).  The dense form is
``[len(offsets[0]) - 1, *max_lengths, *values.shape[1:]]``.  What the rules can
check statically: ranks, that the list of offsets and the max lengths agree in
length, that a dense operand has the batch size the offsets give and the inner
dims of the values.  How many rows ``values`` has is ``offsets[-1][-1]``, a
tensor value: unknown here.
"""

from __future__ import annotations

from ...lang.render import render_dim, render_shape
from ...model import codes
from ...model.constraints import Rel
from ...model.dims import Dim, Unknown, UnknownSource
from ...model.shape import Shape
from ...model.text import plural
from ...model.values import SeqKind, SeqV, TensorV, TupleV, Value, unknown_tensor
from ...unify import arith
from ...unify.compare import Verdict, eq3
from ..call import Call, as_dim
from ..registry import rule

__all__: list[str] = []

_ERR = unknown_tensor(UnknownSource.ERROR)


def _offsets(call: Call, name: str) -> list[TensorV] | None:
    """The offsets tensors of a list argument (``None``: not a list of known length)."""
    v = call.value(name)
    if isinstance(v, TensorV):  # the 2-D/1-D ops take one offsets tensor
        return [v]
    if isinstance(v, TupleV):
        return [x if isinstance(x, TensorV) else unknown_tensor() for x in v.items]
    return None


def _int_list(v: Value) -> tuple[Dim, ...] | None:
    """The ints of a list argument (``[max_len]`` with an ``int`` parameter included)."""
    if not isinstance(v, TupleV):
        return None
    out = [as_dim(item) for item in v.items]
    return None if any(d is None for d in out) else tuple(d for d in out if d is not None)


def _batch(call: Call, offsets: list[TensorV] | None, name: str) -> Dim | None:
    """``len(offsets[0]) - 1``; ``None`` after an error."""
    if not offsets:
        return Unknown(UnknownSource.UNSUPPORTED)
    for k, o in enumerate(offsets):
        if o.shape.rank is not None and o.shape.rank != 1:
            call.error(
                codes.RANK_MISMATCH,
                f"offsets {k} must be 1-D, got {render_shape(o.shape)}",
                name,
                "an offsets tensor holds the B+1 partition indices of one jagged dim",
            )
            return None
    first = offsets[0].shape
    return arith.sub(first.dims[0], 1) if first.rank == 1 else Unknown(UnknownSource.UNANNOTATED)


def _values(call: Call, name: str, rank: int | None = None) -> Shape | Value:
    """The shape of a values tensor; else what the rule returns: an error's result after a rank
    error, an unknown tensor when the argument is not a tensor."""
    s = call.shape(name)
    if s is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    if s.rank is not None and (s.rank < 1 or (rank is not None and s.rank != rank)):
        want = f"{rank}" if rank is not None else "at least 1"
        call.error(codes.RANK_MISMATCH, f"values must have {plural(want, 'dim')}, got {render_shape(s)}", name)
        return _ERR
    return s


def _same(call: Call, a: Dim, b: Dim, what: str, at: str) -> bool:
    verdict = call.check(
        eq3(a, b, call.facts),
        (a, b),
        lambda: f"{what}: {render_dim(a)} vs {render_dim(b)}",
        rel=Rel.EQ,
        at=at,
        code=codes.SHAPE_MISMATCH,
    )
    return verdict is not Verdict.ERROR


@rule("fbgemm_jagged_to_dense")
def jagged_to_dense(call: Call) -> Value:
    values = _values(call, "values")
    offsets = _offsets(call, "offsets")
    lengths = _int_list(call.value("max_lengths"))
    if not isinstance(values, Shape):
        return values
    batch = _batch(call, offsets, "offsets")
    if batch is None:
        return _ERR
    if offsets is not None and lengths is not None and len(offsets) != len(lengths):
        call.error(
            codes.INVALID_ARG,
            f"{len(offsets)} offsets tensors but {len(lengths)} max lengths",
            "max_lengths",
            "there is one offsets tensor and one max length per jagged dim",
        )
        return _ERR
    if lengths is None or values.rank is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    source = call.tensor("values")
    return TensorV(Shape((batch, *lengths, *values.dims[1:])), source.dtype if source is not None else None)


@rule("fbgemm_jagged_2d_to_dense")
def jagged_2d_to_dense(call: Call) -> Value:
    rank = int(call.params.get("values_rank", 2))
    values = _values(call, "values", rank)
    if not isinstance(values, Shape):
        return values
    batch = _batch(call, _offsets(call, "offsets"), "offsets")
    if batch is None:
        return _ERR
    length = call.int("max_sequence_length")
    if length is None:
        length = Unknown(UnknownSource.UNANNOTATED)
    inner = values.dims[1:] if values.rank is not None else (Unknown(UnknownSource.UNANNOTATED),) * (rank - 1)
    return TensorV(Shape((batch, length, *inner)))


@rule("fbgemm_dense_to_jagged")
def dense_to_jagged(call: Call) -> Value:
    dense = call.shape("dense")
    offsets = _offsets(call, "x_offsets")
    if dense is None or offsets is None or dense.rank is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    k = len(offsets)
    if dense.rank < k + 1:
        call.error(
            codes.RANK_MISMATCH,
            f"dense {render_shape(dense)} has {plural(dense.rank, 'dim')}; {plural(k, 'jagged dim')} need{'s' * (k == 1)} at least {k + 1}",
            "dense",
        )
        return _ERR
    batch = _batch(call, offsets, "x_offsets")
    if batch is None or not _same(call, dense.dims[0], batch, "dense batch vs len(x_offsets[0]) - 1", "dense"):
        return _ERR
    total = call.int("total_L") if not call.is_none("total_L") else None
    rows: Dim = total if total is not None else Unknown(UnknownSource.DATA_DEPENDENT)
    return TupleV((TensorV(Shape((rows, *dense.dims[k + 1 :]))), call.value("x_offsets")), SeqKind.TUPLE)


@rule("fbgemm_jagged_dense_elementwise")
def jagged_dense_elementwise(call: Call) -> Value:
    values = _values(call, "x_values")
    offsets = _offsets(call, "x_offsets")
    dense_names = ["y"] if call.has("y") else ["y_0", str(call.params.get("second", "y_1"))]
    denses = [call.shape(n) for n in dense_names]
    if not isinstance(values, Shape):
        return values
    if offsets is None or any(d is None or d.rank is None for d in denses) or values.rank is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    batch = _batch(call, offsets, "x_offsets")
    if batch is None:
        return _ERR
    k = len(offsets)
    for name, dense in zip(dense_names, denses):
        assert dense is not None and dense.rank is not None
        want = k + values.rank
        if dense.rank != want:
            call.error(
                codes.RANK_MISMATCH,
                f"{name} {render_shape(dense)} must have {plural(want, 'dim')}: the batch, {plural(k, 'jagged dim')} and the values' "
                f"{values.rank - 1} inner dims ({render_shape(values)})",
                name,
            )
            return _ERR
        if not _same(call, dense.dims[0], batch, f"{name} batch vs len(x_offsets[0]) - 1", name):
            return _ERR
        for i, (a, b) in enumerate(zip(dense.dims[k + 1 :], values.dims[1:])):
            if not _same(call, a, b, f"inner dim {i} of {name} vs x_values", name):
                return _ERR
    if call.params.get("output") == "dense":
        assert denses[0] is not None
        return TensorV(denses[0])
    return TupleV((TensorV(values), call.value("x_offsets")), SeqKind.TUPLE)


@rule("fbgemm_stacked_to_dense")
def stacked_to_dense(call: Call) -> Value:
    values = _values(call, "values")
    lengths = call.shape("lengths")
    keys = _int_list(call.value("max_lengths_per_key"))
    if not isinstance(values, Shape) or lengths is None or lengths.rank is None or values.rank is None:
        return SeqV(unknown_tensor(UnknownSource.UNSUPPORTED), SeqKind.LIST)
    if lengths.rank != 2:
        call.error(codes.RANK_MISMATCH, f"lengths must be [T, B], got {render_shape(lengths)}", "lengths")
        return SeqV(_ERR, SeqKind.LIST)
    if call.name.endswith("2d_to_dense") and values.rank != 2 or call.name.endswith("1d_to_dense") and values.rank != 1:
        call.error(codes.RANK_MISMATCH, f"values has the wrong rank: {render_shape(values)}", "values")
        return SeqV(_ERR, SeqKind.LIST)
    if keys is not None and not _same(
        call, lengths.dims[0], len(keys), "keys in lengths vs max_lengths_per_key", "lengths"
    ):
        return SeqV(_ERR, SeqKind.LIST)
    batch = lengths.dims[1]
    if keys is None:
        return SeqV(TensorV(Shape((batch, Unknown(UnknownSource.UNANNOTATED), *values.dims[1:]))), SeqKind.LIST)
    return TupleV(tuple(TensorV(Shape((batch, m, *values.dims[1:]))) for m in keys), SeqKind.LIST)


@rule("fbgemm_jagged_jagged_bmm")
def jagged_jagged_bmm(call: Call) -> Value:
    x, y = _values(call, "x_values", 2), _values(call, "y_values", 2)
    if not isinstance(x, Shape) or not isinstance(y, Shape) or x.rank is None or y.rank is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    batch = _batch(call, _offsets(call, "x_offsets"), "x_offsets")
    if batch is None or not _same(
        call, x.dims[0], y.dims[0], "rows of x_values vs y_values (one set of offsets)", "y_values"
    ):
        return _ERR
    return TensorV(Shape((batch, x.dims[1], y.dims[1])))


@rule("fbgemm_jagged_dense_bmm")
def jagged_dense_bmm(call: Call) -> Value:
    x, y = _values(call, "x_values", 2), call.shape("y")
    if not isinstance(x, Shape) or y is None or x.rank is None or y.rank is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    if y.rank != 3:
        call.error(codes.RANK_MISMATCH, f"y must be [B, K, N], got {render_shape(y)}", "y")
        return _ERR
    batch = _batch(call, _offsets(call, "x_offsets"), "x_offsets")
    if batch is None or not _same(call, y.dims[0], batch, "y batch vs len(x_offsets) - 1", "y"):
        return _ERR
    if not _same(call, x.dims[1], y.dims[1], "inner dims of x_values and y", "y"):
        return _ERR
    return TupleV((TensorV(Shape((x.dims[0], y.dims[2]))), call.value("x_offsets")), SeqKind.TUPLE)


@rule("fbgemm_jagged_softmax")
def jagged_softmax(call: Call) -> Value:
    values = _values(call, "values", 2)
    if not isinstance(values, Shape):
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    if _batch(call, _offsets(call, "x_offsets"), "x_offsets") is None:
        return _ERR
    return TupleV((TensorV(values), call.value("x_offsets")), SeqKind.TUPLE)
