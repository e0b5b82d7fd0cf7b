"""``@shapecheck``: check an annotated function's tensor arguments and return value on every call."""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from typing import Any, TypeVar

from . import checking as _check
from .annotations import raw_annotations, spec_of
from .checking import Bindings, _check_exprs, _match
from .codegen import ArgPlan, fast_wrapper
from .errors import ShapeCheckError
from .plan import Plan, compile_spec

__all__ = ["shapecheck", "spec_of"]

F = TypeVar("F", bound=Callable[..., Any])

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _params(fn: Callable[..., Any]) -> list[inspect.Parameter]:
    """The parameters, read without evaluating a single annotation."""
    if sys.version_info >= (3, 14):  # pragma: no cover - PEP 649: ``signature`` would evaluate them
        import annotationlib

        sig = inspect.signature(fn, annotation_format=annotationlib.Format.STRING)
    else:
        sig = inspect.signature(fn)  # does not evaluate string annotations before 3.14
    return list(sig.parameters.values())


def _compile(spec: str, name: str, where: str) -> Plan:
    try:
        return compile_spec(spec)
    except Exception as e:  # noqa: BLE001 - any parse failure: say which annotation
        raise ValueError(f"{where}: @shapecheck: the spec {spec!r} of `{name}` does not parse: {e}") from None


def shapecheck(fn: F) -> F:
    """Check the function's jaxtyping-annotated tensor arguments and its return against their specs.

    Dim names bind across the arguments and the return of one call.  Annotations
    are read, never evaluated (a string annotation is parsed as text).  A
    coroutine function's awaited result is checked; a generator's return is not.
    With ``TENSORSHAPE_RUNTIME=0`` set when the function is decorated, the
    function itself is returned: no wrapper, no cost.
    """
    if not _check.enabled():
        return fn
    code = getattr(fn, "__code__", None)
    where = f"{code.co_filename}:{code.co_firstlineno}" if code is not None else getattr(fn, "__qualname__", repr(fn))
    qual = getattr(fn, "__qualname__", repr(fn))
    loc = f"{where} ({qual})"
    annotations = raw_annotations(fn)
    params = _params(fn)
    names = [p.name for p in params]
    arg_plans: list[ArgPlan] = []
    for i, p in enumerate(params):
        spec = spec_of(annotations.get(p.name))
        if spec is not None:
            arg_plans.append((i if p.kind in _POSITIONAL else None, p.name, _compile(spec, p.name, where)))
    ret_spec = spec_of(annotations.get("return"))
    is_async = inspect.iscoroutinefunction(fn)
    generator = inspect.isgeneratorfunction(fn) or inspect.isasyncgenfunction(fn)
    ret_plan = _compile(ret_spec, "return", where) if ret_spec is not None and not generator else None

    def refs(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        return dict(zip(names, args)) | kwargs

    def argument(i: int | None, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return args[i] if i is not None and i < len(args) else kwargs.get(name)

    def before(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Bindings:
        b = Bindings()
        pending = []
        for i, name, plan in arg_plans:
            x = argument(i, name, args, kwargs)
            if x is None:
                continue
            shape = _match(x, plan, b, name, loc)
            if plan.deferred:
                pending.append((shape, plan, name))
        if pending:
            r = refs(args, kwargs)
            for shape, plan, name in pending:
                _check_exprs(shape, plan, b, name, loc, r)
        return b

    def after(out: Any, b: Bindings, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        if ret_plan is None:
            return
        try:
            shape = _match(out, ret_plan, b, "return", loc)
        except TypeError:
            raise ShapeCheckError(f"return is {type(out).__name__}, expected a tensor", where=loc) from None
        if ret_plan.deferred:
            _check_exprs(shape, ret_plan, b, "return", loc, refs(args, kwargs))

    def slow(args: tuple[Any, ...], kwargs: dict[str, Any], out: Any) -> None:
        """The generic checker: raises the full message (or a plain error when it finds nothing)."""
        b = before(args, kwargs)
        if out is not None:
            after(out, b, args, kwargs)
        raise ShapeCheckError("shape check failed", where=loc)

    fast = fast_wrapper(fn, arg_plans, ret_plan, _check, slow, is_async)
    if fast is not None:
        return functools.wraps(fn)(fast)  # type: ignore[return-value]

    if is_async:

        @functools.wraps(fn)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            if not _check._ENABLED:
                return await fn(*args, **kwargs)
            b = before(args, kwargs)
            out = await fn(*args, **kwargs)
            after(out, b, args, kwargs)
            return out

        return async_wrapper  # type: ignore[return-value]

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not _check._ENABLED:
            return fn(*args, **kwargs)
        b = before(args, kwargs)
        out = fn(*args, **kwargs)
        after(out, b, args, kwargs)
        return out

    return wrapper  # type: ignore[return-value]
