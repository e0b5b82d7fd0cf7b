"""A chunk's outline: its text with function bodies cut out, and the bodies.

When an edit changes only function bodies (the outline is the same), the
module-level values the chunk defines are the same too, and only analyses that
executed one of the changed bodies can change (:mod:`.recording` notes which
bodies each analysis executed).  Bodies are numbered in the order their
``def`` appears: top-level functions and methods (of nested classes too).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from .chunks import Chunk, split_lines

__all__ = ["Outline", "outline", "defs"]


@dataclass(frozen=True, slots=True)
class Outline:
    #: The text without the bodies of :attr:`defs`.
    interface: str
    #: Functions whose bodies are cut out, in order.
    defs: tuple[cst.FunctionDef, ...]
    bodies: tuple[str, ...]


def defs(chunk: Chunk) -> list[cst.FunctionDef]:
    """The functions whose bodies an outline cuts out, in order."""
    out: list[cst.FunctionDef] = []
    if chunk.tree is not None:
        _defs(chunk.tree, out)
    return out


def _defs(body: object, out: list[cst.FunctionDef]) -> None:
    for stmt in getattr(body, "body", ()):
        if isinstance(stmt, cst.FunctionDef):
            out.append(stmt)
        elif isinstance(stmt, cst.ClassDef):
            _defs(stmt.body, out)


def outline(chunk: Chunk, functions: list[cst.FunctionDef]) -> Outline:
    """The chunk's outline (``functions``: its :func:`defs`; their bodies' positions are computed if they were not)."""
    if not functions:
        return Outline(chunk.text, (), ())
    starts = [0]
    for line in split_lines(chunk.text):
        starts.append(starts[-1] + len(line))

    def offset(line: int, column: int) -> int:
        return starts[min(line - 1, len(starts) - 1)] + column

    pieces, bodies = [], []
    pos = 0
    found = chunk.positions_of(d.body for d in functions)
    for d in functions:
        rng = found.get(d.body)
        if rng is None:
            return Outline(chunk.text, (), ())
        a, b = offset(rng.start.line, rng.start.column), offset(rng.end.line, rng.end.column)
        pieces.append(chunk.text[pos:a])
        bodies.append(chunk.text[a:b])
        pos = b
    pieces.append(chunk.text[pos:])
    return Outline("\0".join(pieces), tuple(functions), tuple(bodies))
