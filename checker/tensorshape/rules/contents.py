"""The elements of small tensors computed from constants (issue 22: RegNet's stage widths).

Some models compute their layer widths with tensor arithmetic on constants and read them back as
Python ints: torchvision's ``BlockParams.from_init_params`` takes ``torch.arange(depth) * w_a +
w_0``, a ``log``, a ``round`` and ``.int().tolist()``.  Without the values every width after it is
unknown.  This table computes such elements the way torch does on the CPU:

- **types** follow torch's promotion (dimensioned tensors, then zero-dim tensors, then Python
  scalars, each class counting only when its category is higher; a float scalar with an int
  tensor gives ``float32``); ``/`` of ints is ``float32``;
- **float32** arithmetic is emulated exactly: each operand and result is rounded to the nearest
  ``float32`` (torch rounds a Python scalar to ``float32`` before a ``float32`` op, and its
  ``+ - * /`` and ``sqrt`` are correctly rounded);
- **transcendental functions** (``log``, ``exp``, ``pow`` of floats) are computed correctly
  rounded here, and torch's own kernels are within an ulp or so of that: the result is marked
  ``inexact``, and an int read from an inexact element (``round``, ``floor``, ``ceil``, ``trunc``,
  ``int()``, ``.int()``) is given only when the element is far (relative ``1e-4``) from the boundary
  where an ulp could change it; otherwise the contents are dropped (the shape stays, the values are
  unknown) rather than risk a wrong size.

Only tensors of at most :data:`MAX_ELEMENTS` elements with int dims carry contents; an op this
table does not have, or an operand without contents, gives none (the shape rule's result stands).
The table is pure: the interpreter decides where contents may be trusted (``infer/contents.py``).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Mapping, Sequence

from ..model.values import BoolV, Contents, DTypeV, FloatV, IntV, SeqKind, TensorV, TupleV, Value

__all__ = ["MAX_ELEMENTS", "OPERATORS", "applied", "created", "python_values"]

#: Tensors with more elements than this carry no contents.
MAX_ELEMENTS = 64

Number = int | float | bool

#: Python operators, as the functions of the table.
OPERATORS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "//": "floor_divide", "%": "remainder", "**": "pow"}

_CATEGORY = {"bool": 0, "int32": 1, "int64": 1, "float32": 2, "float64": 2}
_WIDTH = {"bool": 1, "int32": 32, "int64": 64, "float32": 32, "float64": 64}
_INT_RANGE = {"int32": 2**31, "int64": 2**63}
_DEFAULT = {0: "bool", 1: "int64", 2: "float32"}
#: How close (relative) to a rounding boundary an inexact element may be and still be rounded.
_GUARD = 1e-4


def _f32(x: float) -> float:
    return float(struct.unpack("f", struct.pack("f", x))[0])


def _store(x: Number, dtype: str) -> Number | None:
    """``x`` as an element of ``dtype``; ``None`` when torch's result would not be that value
    (an int out of range, a float that is not finite)."""
    if dtype == "bool":
        return bool(x)
    if dtype in _INT_RANGE:
        if isinstance(x, float):
            return None
        n = int(x)
        return n if -_INT_RANGE[dtype] <= n < _INT_RANGE[dtype] else None
    f = float(x)
    if dtype == "float32":
        try:
            f = _f32(f)
        except OverflowError:
            return None
    return f if math.isfinite(f) else None


# -- operands --------------------------------------------------------------------------------------


class _Operand:
    """An operand's elements and where it ranks in torch's type promotion."""

    __slots__ = ("values", "dtype", "kind", "inexact")

    def __init__(self, values: tuple[Number, ...], dtype: str, kind: int, inexact: bool = False) -> None:
        self.values = values
        self.dtype = dtype
        #: 0: a dimensioned tensor, 1: a zero-dim tensor, 2: a Python scalar.
        self.kind = kind
        self.inexact = inexact


def _operand(v: Value) -> _Operand | None:
    if isinstance(v, TensorV):
        c = v.contents
        if c is None:
            return None
        return _Operand(c.values, c.dtype, 1 if v.shape.rank == 0 else 0, c.inexact)
    if isinstance(v, BoolV) and v.value is not None:
        return _Operand((v.value,), "bool", 2)
    if isinstance(v, IntV) and type(v.value) is int:
        return _Operand((v.value,), "int64", 2)
    if isinstance(v, FloatV) and v.value is not None:
        return _Operand((v.value,), "float64", 2)
    return None


def _promote(ops: Sequence[_Operand]) -> str:
    """torch's result type: the dimensioned tensors' type, unless the zero-dim tensors are of a
    higher category (then theirs), unless the scalars are higher still (then the default type of
    their category)."""
    result: str | None = None
    for kind in (0, 1, 2):
        group = [o.dtype for o in ops if o.kind == kind]
        if not group:
            continue
        best = max(group, key=lambda d: (_CATEGORY[d], _WIDTH[d]))
        if result is None:
            result = best if kind < 2 else _DEFAULT[_CATEGORY[best]]
        elif _CATEGORY[best] > _CATEGORY[result]:
            result = best if kind < 2 else _DEFAULT[_CATEGORY[best]]
    assert result is not None
    return result


def _numel(t: TensorV) -> int | None:
    if t.shape.rank is None:
        return None
    n = 1
    for d in t.shape.dims:
        if type(d) is not int:
            return None
        n *= d
    return n


# -- the table ---------------------------------------------------------------------------------------


def _trunc_int(x: float, inexact: bool) -> int | None:
    if not math.isfinite(x):
        return None
    if inexact and abs(x - round(x)) < _GUARD * max(1.0, abs(x)) and x != round(x):
        return None  # an ulp from torch's value could put it on the other side of an int
    return math.trunc(x)


def _rounded(fn: Callable[[float], float], boundary: Callable[[float], float]) -> Callable[[float, bool], float | None]:
    def go(x: float, inexact: bool) -> float | None:
        if inexact and abs(x - boundary(x)) < _GUARD * max(1.0, abs(x)):
            return None
        return float(fn(x))

    return go


def _half(x: float) -> float:
    return math.floor(x) + 0.5


def _nearest(x: float) -> float:
    return float(round(x))


#: Rounding functions: the value, and the boundary an ulp must not cross (``round`` rounds half to
#: even, as torch's ``round`` and Python's do).
_ROUNDING: dict[str, Callable[[float, bool], float | None]] = {
    "round": _rounded(round, _half),
    "floor": _rounded(math.floor, _nearest),
    "ceil": _rounded(math.ceil, _nearest),
    "trunc": _rounded(math.trunc, _nearest),
}

#: Float functions torch computes within an ulp or so (``inexact``), and the exact ones.
_FLOAT_FUNCTIONS: dict[str, tuple[Callable[[float], float], bool]] = {
    "log": (math.log, True),
    "log2": (math.log2, True),
    "log10": (math.log10, True),
    "exp": (math.exp, True),
    "sqrt": (math.sqrt, False),
}

_CASTS = {"int": "int32", "long": "int64", "float": "float32", "double": "float64", "bool": "bool"}
_DTYPE_NAMES = {
    "int32": "int32",
    "int": "int32",
    "int64": "int64",
    "long": "int64",
    "float32": "float32",
    "float": "float32",
    "float64": "float64",
    "double": "float64",
    "bool": "bool",
}


def _cast(values: tuple[Number, ...], source: str, inexact: bool, dtype: str) -> Contents | None:
    out: list[Number] = []
    for x in values:
        if dtype in _INT_RANGE and isinstance(x, float):
            n = _trunc_int(x, inexact)
            if n is None:
                return None
            x = n
        stored = _store(x, dtype)
        if stored is None:
            return None
        out.append(stored)
    return Contents(tuple(out), dtype, inexact and _CATEGORY[dtype] == 2)


def _pow(a: float, b: float) -> float | None:
    try:
        return math.pow(a, b)
    except (OverflowError, ValueError):
        return None


#: Element-wise functions of floats (``//`` and ``%`` of floats are torch's own formulas: not
#: followed) and of ints (``pow`` of a non-negative exponent up to 64).
_FLOAT_BINARY: dict[str, Callable[[float, float], float | None]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b if b else None,
    "pow": _pow,
}
_INT_BINARY: dict[str, Callable[[int, int], int | None]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "floor_divide": lambda a, b: a // b if b else None,
    "remainder": lambda a, b: a % b if b else None,
    "pow": lambda a, b: a**b if 0 <= b <= 64 else None,
}


def _binary(name: str, a: Number, b: Number, dtype: str) -> Number | None:
    if _CATEGORY[dtype] == 2:
        fa, fb = float(a), float(b)
        if dtype == "float32":
            fa, fb = _f32(fa), _f32(fb)
        ffn = _FLOAT_BINARY.get(name)
        return None if ffn is None else ffn(fa, fb)
    ifn = _INT_BINARY.get(name)
    return None if ifn is None else ifn(int(a), int(b))


def _elementwise(name: str, ops: Sequence[_Operand], n: int) -> Contents | None:
    for o in ops:
        if len(o.values) not in (1, n):
            return None
    dtype = _promote(ops)
    if name in ("div", "true_divide", "divide"):
        name = "div"
        if _CATEGORY[dtype] < 2:
            dtype = "float32"  # ``/`` of ints is a float of the default type
    if name in ("add", "sub", "mul", "pow") and dtype == "bool":
        return None
    inexact = any(o.inexact for o in ops) or (name == "pow" and _CATEGORY[dtype] == 2)
    out: list[Number] = []
    for i in range(n):
        a, b = (o.values[i if len(o.values) == n else 0] for o in ops)
        r = _binary(name, a, b, dtype)
        stored = None if r is None else _store(r, dtype)
        if stored is None:
            return None
        out.append(stored)
    return Contents(tuple(out), dtype, inexact)


def _unary(name: str, o: _Operand) -> Contents | None:
    if name in _ROUNDING:
        if _CATEGORY[o.dtype] < 2:
            return Contents(o.values, o.dtype)
        rounded = [_ROUNDING[name](float(x), o.inexact) for x in o.values]
        if any(r is None for r in rounded):
            return None
        return Contents(tuple(float(r) for r in rounded if r is not None), o.dtype)  # (exact again)
    if name in _FLOAT_FUNCTIONS:
        fn, inexact = _FLOAT_FUNCTIONS[name]
        dtype = o.dtype if _CATEGORY[o.dtype] == 2 else "float32"
        out: list[Number] = []
        for x in o.values:
            try:
                r = fn(float(x))
            except (ValueError, OverflowError):
                return None
            stored = _store(r, dtype)
            if stored is None:
                return None
            out.append(stored)
        return Contents(tuple(out), dtype, o.inexact or inexact)
    if name in ("neg", "abs"):
        if o.dtype == "bool":
            return None
        fn2: Callable[[Number], Number] = (lambda x: -x) if name == "neg" else abs
        values = [_store(fn2(x), o.dtype) for x in o.values]
        if any(v is None for v in values):
            return None
        return Contents(tuple(v for v in values if v is not None), o.dtype, o.inexact)
    if name in _CASTS:
        return _cast(o.values, o.dtype, o.inexact, _CASTS[name])
    return None


def _reduction(name: str, o: _Operand) -> Contents | None:
    """``diff``/``cumsum`` of a 1-D tensor, ``sum``/``prod``/``max``/``min`` of all elements: exact
    for ints; for floats torch's order of summation is its own, so the result is ``inexact``."""
    dtype = "int64" if _CATEGORY[o.dtype] < 2 and name in ("sum", "prod", "cumsum") else o.dtype
    floats = _CATEGORY[dtype] == 2
    values: list[Number]
    if name == "diff":
        if o.dtype == "bool":
            return None
        diffs = [_binary("sub", b, a, dtype) for a, b in zip(o.values, o.values[1:])]
        if any(d is None for d in diffs):
            return None
        values = [d for d in diffs if d is not None]
    elif name == "cumsum":
        values = []
        acc: Number = 0
        for x in o.values:
            acc = acc + x
            values.append(acc)
    elif name in ("sum", "prod"):
        acc2: Number = 0 if name == "sum" else 1
        for x in o.values:
            acc2 = acc2 + x if name == "sum" else acc2 * x
        values = [acc2]
    elif name in ("max", "min") and o.values:
        values = [max(o.values) if name == "max" else min(o.values)]
    else:
        return None
    stored = [_store(v, dtype) for v in values]
    if any(s is None for s in stored):
        return None
    return Contents(
        tuple(s for s in stored if s is not None), dtype, o.inexact or (floats and name != "diff" and len(o.values) > 1)
    )


def applied(name: str, operands: Sequence[Value], kwargs: Mapping[str, Value], result: Value) -> Contents | None:
    """The contents of ``result``, the value of ``torch.<name>(*operands)`` (or of the method
    ``name`` with the receiver first, or of an operator through :data:`OPERATORS`); ``None`` when
    not known."""
    if not isinstance(result, TensorV):
        return None
    n = _numel(result)
    if n is None or n > MAX_ELEMENTS:
        return None
    ops = [_operand(v) for v in operands]
    if not ops or any(o is None for o in ops):
        return None
    known = [o for o in ops if o is not None]
    if name == "to" and len(known) == 2 and not kwargs:
        target = operands[1]
        dtype = _DTYPE_NAMES.get(target.name or "") if isinstance(target, DTypeV) else None
        if dtype is None:
            return None
        return _cast(known[0].values, known[0].dtype, known[0].inexact, dtype)
    if kwargs:
        return None
    out: Contents | None
    if len(known) == 2:
        out = _elementwise(name, known, n)
    elif len(known) == 1 and name in ("diff", "cumsum", "sum", "prod", "max", "min"):
        t = operands[0]
        if name in ("diff", "cumsum") and not (isinstance(t, TensorV) and t.shape.rank == 1):
            return None
        out = _reduction(name, known[0])
    elif len(known) == 1:
        out = _unary(name, known[0])
    else:
        return None
    return out if out is not None and len(out.values) == n else None


def created(name: str, args: Sequence[Value], kwargs: Mapping[str, Value], result: Value) -> Contents | None:
    """The contents of ``torch.arange`` of ints and of ``torch.tensor``/``torch.as_tensor`` of a
    flat list of constants (``result``: the shape rule's tensor)."""
    if not isinstance(result, TensorV):
        return None
    n = _numel(result)
    if n is None or n > MAX_ELEMENTS:
        return None
    values: tuple[Number, ...]
    if name == "arange":
        if kwargs or not 1 <= len(args) <= 3:
            return None
        ints = [a.value for a in args if isinstance(a, IntV) and not isinstance(a, BoolV) and type(a.value) is int]
        if len(ints) != len(args):
            return None
        start, stop, step = (0, ints[0], 1) if len(ints) == 1 else (ints[0], ints[1], ints[2] if len(ints) == 3 else 1)
        if step == 0:
            return None
        values, dtype = tuple(range(start, stop, step)), "int64"
    elif name in ("tensor", "as_tensor"):
        if kwargs or len(args) != 1:
            return None
        data = args[0]
        items = data.items if isinstance(data, TupleV) else (data,)
        scalars = [_operand(v) for v in items]
        if any(s is None or s.kind != 2 for s in scalars):
            return None
        kinds = {s.dtype for s in scalars if s is not None}
        dtype = "float32" if "float64" in kinds else "int64" if "int64" in kinds else "bool"
        stored = [_store(s.values[0], dtype) for s in scalars if s is not None]
        if any(v is None for v in stored):
            return None
        values = tuple(v for v in stored if v is not None)
    else:
        return None
    return Contents(values, dtype) if len(values) == n else None


def python_values(t: TensorV, name: str) -> Value | None:
    """What ``t.tolist()`` (a list of a 1-D tensor, a number of a 0-d one), ``t.item()``,
    ``int(t)`` or ``float(t)`` (``name``) gives, from ``t``'s contents; ``None`` when not known."""
    c = t.contents
    rank = t.shape.rank
    if c is None or rank is None or rank > 1:
        return None

    def number(x: Number) -> Value | None:
        if name == "int":
            if isinstance(x, float):
                n = _trunc_int(x, c.inexact)
                return None if n is None else IntV(n)
            return IntV(int(x))
        if name == "float":
            return FloatV(float(x))
        if isinstance(x, bool):
            return BoolV(x)
        return FloatV(x) if isinstance(x, float) else IntV(x)

    if name == "tolist" and t.shape.rank == 1:
        items = [number(x) for x in c.values]
        if any(i is None for i in items):
            return None
        return TupleV(tuple(i for i in items if i is not None), SeqKind.LIST)
    if len(c.values) != 1:
        return None
    return number(c.values[0])
