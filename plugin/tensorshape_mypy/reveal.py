"""``reveal_type(x)`` shows the shape the core analysis found: ``Revealed type is "torch._tensor.Tensor[b, 3]"``.

mypy special-cases ``reveal_type`` (no plugin hook sees the call) and formats
the note itself.  Once the module is checked, the plugin finds each
``reveal_type(...)`` call in the core's syntax tree of the same file, mypy's
note at the revealed expression, and writes into the note the shapes of the
tensors the core's analysis observed for that expression (its value at that
line; a tensor inside a list or tuple display is found through the display's
items).  A note is changed only when every unshaped ``torch._tensor.Tensor``
in mypy's text is matched with one of the core's tensors.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import libcst as cst
from mypy.errors import ErrorInfo, Errors
from tensorshape.infer.api import FileResult
from tensorshape.infer.spans import SpanTable
from tensorshape.lang.render import render_dim
from tensorshape.model.values import TensorV

__all__ = ["rewrite_reveals"]

PREFIX = 'Revealed type is "'
_TENSOR = re.compile(r"torch\._tensor\.Tensor(?!\[)")


class _Reveals(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.BaseExpression] = []

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "reveal_type" and len(node.args) == 1:
            self.found.append(node.args[0].value)


def rewrite_reveals(errors: Errors, path: str, result: FileResult) -> None:
    """Put the core's shapes into mypy's ``Revealed type is "..."`` notes of the file at ``path``."""
    an, info = result.analyzer, result.module
    if an is None or info is None or info.tree is None or info.spans is None or "reveal_type" not in info.source:
        return
    infos = errors.error_info_map.get(path) or []
    notes = {(i.line, i.column): i for i in infos if i.severity == "note" and i.message.startswith(PREFIX)}
    if not notes:
        return
    walk = _Reveals()
    info.tree.visit(walk)
    observed = {id(node): value for node, value in an.observations}
    for e in walk.found:
        note = _note_at(notes, info.spans, e)
        if note is None:
            continue
        values = list(_values(e, observed))
        if not values or len(_TENSOR.findall(note.message)) != len(values) or all(v is None for v in values):
            continue
        note.message = _fill(note.message, values)


def _note_at(notes: dict[tuple[int, int], ErrorInfo], spans: SpanTable, e: cst.BaseExpression) -> ErrorInfo | None:
    s = spans.resolve(spans.ticket(e))
    # A parenthesized expression (a tuple display): mypy starts it at the first parenthesis.
    for shift in range(len(e.lpar) + 1):
        note = notes.get((s.line, s.column - shift))
        if note is not None:
            return note
    return None


def _fill(message: str, values: list[TensorV | None]) -> str:
    """``message`` with each unshaped tensor type given its value's shape, in order."""
    it = iter(values)
    return _TENSOR.sub(lambda m: _render(m.group(0), next(it)), message)


def _render(text: str, v: TensorV | None) -> str:
    if v is None or v.shape.is_unknown:
        return text
    return f"{text}[{', '.join(render_dim(d) for d in v.shape.items) or '()'}]"


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
