"""tensorshape's mypy plugin: ``plugins = ["tensorshape_mypy"]``.

A thin adapter over the tensorshape core (see ``docs/mypy.md``).
"""

from __future__ import annotations

from mypy.plugin import Plugin

from .main import TensorShapePlugin

__all__ = ["plugin", "TensorShapePlugin"]


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point."""
    return TensorShapePlugin
