"""Jagged tensors (``torch.nested`` with ``layout=torch.jagged``): one ragged dim at position 1.

A jagged dim is a rigid symbol of its own (``j1``, ``j2``...), one per
construction: the offsets' identity.  Two jagged tensors meet in an
elementwise op only if they share it (torch: "cannot call binary pointwise
function ... (2, j1, 5) and (2, j2, 5)"); a different symbol is a
``symbolic-mismatch`` error.  What is known about the rows (their lengths, when
the tensors were literal) gives ``values()`` and ``to_padded_tensor()`` exact
sizes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from ...lang.render import render_shape
from ...model import codes
from ...model.dims import Dim, Unknown, UnknownSource
from ...model.shape import Shape
from ...model.values import SeqV, TensorV, TupleV, Value, unknown_tensor
from ...unify import arith
from ...unify.compare import Truth, eq3
from ...unify.symbols import rigid
from ..call import Call, as_dims
from ..registry import rule

__all__ = ["JaggedInfo", "jagged_info", "declare_jagged"]

_COUNTER = itertools.count(1)


@dataclass(frozen=True, slots=True)
class JaggedInfo:
    batch: Dim
    #: Row lengths when known.
    lengths: tuple[Dim, ...] | None


_INFO: dict[str, JaggedInfo] = {}
#: Symbols standing for a function of an annotated ragged dim's row lengths: name -> (``max``|``sum``, dim name).
DERIVED: dict[str, tuple[str, str]] = {}


def _derived(kind: str, base: Dim) -> Dim:
    """``max_n`` / ``total_n``: the longest row / all rows of the ragged dim ``n``."""
    bname = str(base)
    name = f"{'max' if kind == 'max' else 'total'}_{bname}"
    DERIVED[name] = (kind, bname)
    return rigid(name)


def start_file() -> None:
    """Number the jagged dims made by the next file's analysis from 1 again, so a file's results
    (``[2 j1 5]``) do not depend on what the same process analysed before (the CLI's workers, the
    mypy plugin's worker)."""
    global _COUNTER
    _COUNTER = itertools.count(1)


def _fresh(batch: Dim, lengths: tuple[Dim, ...] | None) -> Dim:
    name = f"j{next(_COUNTER)}"
    _INFO[name] = JaggedInfo(batch, lengths)
    return rigid(name)


def declare_jagged(name: str) -> None:
    """An annotation's ``jagged=n``: ``n`` is a ragged dim (row lengths unknown)."""
    _INFO.setdefault(name, JaggedInfo(Unknown(UnknownSource.ANNOTATED), None))


def jagged_info(d: Dim) -> JaggedInfo | None:
    name = getattr(d, "name", None)
    return _INFO.get(name) if isinstance(name, str) else None


def _ragged(call: Call, name: str) -> tuple[TensorV, Dim, JaggedInfo] | None:
    """The jagged tensor argument ``name``, its ragged dim and what is known of its rows."""
    t = call.tensor(name)
    s = t.shape if t is not None else None
    if t is None or s is None or s.rank is None or s.rank < 2:
        return None
    info = jagged_info(s.dims[1])
    return (t, s.dims[1], info) if info is not None else None


@rule("nested_tensor")
def nested_tensor(call: Call) -> Value:
    v = call.value("tensor_list")
    if isinstance(v, SeqV) or not isinstance(v, TupleV):
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    items = [x for x in v.items if isinstance(x, TensorV)]
    if len(items) != len(v.items) or not items or any(x.shape.rank is None for x in items):
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    rank = items[0].shape.rank
    if rank == 0:
        call.error(codes.RANK_MISMATCH, "the components of a jagged nested tensor need at least 1 dim", "tensor_list")
        return unknown_tensor(UnknownSource.ERROR)
    for k, x in enumerate(items[1:], 1):
        a, b = items[0].shape, x.shape
        if a.rank != b.rank or any(eq3(p, q, call.facts) is Truth.FALSE for p, q in zip(a.dims[1:], b.dims[1:])):
            call.error(
                codes.SHAPE_MISMATCH,
                f"component {k} {render_shape(b)} differs from component 0 {render_shape(a)} outside the ragged dim "
                "(the jagged layout allows one ragged dim)",
                "tensor_list",
            )
            return unknown_tensor(UnknownSource.ERROR)
    lengths = tuple(x.shape.dims[0] for x in items)
    rest = items[0].shape.dims[1:]
    j = _fresh(len(items), lengths)
    return TensorV(Shape((len(items), j, *rest)), items[0].dtype)


@rule("nested_from_jagged")
def nested_from_jagged(call: Call) -> Value:
    values, offsets = call.shape("values"), call.shape("offsets")
    if values is None or values.rank is None or values.rank < 1:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    batch: Dim = Unknown(UnknownSource.DATA_DEPENDENT)
    if offsets is not None and offsets.rank == 1:
        batch = arith.sub(offsets.dims[0], 1)
    j = _fresh(batch, None)
    return TensorV(Shape((batch, j, *values.dims[1:])), (call.tensor("values") or unknown_tensor()).dtype)


@rule("jagged_values")
def values(call: Call) -> Value:
    got = _ragged(call, "self")
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    t, j, info = got
    total: Dim = arith.dsum(info.lengths) if info.lengths is not None else _derived("sum", j)
    return TensorV(Shape((total, *t.shape.dims[2:])), t.dtype)


@rule("jagged_offsets")
def offsets(call: Call) -> Value:
    got = _ragged(call, "self")
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    return TensorV(Shape((arith.add(got[0].shape.dims[0], 1),)), "int64")


@rule("to_padded")
def to_padded(call: Call) -> Value:
    got = _ragged(call, "input" if call.has("input") else "self")
    if got is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    t, j, info = got
    size = as_dims(call.value("output_size")) if call.has("output_size") and not call.is_none("output_size") else None
    if size is not None:
        return TensorV(Shape(tuple(size)), t.dtype)
    longest: Dim = arith.dmax(*info.lengths) if info.lengths else _derived("max", j)
    return TensorV(Shape((t.shape.dims[0], longest, *t.shape.dims[2:])), t.dtype)
