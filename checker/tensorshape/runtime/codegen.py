"""Generate a specialised checking wrapper for a decorated function.

For the common specs (fixed sizes, names, ``_``, ``*batch``/``...``) the
checks become straight-line Python over the shape tuples with dim names as
local variables: as cheap as a hand-written ``assert``.  When a check fails,
the generic checker runs again to build the message with every binding.
Specs with expressions, ``#`` or ``{refs}`` use the generic path.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Sequence
from typing import Any

from .plan import FIXED, NAME, RUN, SKIP, Plan

__all__ = ["fast_wrapper", "ArgPlan"]

#: A checked parameter: its positional index (``None``: keyword-only), its name, its plan.
ArgPlan = tuple["int | None", str, Plan]


def _supported(plan: Plan) -> bool:
    steps = plan.before + plan.after + ((plan.run,) if plan.run is not None else ())
    return not plan.deferred and all(
        not s.broadcast and s.kind in (FIXED, NAME, SKIP, RUN) and (s.name is None or s.name.isidentifier())
        for s in steps
    )


def _var(name: str) -> str:
    return f"d_{name}" if not keyword.iskeyword(name) else f"d_{name}_"


def _emit(lines: list[str], value: str, plan: Plan, bound: set[str], indent: str) -> None:
    nb, na = len(plan.before), len(plan.after)
    lines.append(f"{indent}s = {value}.shape")
    if plan.run is None:
        lines.append(f"{indent}if len(s) != {nb}: raise _Fail")
    else:
        lines.append(f"{indent}if len(s) < {nb + na}: raise _Fail")
    for i, step in enumerate(plan.before):
        _emit_dim(lines, step.kind, step.size, step.name, f"s[{i}]", bound, indent)
    if plan.run is not None and plan.run.name is not None:
        var = _var("_run_" + plan.run.name)
        sl = f"s[{nb}:len(s) - {na}]" if na else f"s[{nb}:]"
        if var in bound:
            lines.append(f"{indent}if {sl} != {var}: raise _Fail")
        else:
            lines.append(f"{indent}{var} = {sl}")
            bound.add(var)
    for j, step in enumerate(plan.after):
        _emit_dim(lines, step.kind, step.size, step.name, f"s[{j - na}]", bound, indent)


def _emit_dim(lines: list[str], kind: int, size: int, name: str | None, at: str, bound: set[str], indent: str) -> None:
    if kind == FIXED:
        lines.append(f"{indent}if {at} != {size}: raise _Fail")
    elif kind == NAME:
        assert name is not None
        var = _var(name)
        if var in bound:
            lines.append(f"{indent}if {at} != {var}: raise _Fail")
        else:
            lines.append(f"{indent}{var} = {at}")
            bound.add(var)


def fast_wrapper(
    fn: Callable[..., Any],
    arg_plans: Sequence[ArgPlan],
    ret_plan: Plan | None,
    state: Any,
    slow: Callable[..., Any],
    is_async: bool = False,
) -> Callable[..., Any] | None:
    """A wrapper with the checks inlined, or ``None`` when a spec needs the generic checker.

    ``arg_plans``: (positional index, or ``None`` for a keyword-only parameter; name; plan).
    ``is_async``: ``fn`` is a coroutine function, whose awaited result is checked.
    """
    if not all(_supported(p) for _, _, p in arg_plans) or (ret_plan is not None and not _supported(ret_plan)):
        return None
    call = "await fn(*args, **kwargs)" if is_async else "fn(*args, **kwargs)"
    lines = [
        f"{'async ' if is_async else ''}def wrapper(*args, **kwargs):",
        "    if not _state._ENABLED:",
        f"        return {call}",
    ]
    lines.append("    try:")
    lines.append("        pass")
    bound: set[str] = set()
    for i, name, plan in arg_plans:
        if i is None:
            lines.append(f"        v = kwargs.get({name!r})")
        else:
            lines.append(f"        v = args[{i}] if len(args) > {i} else kwargs.get({name!r})")
        lines.append("        if v is not None:")
        _emit(lines, "v", plan, bound, "            ")
    lines.append("    except (_Fail, AttributeError):")
    lines.append("        _slow(args, kwargs, None)")
    lines.append("        raise")
    lines.append(f"    out = {call}")
    if ret_plan is not None:
        lines.append("    try:")
        # Names first bound inside an optional argument's block may be unset: fall back to the slow path.
        _emit(lines, "out", ret_plan, bound, "        ")
        lines.append("    except (_Fail, AttributeError, NameError, UnboundLocalError):")
        lines.append("        _slow(args, kwargs, out)")
        lines.append("        raise")
    lines.append("    return out")
    ns: dict[str, Any] = {"fn": fn, "_state": state, "_slow": slow, "_Fail": _Fail}
    exec(compile("\n".join(lines), f"<tensorshape check of {getattr(fn, '__qualname__', 'function')}>", "exec"), ns)  # noqa: S102
    wrapper: Callable[..., Any] = ns["wrapper"]
    return wrapper


class _Fail(Exception):
    """A fast check failed: the generic checker runs again to explain it."""
