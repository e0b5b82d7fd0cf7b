"""The shape function users get from :func:`~tensorshape.shapefn.derive`: the data, and its emitters."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .emit_json import to_json
from .emit_python import emit
from .model import ShapeFunctionData

__all__ = ["ShapeFunction"]


@dataclass(frozen=True, slots=True)
class ShapeFunction(ShapeFunctionData):
    """A derived shape function, with its Python and JSON forms."""

    def python_source(self) -> str:
        return emit(self)

    def to_json(self) -> dict[str, Any]:
        return to_json(self)

    def compile(self) -> Callable[..., Any]:
        """The emitted Python function, ready to call: ``fn(x_shape, ..., n=3)``."""
        namespace: dict[str, Any] = {}
        exec(compile(self.python_source(), f"<shapefn {self.qualname}>", "exec"), namespace)  # noqa: S102
        fn: Callable[..., Any] = namespace[self.name]
        return fn
