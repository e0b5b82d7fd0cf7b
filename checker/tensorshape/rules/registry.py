"""The registry of Python rules, by the name stubs give in ``@rule("name")``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..model.values import Value
    from .call import Call

__all__ = ["RuleFn", "rule", "get_rule", "rule_names"]

RuleFn = Callable[["Call"], "Value"]

_RULES: dict[str, RuleFn] = {}


def rule(*names: str) -> Callable[[RuleFn], RuleFn]:
    """Register a Python rule under one or more names."""

    def deco(fn: RuleFn) -> RuleFn:
        for name in names:
            if name in _RULES:
                raise ValueError(f"rule {name!r} registered twice")
            _RULES[name] = fn
        return fn

    return deco


def get_rule(name: str) -> RuleFn | None:
    _load()
    return _RULES.get(name)


def rule_names() -> frozenset[str]:
    _load()
    return frozenset(_RULES)


def _load() -> None:
    from . import ops  # noqa: F401  (registers every rule on import)
