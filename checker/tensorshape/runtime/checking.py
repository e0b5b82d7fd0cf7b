"""Check tensors against shape specs, binding dim names across them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..model.text import plural
from .errors import ShapeCheckError
from .plan import EXPR, FIXED, NAME, Plan, Step, compile_spec

__all__ = ["Bindings", "check", "check_shapes", "enabled", "enable", "disable"]

_ENABLED = os.environ.get("TENSORSHAPE_RUNTIME", "1").strip().lower() not in ("0", "false", "off", "no")


def enabled() -> bool:
    return _ENABLED


def enable() -> None:
    global _ENABLED
    _ENABLED = True


def disable() -> None:
    """Turn every check into a no-op (also: ``TENSORSHAPE_RUNTIME=0`` in the environment)."""
    global _ENABLED
    _ENABLED = False


class Bindings:
    """Dim names bound during one call, with where each was bound (for messages)."""

    __slots__ = ("values", "origin")

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.origin: dict[str, str] = {}

    def describe(self) -> str:
        return ", ".join(f"{k}={_show(v)} from {self.origin[k]}" for k, v in self.values.items())


def _show(v: Any) -> str:
    return "(" + ", ".join(map(str, v)) + ")" if isinstance(v, tuple) else str(v)


def _shape(x: Any) -> tuple[int, ...]:
    s = getattr(x, "shape", None)
    if s is None:
        raise TypeError(f"expected a tensor or array, got {type(x).__name__}")
    return tuple(s)


def _fail(msg: str, b: Bindings, where: str | None, plan: Plan, shape: tuple[int, ...]) -> ShapeCheckError:
    bound = b.describe()
    return ShapeCheckError(
        msg + (f" ({bound})" if bound else ""), where=where, spec=plan.text, actual=shape, bindings=b.values
    )


def _dim(
    step: Step, size: int, axis: int, name: str, shape: tuple[int, ...], plan: Plan, b: Bindings, where: str | None
) -> None:
    k = step.kind
    if k is FIXED:
        if size != step.size and not (step.broadcast and size == 1):
            raise _fail(
                f"{name} has {size} at dim {axis}, expected {step.size} (spec '{plan.text}', shape {list(shape)})",
                b,
                where,
                plan,
                shape,
            )
    elif k is NAME:
        n = step.name
        assert n is not None
        bound = b.values.get(n)
        if bound is None:
            if not (step.broadcast and size == 1):
                b.values[n] = size
                b.origin[n] = name
        elif bound != size and not (step.broadcast and size == 1):
            raise _fail(
                f"{n}={bound} from {b.origin[n]}, but {name} has {size} at dim {axis} "
                f"(spec '{plan.text}', shape {list(shape)})",
                b,
                where,
                plan,
                shape,
            )


def _match(x: Any, plan: Plan, b: Bindings, name: str, where: str | None) -> tuple[int, ...]:
    shape = _shape(x)
    rank = len(shape)
    nb, na = len(plan.before), len(plan.after)
    if plan.run is None:
        if rank != nb:
            raise _fail(
                f"{name} has {plural(rank, 'dim')} {list(shape)}, expected {nb} (spec '{plan.text}')",
                b,
                where,
                plan,
                shape,
            )
    elif rank < nb + na:
        raise _fail(
            f"{name} has {plural(rank, 'dim')} {list(shape)}, expected at least {nb + na} (spec '{plan.text}')",
            b,
            where,
            plan,
            shape,
        )
    for i, step in enumerate(plan.before):
        if step.kind is not EXPR:
            _dim(step, shape[i], i, name, shape, plan, b, where)
    if plan.run is not None:
        run = shape[nb : rank - na]
        n = plan.run.name
        if n is not None:
            key = "*" + n
            prev = b.values.get(key)
            if prev is None:
                b.values[key] = run
                b.origin[key] = name
            elif prev != run and not plan.run.broadcast:
                raise _fail(
                    f"*{n}={_show(prev)} from {b.origin[key]}, but {name} has {_show(run)}", b, where, plan, shape
                )
        for j, step in enumerate(plan.after):
            if step.kind is not EXPR:
                _dim(step, shape[rank - na + j], rank - na + j, name, shape, plan, b, where)
    return shape


def _check_exprs(
    x_shape: tuple[int, ...], plan: Plan, b: Bindings, name: str, where: str | None, refs: Mapping[str, object]
) -> None:
    rank = len(x_shape)
    na = len(plan.after)
    for i, step in enumerate(plan.before + plan.after):
        if step.kind is not EXPR:
            continue
        axis = i if i < len(plan.before) else rank - na + (i - len(plan.before))
        assert step.expr is not None
        try:
            want = step.expr(b.values, refs)
        except KeyError as e:
            raise _fail(
                f"{name}: `{step.name}` uses {e.args[0]}, which no tensor binds", b, where, plan, x_shape
            ) from None
        got = x_shape[axis]
        if got != want and not (step.broadcast and got == 1):
            raise _fail(
                f"{name} has {got} at dim {axis}, expected {step.name} = {want} (spec '{plan.text}')",
                b,
                where,
                plan,
                x_shape,
            )


def check_shapes(
    tensors: Mapping[str, tuple[Any, str]],
    *,
    where: str | None = None,
    bindings: Bindings | None = None,
    refs: Mapping[str, object] | None = None,
) -> Bindings:
    """Check several tensors, sharing dim names: ``check_shapes({"x": (x, "b t d"), "w": (w, "d k")})``."""
    b = bindings if bindings is not None else Bindings()
    if not _ENABLED:
        return b
    pending = []
    for name, (x, spec) in tensors.items():
        plan = compile_spec(spec)
        shape = _match(x, plan, b, name, where)
        if plan.deferred:
            pending.append((shape, plan, name))
    for shape, plan, name in pending:
        _check_exprs(shape, plan, b, name, where, refs or {})
    return b


def check(
    x: Any, spec: str, *, name: str = "tensor", where: str | None = None, bindings: Bindings | None = None
) -> Any:
    """Check one tensor and return it (so it can wrap an expression)."""
    if _ENABLED:
        check_shapes({name: (x, spec)}, where=where, bindings=bindings)
    return x
