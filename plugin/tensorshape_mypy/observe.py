"""What ``reveal_type(x)`` should show, found where the analysis ran (the worker or mypy's process).

For each ``reveal_type(...)`` call of the core's syntax tree, the shapes of the tensors the
analysis observed for the revealed expression (its value at that line; a tensor inside a list or
tuple display is found through the display's items), rendered as mypy shows a type's arguments.
:mod:`tensorshape_mypy.reveal` writes them into mypy's notes.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from tensorshape.infer.api import FileResult
from tensorshape.lang.render import render_dim
from tensorshape.model.values import TensorV

__all__ = ["Reveal", "find_reveals"]

#: (line, column, parentheses before the expression, each tensor's shape: ``"b, 3"``, ``"()"`` for a
#: 0-d tensor, ``None`` when unknown), for one ``reveal_type`` call.
Reveal = tuple[int, int, int, tuple[str | None, ...]]


class _Reveals(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.BaseExpression] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "reveal_type" and len(node.args) == 1:
            self.found.append(node.args[0].value)


def find_reveals(result: FileResult) -> list[Reveal]:
    """The shapes for each ``reveal_type`` call of the analysed file (none without such a call)."""
    an, info = result.analyzer, result.module
    if an is None or info is None or info.tree is None or info.spans is None or "reveal_type" not in info.source:
        return []
    walk = _Reveals()
    info.tree.visit(walk)
    observed = {id(node): value for node, value in an.observations}
    out: list[Reveal] = []
    for e in walk.found:
        s = info.spans.resolve(info.spans.ticket(e))
        shapes = tuple(_render(v) for v in _values(e, observed))
        if shapes and any(x is not None for x in shapes):
            out.append((s.line, s.column, len(e.lpar), shapes))
    return out


def _render(v: TensorV | None) -> str | None:
    if v is None or v.shape.is_unknown:
        return None
    return ", ".join(render_dim(d) for d in v.shape.items) or "()"


def _values(e: cst.BaseExpression, observed: dict[int, TensorV]) -> Iterator[TensorV | None]:
    """The core's tensors for the unshaped tensors mypy prints for ``e``, in order."""
    if isinstance(e, cst.Tuple):
        # Items that are not tensors are not in mypy's count of tensors either.
        for el in e.elements:
            if isinstance(el.value, (cst.Tuple, cst.List)) or id(el.value) in observed:
                yield from _values(el.value, observed)
        return
    if isinstance(e, cst.List):
        items = [v for el in e.elements for v in _values(el.value, observed)]
        first = items[0] if items else None
        yield first if first is not None and all(v is not None and v.shape == first.shape for v in items) else None
        return
    yield observed.get(id(e))
