"""numpy arrays by their shapes, for the datasets that build their samples with numpy (issue 16).

numpy is not followed (its source is excluded by default), so what a program does with it is
modelled here by what it does to shapes: an :class:`ArrayV` is an array of a shape.  Where numpy
and torch agree on shapes (broadcasting, basic and advanced indexing, a reduction over an axis,
``reshape``, ``concatenate`` / ``stack``, ``expand_dims``) the torch rule is applied to the array
as a tensor of its shape, its reports muted (an array's requirement is not a torch error) and
its result an array again; where they differ (``a.max(0)`` is an array, not values and indices;
``a.size`` an int; ``a.transpose()`` reverses) numpy's meaning is modelled here.  A reduction to
a 0-d result is a numpy scalar: a float (or an int) to the rest of the code.  What has no model
is unknown, its cause counted (``numpy call without a model``).  ``torch.from_numpy(a)`` and
``torch.tensor(a)`` are tensors of ``a``'s shape.  (A ``DataLoader`` whose samples hold arrays,
which ``default_collate`` turns into tensors, is not modelled yet.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..model.dims import Dim, Unknown, UnknownSource
from ..model.shape import Shape
from ..model.values import NONE, BoolV, FloatV, IntV, SeqKind, SeqV, TensorV, TupleV, UnknownV, Value
from ..rules import engine
from ..rules.context import Arg, RuleContext
from ..unify import arith
from .values import ArrayV, ExternalV

__all__ = [
    "Apply",
    "array_attribute",
    "array_binop",
    "as_array",
    "as_tensor",
    "call_array_method",
    "call_numpy",
    "literal_array",
    "rule_on_arrays",
]

#: Applies a torch function (by its qualified name) to values whose arrays are tensors, reports muted.
Apply = Callable[[str, Sequence[Value], Mapping[str, Value]], Value]

#: Element-wise functions of one operand: an array keeps its shape, a number stays a number.
_UNARY = frozenset(
    "sqrt exp log log2 log10 log1p expm1 abs absolute fabs sin cos tan arcsin arccos arctan sinh cosh "
    "tanh floor ceil rint round around trunc square negative sign sinc deg2rad rad2deg degrees radians "
    "isnan isinf isfinite logical_not reciprocal cbrt".split()
)
#: Element-wise functions of two operands, by the torch op that broadcasts them the same way.
_BINARY = {
    "add": "torch.add",
    "subtract": "torch.sub",
    "multiply": "torch.mul",
    "divide": "torch.div",
    "true_divide": "torch.div",
    "power": "torch.pow",
    "maximum": "torch.maximum",
    "minimum": "torch.minimum",
    "arctan2": "torch.atan2",
    "hypot": "torch.hypot",
    "fmod": "torch.fmod",
    "mod": "torch.remainder",
    "logical_and": "torch.logical_and",
    "logical_or": "torch.logical_or",
    "equal": "torch.eq",
    "greater": "torch.gt",
    "less": "torch.lt",
}
#: Reductions over ``axis`` (all axes when it is ``None``), by the torch op that reduces the same dims.
_REDUCTIONS = {
    "mean": "torch.mean",
    "sum": "torch.sum",
    "nansum": "torch.sum",
    "nanmean": "torch.mean",
    "max": "torch.amax",
    "amax": "torch.amax",
    "nanmax": "torch.amax",
    "min": "torch.amin",
    "amin": "torch.amin",
    "nanmin": "torch.amin",
    "std": "torch.std",
    "var": "torch.var",
    "prod": "torch.prod",
    "any": "torch.any",
    "all": "torch.all",
    "argmax": "torch.argmax",
    "argmin": "torch.argmin",
    "median": "torch.median",
}
#: Reductions whose result is an index or a truth value, not a float.
_INT_REDUCTIONS = frozenset({"argmax", "argmin"})
_BOOL_REDUCTIONS = frozenset({"any", "all"})
#: Constructors from a shape (an int or a tuple), and the ``*_like`` ones.
_FROM_SHAPE = frozenset({"zeros", "ones", "empty", "full"})
_LIKE = frozenset({"zeros_like", "ones_like", "empty_like", "full_like", "copy", "ascontiguousarray"})
#: ``numpy.random`` (and a ``RandomState`` / ``Generator``'s methods) drawing arrays of ``size``:
#: the index of the positional ``size`` argument, or ``None`` where every positional is a dim.
_DRAWS: dict[str, int | None] = {
    "randn": None,
    "rand": None,
    "standard_normal": 0,
    "random": 0,
    "random_sample": 0,
    "sample": 0,
    "normal": 2,
    "uniform": 2,
    "laplace": 2,
    "logistic": 2,
    "lognormal": 2,
    "beta": 2,
    "gamma": 2,
    "binomial": 2,
    "poisson": 1,
    "exponential": 1,
    "randint": 2,
    "integers": 2,
    "choice": 1,
}
#: Draws of ints (a scalar draw is an int not known).
_INT_DRAWS = frozenset({"randint", "integers", "binomial", "poisson"})
#: Generators whose methods are ``numpy.random``'s functions.
_GENERATORS = frozenset({"RandomState", "default_rng", "Generator"})
#: numpy's dtypes, by the torch dtype an array of them converts to.
_DTYPES = {
    "float32": "float32",
    "float64": "float64",
    "float16": "float16",
    "int64": "int64",
    "int32": "int32",
    "int16": "int16",
    "int8": "int8",
    "uint8": "uint8",
    "bool_": "bool",
    "complex64": "complex64",
}


def as_tensor(v: Value) -> Value:
    """An array as a tensor of its shape (for a torch rule); anything else as it is."""
    if isinstance(v, ArrayV):
        return TensorV(v.shape, v.dtype)
    if isinstance(v, TupleV):
        return TupleV(tuple(as_tensor(x) for x in v.items), v.kind)
    if isinstance(v, SeqV):
        return SeqV(as_tensor(v.elem), v.kind, v.length, v.varied)
    return v


def as_array(v: Value, scalar: Value | None = None) -> Value:
    """A torch rule's result as numpy's: a tensor is an array, a 0-d one ``scalar`` (a float by
    default: numpy's reductions give numpy scalars, not 0-d arrays)."""
    if isinstance(v, TensorV):
        if v.shape.rank == 0:
            return scalar if scalar is not None else FloatV(None)
        return ArrayV(v.shape, v.dtype)
    if isinstance(v, TupleV) and all(isinstance(x, TensorV) for x in v.items):
        return TupleV(tuple(as_array(x) for x in v.items), v.kind)
    return UnknownV(UnknownSource.UNSUPPORTED)


def _muted(ctx: RuleContext, run: Callable[[], Value | None]) -> Value:
    muted, ctx.muted = ctx.muted, True
    try:
        v = run()
    finally:
        ctx.muted = muted
    return v if v is not None else UnknownV(UnknownSource.UNSUPPORTED)


def rule_on_arrays(ctx: RuleContext, q: str, vals: Sequence[Value], kw: Mapping[str, Value]) -> Value:
    """The torch function ``q`` applied to arrays as tensors of their shapes, its reports muted: an
    array's requirement is numpy's, not an error of torch's to report."""
    args = [Arg(as_tensor(x)) for x in vals]
    kwargs = {k: Arg(as_tensor(x)) for k, x in kw.items()}
    return _muted(ctx, lambda: engine.call_function(q, args, kwargs, ctx, None))


def array_binop(ctx: RuleContext, op: str, left: Value, right: Value) -> Value:
    """``a + b`` with an array: numpy broadcasts as torch does (an array with a tensor: unknown)."""
    if not all(isinstance(v, (ArrayV, IntV, FloatV, BoolV)) for v in (left, right)):
        return UnknownV(UnknownSource.UNSUPPORTED)
    return as_array(_muted(ctx, lambda: engine.binary_op(op, Arg(as_tensor(left)), Arg(as_tensor(right)), ctx, None)))


def _dtype(v: Value | None) -> str | None:
    if isinstance(v, ExternalV):
        return _DTYPES.get(v.qualname.rsplit(".", 1)[-1])
    return None


def _dims(v: Value | None) -> tuple[Dim, ...] | None:
    """A shape argument: an int or a tuple of ints (``None``: not one)."""
    if isinstance(v, IntV) and not isinstance(v.value, Unknown):
        return (v.value,)
    if isinstance(v, TupleV) and all(isinstance(x, IntV) for x in v.items):
        return tuple(x.value for x in v.items if isinstance(x, IntV))
    return None


def _scalar_of(name: str) -> Value:
    if name in _INT_REDUCTIONS or name in _INT_DRAWS:
        return IntV(Unknown(UnknownSource.DATA_DEPENDENT))
    if name in _BOOL_REDUCTIONS:
        return BoolV(None)
    return FloatV(None)


def literal_array(v: Value) -> Value:
    """``np.array(v)``: an array of the nesting of ``v`` (a list of lists of numbers, of arrays),
    unknown where its items do not all have one shape."""
    if isinstance(v, ArrayV):
        return v
    if isinstance(v, (IntV, FloatV, BoolV)):
        return ArrayV(Shape(()))
    if isinstance(v, TupleV) and v.kind is not SeqKind.SIZE:
        items = [literal_array(x) for x in v.items]
        shapes = {x.shape for x in items if isinstance(x, ArrayV)}
        if len(shapes) == 1 and all(isinstance(x, ArrayV) for x in items):
            (inner,) = shapes
            if inner.rank is not None:
                return ArrayV(Shape((len(items), *inner.dims)))
        if not items:
            return ArrayV(Shape((0,)))
    if isinstance(v, TupleV) and v.kind is SeqKind.SIZE:
        return ArrayV(Shape((len(v.items),)), "int64")
    if isinstance(v, SeqV) and v.length is not None and not isinstance(v.length, Unknown):
        inner_v = literal_array(v.elem)
        if isinstance(inner_v, ArrayV) and inner_v.shape.rank is not None and not v.varied:
            return ArrayV(Shape((v.length, *inner_v.shape.dims)))
    return UnknownV(UnknownSource.UNSUPPORTED)


def _reduce(name: str, a: ArrayV, axis: Value, keepdims: Value, apply: Apply) -> Value:
    if axis is NONE or axis is None:
        if keepdims == BoolV(True):
            return ArrayV(Shape(tuple(1 for _ in a.shape.dims)) if a.shape.rank is not None else Shape.unknown())
        return _scalar_of(name)
    op = _REDUCTIONS[name]
    kw: dict[str, Value] = {"dim": axis}
    if keepdims not in (None, NONE) and name not in _INT_REDUCTIONS:
        kw["keepdim"] = keepdims
    if name in ("median", "prod") and not isinstance(axis, IntV):
        return UnknownV(UnknownSource.UNSUPPORTED)
    got = apply(op, [a], kw)
    if name == "median" and isinstance(got, TupleV) and got.items:
        got = got.items[0]
    return as_array(got, _scalar_of(name))


def _draw(name: str, args: Sequence[Value], kwargs: Mapping[str, Value]) -> Value:
    at = _DRAWS[name]
    if at is None:  # ``randn(2048, 3)``: every positional a dim
        each = [_dims(x) for x in args]
        if not args:
            return FloatV(None)
        if all(d is not None and len(d) == 1 for d in each):
            return ArrayV(Shape(tuple(d[0] for d in each if d is not None)), "float64")
        return UnknownV(UnknownSource.UNSUPPORTED)
    size = kwargs.get("size", args[at] if len(args) > at else NONE)
    if size is NONE:
        if name == "choice" and args and isinstance(args[0], ArrayV) and args[0].shape.rank != 1:
            return UnknownV(UnknownSource.UNSUPPORTED)
        if any(isinstance(x, ArrayV) for x in (*args, *kwargs.values())):
            return UnknownV(UnknownSource.UNSUPPORTED)  # ``normal(mu, sigma)`` with arrays: their broadcast
        return _scalar_of(name)
    dims = _dims(size)
    if dims is None:
        return UnknownV(UnknownSource.UNSUPPORTED)
    return ArrayV(Shape(dims), "int64" if name in _INT_DRAWS or name == "choice" else "float64")


def call_numpy(name: str, args: Sequence[Value], kwargs: Mapping[str, Value], apply: Apply) -> Value | None:
    """``numpy.<name>(...)`` (``random.<f>`` for ``numpy.random``): its value, ``None`` with no model."""
    if name.startswith("random."):
        f = name.removeprefix("random.")
        if f in _GENERATORS:
            return ExternalV("numpy.random")  # ``rng.randn(...)`` is ``numpy.random.randn(...)``
        if f in _DRAWS:
            return _draw(f, args, kwargs)
        if f == "permutation" and args:
            n = args[0]
            if isinstance(n, IntV):
                return ArrayV(Shape((n.value,)), "int64")
            return n if isinstance(n, ArrayV) else None
        if f in ("seed", "shuffle"):
            return NONE
        return None
    a = args[0] if args else None
    if name in _UNARY and a is not None:
        if isinstance(a, ArrayV):
            return ArrayV(a.shape)
        if isinstance(a, (IntV, FloatV)):
            return FloatV(None) if name not in ("isnan", "isinf", "isfinite") else BoolV(None)
        return None
    if name in _BINARY and len(args) == 2:
        if not any(isinstance(x, ArrayV) for x in args):
            return FloatV(None) if all(isinstance(x, (IntV, FloatV)) for x in args) else None
        return as_array(apply(_BINARY[name], args, {}))
    if name in _REDUCTIONS and isinstance(a, ArrayV):
        axis = kwargs.get("axis", args[1] if len(args) > 1 else NONE)
        return _reduce(name, a, axis, kwargs.get("keepdims", NONE), apply)
    if name in _REDUCTIONS and isinstance(a, (IntV, FloatV)):
        return _scalar_of(name)
    if name in ("array", "asarray", "asanyarray") and a is not None:
        arr = literal_array(a)
        dtype = _dtype(kwargs.get("dtype", args[1] if len(args) > 1 else None))
        return ArrayV(arr.shape, dtype) if isinstance(arr, ArrayV) and dtype is not None else arr
    if name in _FROM_SHAPE and a is not None:
        dims = _dims(a)
        return ArrayV(Shape(dims), _dtype(kwargs.get("dtype"))) if dims is not None else None
    if name in _LIKE and isinstance(a, ArrayV):
        return a
    if name in ("eye", "identity") and isinstance(a, IntV):
        m = args[1] if len(args) > 1 and name == "eye" else a
        return ArrayV(Shape((a.value, m.value if isinstance(m, IntV) else a.value)), "float64")
    if name == "arange" and args and all(isinstance(x, IntV) for x in args):
        return as_array(apply("torch.arange", args, {}))
    if name == "linspace" and len(args) >= 2:
        num = kwargs.get("num", args[2] if len(args) > 2 else IntV(50))
        return ArrayV(Shape((num.value,)), "float64") if isinstance(num, IntV) else None
    if not isinstance(a, (ArrayV, TupleV, SeqV)):
        return None
    return _shape_function(name, args, kwargs, apply)


def _shape_function(name: str, args: Sequence[Value], kwargs: Mapping[str, Value], apply: Apply) -> Value | None:
    a = args[0]
    rest = args[1:]
    if name == "expand_dims" and isinstance(a, ArrayV):
        axis = kwargs.get("axis", rest[0] if rest else None)
        return as_array(apply("torch.unsqueeze", [a, axis], {})) if isinstance(axis, IntV) else None
    if name == "squeeze" and isinstance(a, ArrayV):
        axis = kwargs.get("axis", rest[0] if rest else NONE)
        return as_array(apply("torch.squeeze", [a] if axis is NONE else [a, axis], {}))
    if name == "reshape" and isinstance(a, ArrayV) and rest:
        return as_array(apply("torch.reshape", [a, rest[0]], {}))
    if name == "transpose" and isinstance(a, ArrayV):
        return _transpose(a, kwargs.get("axes", rest[0] if rest else NONE), apply)
    if name in ("concatenate", "stack", "vstack", "hstack") and isinstance(a, (TupleV, SeqV)):
        axis = kwargs.get("axis", rest[0] if rest else IntV(0))
        if name == "vstack" or name == "hstack":
            return None  # their axis depends on the arrays' ranks
        op = "torch.cat" if name == "concatenate" else "torch.stack"
        return as_array(apply(op, [a], {"dim": axis}))
    if name in ("dot", "matmul") and len(args) == 2 and isinstance(a, ArrayV) and isinstance(args[1], ArrayV):
        return _dot(name, a, args[1], apply)
    if name == "clip" and isinstance(a, ArrayV):
        return a
    if name == "where" and len(args) == 3:
        return as_array(apply("torch.where", args, {}))
    return None


def _transpose(a: ArrayV, axes: Value, apply: Apply) -> Value:
    if axes is NONE:
        if not a.shape.rank is not None:
            return UnknownV(UnknownSource.UNSUPPORTED)
        return ArrayV(Shape(tuple(reversed(a.shape.dims))), a.dtype)
    return as_array(apply("torch.permute", [a, axes], {}))


def _dot(name: str, a: ArrayV, b: ArrayV, apply: Apply) -> Value:
    if name == "dot" and not (a.shape.rank in (1, 2) and b.shape.rank in (1, 2)):
        return UnknownV(UnknownSource.UNSUPPORTED)  # ``dot`` of n-d arrays is not ``matmul``
    return as_array(apply("torch.matmul", [a, b], {}))


def call_array_method(
    a: ArrayV, name: str, args: Sequence[Value], kwargs: Mapping[str, Value], apply: Apply
) -> Value | None:
    """``a.<name>(...)``: its value, ``None`` with no model."""
    if name in ("astype", "copy", "clip", "round", "__copy__"):
        dtype = _dtype(args[0]) if name == "astype" and args else None
        return ArrayV(a.shape, dtype if name == "astype" else a.dtype)
    if name in ("flatten", "ravel"):
        return as_array(apply("torch.flatten", [a], {}))
    if name == "reshape" and args:
        shape = args[0] if len(args) == 1 else TupleV(tuple(args), SeqKind.TUPLE)
        return as_array(apply("torch.reshape", [a, shape], {}))
    if name == "transpose":
        axes = NONE if not args else args[0] if len(args) == 1 else TupleV(tuple(args), SeqKind.TUPLE)
        return _transpose(a, axes, apply)
    if name == "squeeze":
        return _shape_function("squeeze", [a, *args], kwargs, apply)
    if name == "dot" and len(args) == 1 and isinstance(args[0], ArrayV):
        return _dot("dot", a, args[0], apply)
    if name in _REDUCTIONS:
        axis = kwargs.get("axis", args[0] if args else NONE)
        return _reduce(name, a, axis, kwargs.get("keepdims", NONE), apply)
    if name == "item":
        return FloatV(None)
    if name == "fill":
        return NONE
    return None


def array_attribute(a: ArrayV, name: str) -> Value | None:
    """``a.shape``, ``a.ndim``, ``a.size`` (the element count, an int), ``a.T``; ``None`` otherwise."""
    if not a.shape.rank is not None:
        return None
    if name == "shape":
        return TupleV(tuple(IntV(d) for d in a.shape.dims), SeqKind.SIZE)
    if name == "ndim":
        return IntV(len(a.shape.dims))
    if name == "size":
        return IntV(arith.prod(a.shape.dims))
    if name == "T":
        return ArrayV(Shape(tuple(reversed(a.shape.dims))), a.dtype)
    return None
