"""``@shapecheck``: check an annotated function's tensor arguments and return value on every call."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, get_type_hints

from . import checking as _check
from .checking import Bindings, _check_exprs, _match
from .codegen import fast_wrapper
from .errors import ShapeCheckError
from .plan import compile_spec

__all__ = ["shapecheck", "spec_of"]

F = TypeVar("F", bound=Callable[..., Any])


def spec_of(annotation: Any) -> str | None:
    """The shape string of a jaxtyping annotation (``Float[Tensor, "b d"]`` -> ``"b d"``), else ``None``."""
    dim_str = getattr(annotation, "dim_str", None)
    if isinstance(dim_str, str):
        return dim_str
    return None


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    try:
        return get_type_hints(fn)
    except Exception:  # noqa: BLE001 - unresolvable string annotations: fall back to the raw ones
        return dict(getattr(fn, "__annotations__", {}))


def shapecheck(fn: F) -> F:
    """Check the function's jaxtyping-annotated tensor arguments and its return against their specs.

    Dim names bind across the arguments and the return of one call.  With
    ``TENSORSHAPE_RUNTIME=0`` set when the function is decorated, the function
    itself is returned: no wrapper, no cost.
    """
    if not _check.enabled():
        return fn
    hints = _hints(fn)
    sig = inspect.signature(fn)
    params = list(sig.parameters)
    arg_specs = [(i, n, spec_of(hints.get(n))) for i, n in enumerate(params)]
    arg_plans = [(i, n, compile_spec(s)) for i, n, s in arg_specs if s is not None]
    ret_spec = spec_of(hints.get("return"))
    ret_plan = compile_spec(ret_spec) if ret_spec is not None else None
    code = getattr(fn, "__code__", None)
    where = f"{code.co_filename}:{code.co_firstlineno}" if code is not None else fn.__qualname__
    qual = fn.__qualname__

    def slow(args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
        """The generic checker: raises the full message (or a plain error when it finds nothing)."""
        b = Bindings()
        loc = f"{where} ({qual})"
        for i, name, plan in arg_plans:
            x = args[i] if i < len(args) else kwargs.get(name)
            if x is not None:
                _match(x, plan, b, name, loc)
        if out is not None and ret_plan is not None:
            try:
                _match(out, ret_plan, b, "return", loc)
            except TypeError:
                raise ShapeCheckError(f"return is {type(out).__name__}, expected a tensor", where=loc) from None
        raise ShapeCheckError("shape check failed", where=loc)

    fast = fast_wrapper(fn, params, arg_plans, ret_plan, _check, slow)
    if fast is not None:
        return functools.wraps(fn)(fast)  # type: ignore[return-value]

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not _check._ENABLED:
            return fn(*args, **kwargs)
        b = Bindings()
        pending = []
        for i, name, plan in arg_plans:
            if i < len(args):
                x = args[i]
            elif name in kwargs:
                x = kwargs[name]
            else:
                continue
            if x is None:
                continue
            shape = _match(x, plan, b, name, f"{where} ({qual})")
            if plan.deferred:
                pending.append((shape, plan, name))
        if pending:
            refs = dict(zip(params, args)) | kwargs
            for shape, plan, name in pending:
                _check_exprs(shape, plan, b, name, f"{where} ({qual})", refs)
        out = fn(*args, **kwargs)
        if ret_plan is not None:
            try:
                shape = _match(out, ret_plan, b, "return", f"{where} ({qual})")
                if ret_plan.deferred:
                    _check_exprs(shape, ret_plan, b, "return", f"{where} ({qual})", dict(zip(params, args)) | kwargs)
            except TypeError:
                raise ShapeCheckError(f"return is {type(out).__name__}, expected a tensor", where=where) from None
        return out

    return wrapper  # type: ignore[return-value]
