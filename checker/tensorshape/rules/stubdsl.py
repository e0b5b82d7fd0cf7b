"""The decorators of the stub files (``stubs/*.shapes.pyi``), importable so that linters and editors
read a stub file as the Python it is.  The loader (:mod:`tensorshape.rules.stubs`) reads them from the
syntax tree and ignores the imports; called, they return what they decorate."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["kind", "names", "rule"]

T = TypeVar("T")


def _same(target: T) -> T:
    return target


def rule(name: str, **options: object) -> Callable[[T], T]:
    """``@rule("matmul")``: the op is handled by the Python rule of that name (``rules/ops/``)."""
    return _same


def names(*qualnames: str) -> Callable[[T], T]:
    """``@names("add", "sub")``: the same signature under each of these names."""
    return _same


def kind(*kinds: str) -> Callable[[T], T]:
    """``@kind("pointwise")``: families the op belongs to (differential tests, Vollo rules)."""
    return _same
