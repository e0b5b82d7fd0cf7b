"""Tensor creation: zeros/ones/randn/full/empty, arange, linspace, eye, tensor(...)."""

from __future__ import annotations

import math

from ...lang.render import render_dim, render_shape
from ...model import codes
from ...model.dims import Dim, Unknown, UnknownSource
from ...model.shape import Shape
from ...model.values import (
    BoolV,
    DTypeV,
    FloatV,
    IntV,
    MaybeIntV,
    SeqV,
    TensorV,
    TupleV,
    Value,
    unknown_tensor,
)
from ...unify import arith
from ...unify.compare import CONDITION_HINT, Truth, eq3, le3
from ..call import Call, is_dim, sizes_with_run
from ..registry import rule
from .strides import contiguous

_FLOAT = "float32"


def _dtype(call: Call, default: str | None) -> str | None:
    v = call.value("dtype") if call.has("dtype") else None
    if isinstance(v, DTypeV):
        return v.name
    return default


def _check_sizes(call: Call, sizes: tuple[Dim, ...], at: str) -> bool:
    for d in sizes:
        if type(d) is int and d < 0:
            call.error(codes.INVALID_ARG, f"negative dimension {d} in size [{', '.join(map(render_dim, sizes))}]", at)
            return False
    return True


@rule("create")
def create(call: Call) -> Value:
    """zeros/ones/empty/rand/randn/full/randint(..., size): the shape is the size argument."""
    name = next((n for n in ("size", "sizes", "shape") if call.has(n)), "size")
    sizes = call.ints(name)
    dtype = _dtype(call, call.params.get("dtype", _FLOAT))
    run = sizes_with_run(call.value(name)) if sizes is None else None
    if run is not None:
        # ``torch.zeros(*x.shape[:-1], d)``: the run is the other tensor's, the new tensor holds it.
        if not _check_sizes(call, tuple(d for d in run.items if is_dim(d)), name):
            return unknown_tensor(UnknownSource.ERROR)
        if call.params.get("fill") and dtype is None:
            dtype = _fill_dtype(call.value("fill_value"))
        return TensorV(run, dtype)
    if sizes is None:
        v = call.value(name)
        if isinstance(v, SeqV):
            return TensorV(Shape.unknown(UnknownSource.DATA_DEPENDENT), dtype)
        return unknown_tensor(UnknownSource.UNSUPPORTED, dtype)
    if not _check_sizes(call, sizes, name):
        return unknown_tensor(UnknownSource.ERROR)
    if call.params.get("fill") and dtype is None:
        dtype = _fill_dtype(call.value("fill_value"))
    # A new tensor is contiguous (the strides ``view`` checks against).
    return TensorV(Shape(sizes), dtype, strides=contiguous(Shape(sizes)))


def _fill_dtype(v: Value) -> str | None:
    if isinstance(v, BoolV):
        return "bool"
    if isinstance(v, IntV):
        return "int64"
    if isinstance(v, FloatV):
        return _FLOAT
    return None


def _number(v: Value) -> float | int | Dim | None:
    if isinstance(v, IntV):
        return v.value
    if isinstance(v, FloatV):
        return v.value
    if isinstance(v, BoolV) and v.value is not None:
        return int(v.value)
    if isinstance(v, TensorV) and v.shape.rank == 0:
        return Unknown(UnknownSource.DATA_DEPENDENT)
    return None


@rule("arange")
def arange(call: Call) -> Value:
    """``arange(end)``, ``arange(start, end, step)``: ``ceil((end - start) / step)`` elements."""
    start = _number(call.value("start")) if call.has("start") else 0
    end = _number(call.value("end"))
    step = _number(call.value("step")) if call.has("step") else 1
    floats = any(isinstance(call.value(n), FloatV) for n in ("start", "end", "step") if call.has(n))
    dtype = _dtype(call, _FLOAT if floats else "int64")
    if start is None or end is None or step is None:
        return TensorV(Shape((Unknown(UnknownSource.DATA_DEPENDENT),)), dtype)
    if step == 0:
        call.error(codes.INVALID_ARG, "step must be nonzero", "step")
        return unknown_tensor(UnknownSource.ERROR)
    if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (start, end, step)):
        n = math.ceil((end - start) / step)  # type: ignore[operator]
        if (end - start) * step < 0:  # type: ignore[operator]
            call.error(
                codes.INVALID_ARG,
                f"arange({start}, {end}, {step}) has upper bound and step of inconsistent sign",
                "end",
            )
            return unknown_tensor(UnknownSource.ERROR)
        return TensorV(Shape((n,)), dtype)
    if floats or any(isinstance(x, float) for x in (start, end, step)):
        return TensorV(Shape((Unknown(UnknownSource.DATA_DEPENDENT),)), dtype)
    s, e, st = start, end, step
    if st == 1:
        length = arith.sub(e, s)
    else:
        length = arith.ceildiv(arith.sub(e, s), st)
    return TensorV(Shape((length,)), dtype)


@rule("linspace")
def linspace(call: Call) -> Value:
    steps = call.int("steps")
    if steps is None:
        return TensorV(Shape((Unknown(UnknownSource.UNANNOTATED),)), _dtype(call, _FLOAT))
    if type(steps) is int and steps < 0:
        call.error(codes.INVALID_ARG, f"number of steps must be non-negative, got {steps}", "steps")
        return unknown_tensor(UnknownSource.ERROR)
    return TensorV(Shape((steps,)), _dtype(call, _FLOAT))


@rule("eye")
def eye(call: Call) -> Value:
    n = call.int("n")
    m = call.int("m")
    if n is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    if m is None:
        m = n
    for name, d in (("n", n), ("m", m)):
        if type(d) is int and d < 0:
            call.error(codes.INVALID_ARG, f"{name} must be greater or equal to 0, got {d}", name)
            return unknown_tensor(UnknownSource.ERROR)
    return TensorV(Shape((n, m)), _dtype(call, _FLOAT))


@rule("like")
def like(call: Call) -> Value:
    """``zeros_like(x)`` and friends: ``x``'s shape."""
    t = call.tensor("input") or call.tensor("self")
    if t is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    return TensorV(t.shape, _dtype(call, t.dtype))


_Finding = tuple[bool, str, str]  # (torch raises for every size, message, hint)

_RAGGED_HINT = "every row of a tensor literal needs the same length; use torch.nested for ragged data"


@rule("tensor")
def tensor(call: Call) -> Value:
    """``torch.tensor([[1, 2], [3, 4]])``: the shape of the nested literal.

    Torch takes the shape from the first item at every depth (``len(data)``, ``len(data[0])``, ...)
    and checks the other items only while it copies the elements: a literal with no element
    (``[[], [1.0]]`` is ``[2 0]``) is never checked.  So a ragged row or a tensor that is not one
    number is an error only where the literal surely has an element, and a warning naming the
    condition where it may be empty.
    """
    v = call.value("data")
    findings: list[_Finding] = []
    bad = _not_one_element(v) if isinstance(v, (TupleV, SeqV)) else None
    if bad is not None:
        findings.append(
            (
                True,
                f"an element of the sequence is a tensor of shape {render_shape(bad.shape)}, not one number",
                "torch.tensor reads a tensor inside a list as one number; use torch.stack to join tensors",
            )
        )
    shape, dtype = _literal_shape(call, v, findings)
    if findings:
        empty = _empty(shape, call)
        definite = [f for f in findings if f[0]]
        if definite and empty is Truth.FALSE:
            _, message, hint = definite[0]
            call.error(codes.INVALID_ARG, message, "data", hint)
            return unknown_tensor(UnknownSource.ERROR)
        if definite and empty is Truth.UNKNOWN and shape is not None and shape.rank is not None:
            # Torch raises for every size but the ones that leave the literal empty.
            _, message, _ = definite[0]
            sizes = " or ".join(f"`{render_dim(d)}`" for d in _maybe_zero(shape, call))
            call.error(codes.SIZE_CONDITION, f"{message}: torch raises unless {sizes} is 0", "data", CONDITION_HINT)
        if empty is not Truth.TRUE:
            call.oblige(findings[0][1], [])
    if shape is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED, _dtype(call, dtype))
    return TensorV(shape, _dtype(call, dtype))


def _maybe_zero(shape: Shape, call: Call) -> list[Dim]:
    """The sizes of ``shape`` that are not known to be at least 1."""
    return [d for d in shape.items if not (type(d) is int and d >= 1) and le3(1, d, call.facts) is not Truth.TRUE]


def _empty(shape: Shape | None, call: Call) -> Truth:
    """Does a literal of ``shape`` hold no element?"""
    if shape is None or shape.rank is None:
        return Truth.UNKNOWN
    if any(type(d) is int and d == 0 for d in shape.items):
        return Truth.TRUE
    return Truth.UNKNOWN if _maybe_zero(shape, call) else Truth.FALSE


def _not_one_element(v: Value) -> TensorV | None:
    """A tensor inside the sequence ``v`` that cannot hold exactly one element, if any.

    A literal size other than 1 makes one element impossible whatever the other sizes are.  A list
    of unknown length may be empty, so its items are not looked at.
    """
    if isinstance(v, TensorV):
        return v if any(type(d) is int and d != 1 for d in v.shape.items) else None
    if isinstance(v, TupleV):
        return next((bad for item in v.items if (bad := _not_one_element(item)) is not None), None)
    if isinstance(v, SeqV) and type(v.length) is int and v.length > 0:
        return _not_one_element(v.elem)
    return None


def _literal_shape(
    call: Call, v: Value, findings: list[_Finding], nested: bool = False
) -> tuple[Shape | None, str | None]:
    """The shape torch gives the literal ``v`` (from its first items), and its dtype.

    Items that do not match the first are put in ``findings`` (``tensor`` decides whether torch
    looks at them).
    """
    if isinstance(v, MaybeIntV):
        return None, None
    if isinstance(v, IntV):
        return Shape(()), "int64"
    if isinstance(v, FloatV):
        return Shape(()), _FLOAT
    if isinstance(v, BoolV):
        return Shape(()), "bool"
    if isinstance(v, TensorV):
        if not nested:
            return v.shape, v.dtype
        # Inside a sequence torch reads a tensor as one number (one element; see ``_not_one_element``).
        return Shape(()), v.dtype
    if isinstance(v, TupleV):
        if not v.items:
            return Shape((0,)), _FLOAT
        shapes = [_literal_shape(call, item, findings, True) for item in v.items]
        first = shapes[0][0]
        if first is None or first.rank is None:
            return None, None
        for k, (s, _) in enumerate(shapes[1:], 1):
            if s is not None and s.rank is not None:
                truths = [eq3(a, b, call.facts) for a, b in zip(s.items, first.items)]
                if s.rank != first.rank or Truth.FALSE in truths:
                    found = f"ragged nested sequence: element {k} has shape {render_shape(s)}, element 0 has {render_shape(first)}"
                    findings.append((True, found, _RAGGED_HINT))
                    continue
                if Truth.UNKNOWN not in truths:
                    continue
            # Items that may differ are no error (torch raises only when they do differ).
            findings.append(
                (False, f"element {k} of the nested sequence must have the shape of element 0", _RAGGED_HINT)
            )
        dtypes = {d for _, d in shapes if d is not None}
        dtype = _FLOAT if _FLOAT in dtypes else "int64" if "int64" in dtypes else next(iter(dtypes), None)
        return Shape((len(v.items), *first.items)), dtype
    if isinstance(v, SeqV):
        # A list built in a loop or a comprehension: its items all look like ``elem``, and
        # torch requires them to have one shape; its length, where not known, is a fresh size.
        inner, dtype = _literal_shape(call, v.elem, findings, True)
        if inner is None or inner.rank is None:
            return None, None
        length = v.length if v.length is not None and not isinstance(v.length, Unknown) else call.fresh("n")
        return Shape((length, *inner.items)), dtype
    return None, None
