"""Hover shows, next to a function's own view of an expression, the shapes it had under its callers'
sizes (issue 15): ``[b 64]`` in ``head`` is ``[16 64]`` when ``main`` calls it."""

from __future__ import annotations

from tensorshape.infer.api import CheckSettings
from tensorshape.infer.project import Project
from tensorshape.lsp.analysis import ShapeAt, analyse

SOURCE = """import torch
import torch.nn as nn


def head(x, width):
    h = nn.Linear(x.shape[-1], width)(x)
    return h


def main():
    head(torch.randn(16, 32), 64)
    head(torch.randn(4, 8), 10)
"""


def _at(shapes: list[ShapeAt], line: int, target: str) -> ShapeAt:
    return next(s for s in shapes if s.span.line == line and s.target == target)


def test_hover_lists_the_shapes_under_callers_sizes() -> None:
    a = analyse(SOURCE, "views.py", CheckSettings(), 1, [], Project())
    h = _at(a.shapes, 6, "h")
    assert h.shape not in h.views  # the function's own view (its parameters' sizes are not known)
    assert set(h.views) == {"[16 64]", "[4 10]"}
    assert h.hover_text() == f"shape `{h.shape}`; with a caller's sizes: " + ", ".join(f"`{v}`" for v in h.views)


def test_hover_without_callers_is_the_shape_alone() -> None:
    a = analyse("import torch\nx = torch.zeros(2, 3)\n", "plain.py", CheckSettings(), 1, [], Project())
    x = _at(a.shapes, 2, "x")
    assert x.views == ()
    assert x.hover_text() == "shape `[2 3]`"
