"""tensorshape's mypy plugin: ``plugins = ["tensorshape_mypy"]``.

A thin adapter over the tensorshape core (see ``docs/mypy.md``).  Importing the package imports
neither mypy nor the analysis: the worker process (:mod:`tensorshape_mypy.worker`) needs only the
analysis, and mypy's process only the plugin (:mod:`tensorshape_mypy.main`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy.plugin import Plugin

    from .main import TensorShapePlugin

__all__ = ["plugin", "TensorShapePlugin"]


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point."""
    from .main import TensorShapePlugin

    return TensorShapePlugin


def __getattr__(name: str) -> Any:
    if name == "TensorShapePlugin":
        from .main import TensorShapePlugin

        return TensorShapePlugin
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
