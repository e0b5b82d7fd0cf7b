"""Positions that survive edits: spans relative to a chunk, mapped to document lines when reported.

A *chunk span* has line ``chunk.uid * STRIDE + line within the chunk``: it does
not change when lines are inserted above the chunk, so results computed for an
earlier version of the document stay valid.  :func:`to_document` turns chunk
spans into document spans with the chunks' current first lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

import libcst as cst

from ..infer.spans import SpanTable, map_spans
from ..model.diagnostics import Span
from .chunks import Chunk

__all__ = ["STRIDE", "ChunkSpans", "to_document", "chunk_uids", "chunk_span"]

#: Lines per chunk in chunk spans (more than any document has).
STRIDE = 10_000_000

T = TypeVar("T")


class ChunkSpans(SpanTable):
    """A span table over a module assembled from chunks: resolves tickets to chunk spans."""

    __slots__ = ("_chunks", "hint")

    def __init__(self, module: cst.Module, chunks: Sequence[Chunk]):
        super().__init__(module)
        self._chunks = chunks
        #: The chunk being analysed: most nodes a ticket names are in it.
        self.hint: Chunk | None = None

    def retarget(self, chunks: Sequence[Chunk]) -> None:
        """Serve a new version of the document whose chunks hold the same nodes (bodies replaced in place)."""
        self._chunks = chunks
        self.hint = None

    def node_of(self, span: Span) -> cst.CSTNode | None:
        """The node a ticket stands for."""
        return self._nodes[-span.line - 1] if span.line < 0 else None

    def locate(self, node: cst.CSTNode) -> Span | None:
        """The node's chunk span."""
        chunk = self.chunk_of(node)
        return chunk_span(chunk, node) if chunk is not None else None

    def chunk_of(self, node: cst.CSTNode) -> Chunk | None:
        """The chunk whose span :meth:`locate` gives, found without computing positions where it can be;
        the node is noted as wanted there (an observed expression's position is asked for on hover)."""
        order: list[Chunk] = [self.hint, *self._chunks] if self.hint is not None else list(self._chunks)
        key = id(node)
        for chunk in order:
            if key in chunk.node_ids:
                chunk.want((node,))
                return chunk
        for chunk in order:  # a node of a layout field: by positions, as ``locate``
            if node in chunk.positions:
                return chunk
        return None

    def _prefetch(self, tickets: list[int]) -> None:
        """Note the nodes of ``tickets`` as wanted in their chunks: each chunk places them in one pass."""
        for i in tickets:
            self.chunk_of(self._nodes[i])

    def resolve(self, span: Span) -> Span:
        node = self.node_of(span)
        if node is None:
            return span
        where = self.locate(node)
        if where is None:
            return Span(1, 0, 1, 0)
        if span.end_column == -1:
            return where
        return Span(where.line, where.column + span.column, where.line, where.column + span.end_column)


def chunk_span(chunk: Chunk, node: cst.CSTNode) -> Span | None:
    """A node's chunk span, if it is in ``chunk``."""
    rng = chunk.position(node)
    if rng is None:
        return None
    base = chunk.uid * STRIDE
    return Span(base + rng.start.line, rng.start.column, base + rng.end.line, rng.end.column)


def chunk_uids(items: Iterable[object]) -> set[int]:
    """The chunks (by uid) that the chunk spans of diagnostics or obligations point into."""
    out: set[int] = set()

    def note(s: Span) -> Span:
        if s.line >= STRIDE:
            out.add(s.line // STRIDE)
        return s

    map_spans(list(items), note)
    return out


def to_document(items: list[T], first_lines: Mapping[int, int]) -> list[T]:
    """Chunk spans as document spans; ``first_lines`` maps a chunk's uid to its first line (0-based)."""

    def move(s: Span) -> Span:
        if s.line < STRIDE:
            return s
        uid = s.line // STRIDE
        delta = first_lines[uid] - uid * STRIDE
        return Span(s.line + delta, s.column, s.end_line + delta, s.end_column)

    return map_spans(items, move)
