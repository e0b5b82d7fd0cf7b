"""Run one call through torch (meta tensors) and through tensorshape's op rule, and compare.

A call is described neutrally: :class:`T` stands for a tensor of a given
shape and dtype; other arguments are Python values.  ``run_torch`` builds meta
tensors (tiny CPU tensors for ops that need data); ``run_rule`` builds
abstract values and asks :mod:`tensorshape.rules.engine`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from tensorshape.model.diagnostics import Severity
from tensorshape.model.dims import Unknown
from tensorshape.model.shape import Shape
from tensorshape.model.values import (
    BoolV,
    DTypeV,
    IntV,
    ModuleV,
    NoneV,
    PackedV,
    SeqKind,
    TensorV,
    TupleV,
    Value,
    constant_value,
)
from tensorshape.rules import engine
from tensorshape.rules.context import Arg, RuleContext

__all__ = ["T", "P", "Call", "run_torch", "run_rule", "Outcome", "compare"]

_DTYPES = {"float32": torch.float32, "int64": torch.int64, "bool": torch.bool, "complex64": torch.complex64}


@dataclass(frozen=True)
class T:
    shape: tuple[int, ...]
    dtype: str = "float32"


@dataclass(frozen=True)
class P:
    """A ``PackedSequence`` of sequences of ``lengths`` (longest first) steps of ``features``."""

    lengths: tuple[int, ...]
    features: tuple[int, ...]

    def torch(self, device: str) -> Any:
        seqs = [torch.zeros((n, *self.features), device=device) for n in self.lengths]
        return torch.nn.utils.rnn.pack_sequence(seqs)

    def value(self) -> PackedV:
        return PackedV(TensorV(Shape((sum(self.lengths), *self.features))), len(self.lengths), max(self.lengths))


@dataclass(frozen=True)
class Call:
    """``kind``: ``function`` (``qualname`` is ``torch.x``), ``method`` (``torch.Tensor.x``), ``module``."""

    kind: str
    qualname: str
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    #: For modules: constructor arguments.
    init: tuple[Any, ...] = ()
    init_kwargs: Mapping[str, Any] = field(default_factory=dict)
    #: Run on meta tensors instead of tiny CPU tensors (for ops too big for the CPU).
    meta: bool = False

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        init = ""
        if self.kind == "module":
            init = "(" + ", ".join([repr(a) for a in self.init] + [f"{k}={v!r}" for k, v in self.init_kwargs.items()]) + ")"
        return f"{self.qualname}{init}({', '.join(parts)})"


# -- torch ---------------------------------------------------------------------------------------------
def _to_torch(v: Any, device: str) -> Any:
    if isinstance(v, P):
        return v.torch(device)
    if isinstance(v, T):
        if v.dtype == "bool":
            return torch.zeros(v.shape, dtype=torch.bool, device=device)
        return torch.zeros(v.shape, dtype=_DTYPES[v.dtype], device=device)
    if isinstance(v, list):
        return [_to_torch(x, device) for x in v]
    if isinstance(v, tuple):
        return tuple(_to_torch(x, device) for x in v)
    return v


def _resolve(qualname: str) -> Any:
    import importlib

    parts = qualname.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            obj = getattr(obj, part)
        return obj
    raise LookupError(qualname)


@dataclass(frozen=True)
class Outcome:
    #: ``ok`` (with ``value``), ``error`` (with ``message``), ``unknown`` (the rule could not say).
    status: str
    value: Any = None
    message: str = ""


_TORCH_ERRORS: tuple[type[BaseException], ...] = (
    RuntimeError,
    ValueError,
    IndexError,
    TypeError,
    AssertionError,
    ZeroDivisionError,  # xavier's std of a tensor with no elements
    KeyError,  # einops' layers look their recipe up by the input's rank
)
try:  # einops raises its own error type for shape problems
    from einops import EinopsError

    _TORCH_ERRORS = (*_TORCH_ERRORS, EinopsError)
except ImportError:  # pragma: no cover
    pass


def _shape_of(out: Any) -> Any:
    if isinstance(out, torch.nn.utils.rnn.PackedSequence):
        return ("packed", tuple(out.data.shape), int(out.batch_sizes[0]), len(out.batch_sizes))
    if isinstance(out, torch.Tensor):
        return ("T", tuple(out.shape))
    if isinstance(out, torch.Size):
        return tuple(int(x) for x in out)
    if isinstance(out, (tuple, list)):
        return tuple(_shape_of(x) for x in out)
    if isinstance(out, torch.dtype):
        return ("dtype", str(out).removeprefix("torch."))
    if isinstance(out, bool):
        return out
    if out is None:
        return ("none",)
    if isinstance(out, int):
        return out
    return ("other", type(out).__name__)


def run_torch(call: Call) -> Outcome:
    # Tiny CPU tensors: meta kernels skip some of the checks the CPU kernels make.
    device = "meta" if call.meta else "cpu"
    args = _to_torch(call.args, device)
    kwargs = {k: _to_torch(v, device) for k, v in call.kwargs.items()}
    try:
        with torch.device(device):
            if call.kind == "function":
                out = _resolve(call.qualname)(*args, **kwargs)
            elif call.kind == "method":
                name = call.qualname.rsplit(".", 1)[1]
                recv, rest = args[0], args[1:]
                attr = getattr(recv, name)
                out = attr(*rest, **kwargs) if callable(attr) and name not in _PROPERTIES else attr
            else:
                init = [_to_torch(a, device) for a in call.init]
                module = _resolve(call.qualname)(*init, **{k: _to_torch(v, device) for k, v in call.init_kwargs.items()})
                module.eval()
                out = module(*args, **kwargs)
    except NotImplementedError as e:
        # A dtype the kernel does not support ("not implemented for 'Float'"): not a shape question.
        return Outcome("bad-call", message=str(e).splitlines()[0] if str(e) else "")
    except TypeError as e:
        # A call torch cannot even bind (a missing or mistyped argument): not a shape question.
        return Outcome("bad-call", message=str(e).splitlines()[0] if str(e) else "")
    except _TORCH_ERRORS as e:
        text = str(e).splitlines()[0] if str(e) else ""
        if "LinAlgError" in type(e).__name__ or any(m in text for m in _DTYPE_ERRORS):
            # Singular matrices and unsupported dtypes: values and types, not shapes.
            return Outcome("bad-call", message=text)
        return Outcome("error", message=f"{type(e).__name__}: {text}")
    return Outcome("ok", _shape_of(out))


_DTYPE_ERRORS = ("Expected a long tensor", "Expected dtype int", "expected scalar type", "non-complex dtypes")


_PROPERTIES = frozenset({"T", "mT", "H", "mH", "shape", "ndim", "dtype", "data", "real", "imag"})


# -- the rule ----------------------------------------------------------------------------------------------
def _to_value(v: Any) -> Value:
    if isinstance(v, P):
        return v.value()
    if isinstance(v, T):
        return TensorV(Shape(tuple(v.shape)), v.dtype)
    if isinstance(v, torch.dtype):
        return DTypeV(str(v).removeprefix("torch."))
    c = constant_value(v, _to_value)
    if c is None:
        raise TypeError(f"no abstract value for {v!r}")
    return c


def _value_shape(v: Value) -> Any:
    if isinstance(v, PackedV):
        data = _value_shape(v.data)
        if data is None or type(v.batch) is not int or type(v.longest) is not int:
            return None
        return ("packed", data[1], v.batch, v.longest)
    if isinstance(v, TensorV):
        if v.shape.rank is None:
            return None
        dims = v.shape.dims
        if not all(type(d) is int for d in dims):
            return None
        return ("T", tuple(dims))
    if isinstance(v, TupleV):
        items = tuple(_value_shape(x) for x in v.items)
        if v.kind is SeqKind.SIZE:
            return items if all(type(x) is int for x in items) else None
        return None if any(x is None for x in items) else items
    if isinstance(v, DTypeV):
        return ("dtype", v.name)
    if isinstance(v, BoolV):
        return v.value
    if isinstance(v, NoneV):
        return ("none",)
    if isinstance(v, IntV):
        return v.value if type(v.value) is int else None
    return ("value", type(v).__name__)


def run_rule(call: Call) -> Outcome:
    result, ctx = rule_result(call)
    errors = [d for d in ctx.diagnostics if d.severity is Severity.ERROR]
    if errors:
        return Outcome("error", message="; ".join(d.message for d in errors))
    if result is None:
        return Outcome("unknown", message="no rule")
    shape = _value_shape(result)
    if shape is None or (isinstance(result, TensorV) and any(isinstance(d, Unknown) for d in result.shape.items)):
        return Outcome("unknown", result)
    return Outcome("ok", shape)


def rule_result(call: Call, to_value: Any = None) -> tuple[Value | None, RuleContext]:
    """The rule's result on ``call`` and the context it reported into; ``to_value`` converts the
    call's arguments (tensors with runs, in ``runs.py``)."""
    conv = to_value or _to_value
    ctx = RuleContext()
    args = [Arg(conv(a), None, f"arg{i}") for i, a in enumerate(call.args)]
    kwargs = {k: Arg(conv(v), None, k) for k, v in call.kwargs.items()}
    result: Value | None
    if call.kind == "function":
        result = engine.call_function(call.qualname, args, kwargs, ctx)
    elif call.kind == "method":
        name = call.qualname.rsplit(".", 1)[1]
        if name in _PROPERTIES:
            result = engine.tensor_attr(args[0], name, ctx)
        else:
            result = engine.call_method(args[0], name, args[1:], kwargs, ctx)
    else:
        init = [Arg(_to_value(a)) for a in call.init]
        init_kw = {k: Arg(_to_value(v)) for k, v in call.init_kwargs.items()}
        module = engine.construct_module(call.qualname, init, init_kw, ctx)
        assert isinstance(module, ModuleV), f"{call.qualname} is not a modelled module"
        result = engine.call_module(module, args, kwargs, ctx)
    return result, ctx


def compare(call: Call, partial_ok: bool = False) -> tuple[Outcome, Outcome]:
    """Assert the rule agrees with torch on ``call``; returns both outcomes."""
    want = run_torch(call)
    if want.status == "bad-call":
        from hypothesis import reject

        reject()
    got = run_rule(call)
    if want.status == "ok":
        if got.status == "error":
            raise AssertionError(f"false error on {call!r}: torch gives {want.value}, the rule says: {got.message}")
        if got.status == "unknown":
            if not partial_ok:
                raise AssertionError(f"{call!r}: torch gives {want.value}, the rule gives an unknown shape {got.value}")
            return want, got
        if got.value != want.value:
            raise AssertionError(f"{call!r}: torch gives {want.value}, the rule gives {got.value}")
    else:
        if got.status != "error":
            raise AssertionError(f"missed error on {call!r}: torch raises {want.message}, the rule gives {got.value}")
    return want, got


def tensors(shapes: Sequence[tuple[int, ...]], dtype: str = "float32") -> list[T]:
    return [T(s, dtype) for s in shapes]
