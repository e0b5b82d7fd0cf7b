"""Positions, computed only when needed.

libcst computes positions by generating code for the whole module, which costs
about twice the parse.  During analysis a node's span is a *ticket*: a
:class:`~tensorshape.model.diagnostics.Span` with a negative line number that
indexes a table of nodes.  Only when a result needs real positions (there is a
diagnostic to print, or the LSP asks) does :meth:`SpanTable.resolve` run the
position provider, once per file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..model.diagnostics import Span

__all__ = ["SpanTable", "map_spans"]

T = TypeVar("T")


class SpanTable:
    __slots__ = ("module", "_nodes", "_index", "_positions", "_offsets", "_whole")

    def __init__(self, module: cst.Module):
        self.module = module
        self._nodes: list[cst.CSTNode] = []
        self._index: dict[int, int] = {}
        self._positions: dict[cst.CSTNode, object] | None = None
        self._offsets: dict[int, tuple[int, int]] = {}
        #: The ticket of each node's whole span (asked for again on every evaluation).
        self._whole: dict[int, Span] = {}

    def ticket(self, node: cst.CSTNode, start: int = 0, length: int = 0) -> Span:
        """A placeholder span for ``node`` (optionally a character range inside it)."""
        key = id(node)
        if not (start or length):
            whole = self._whole.get(key)
            if whole is not None:
                return whole
        i = self._index.get(key)
        if i is None:
            i = len(self._nodes)
            self._nodes.append(node)
            self._index[key] = i
        if start or length:
            return Span(-(i + 1), start, -(i + 1), start + length)
        whole = self._whole[key] = Span(-(i + 1), 0, -(i + 1), -1)
        return whole

    @staticmethod
    def is_ticket(span: Span) -> bool:
        return span.line < 0

    def _provider(self) -> dict[cst.CSTNode, object]:
        if self._positions is None:
            wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
            self._positions = dict(wrapper.resolve(PositionProvider))
        return self._positions

    def resolve(self, span: Span) -> Span:
        """The real span of a ticket (other spans pass through)."""
        if span.line >= 0:
            return span
        node = self._nodes[-span.line - 1]
        rng = self._provider().get(node)
        if rng is None:
            return Span(1, 0, 1, 0)
        start, end = rng.start, rng.end  # type: ignore[attr-defined]
        if span.end_column == -1:
            return Span(start.line, start.column, end.line, end.column)
        # A character range inside a one-line node (a string literal).
        return Span(start.line, start.column + span.column, start.line, start.column + span.end_column)

    def resolve_all(self, items: list[T]) -> list[T]:
        """Resolve the ``span`` (and ``related`` spans) of diagnostics or obligations."""
        return map_spans(items, lambda s: self.resolve(s) if s.line < 0 else s)


def map_spans(items: list[T], fn: Callable[[Span], Span]) -> list[T]:
    """``items`` (diagnostics or obligations) with ``fn`` applied to their ``span``, ``related`` and
    ``checks`` spans (an item comes back as is when ``fn`` changes none of them)."""
    out = []
    for it in items:
        kw: dict[str, object] = {}
        span = getattr(it, "span", None)
        if isinstance(span, Span):
            new = fn(span)
            if new != span:
                kw["span"] = new
        related = getattr(it, "related", None)
        if related:
            rel = tuple(replace(r, span=fn(r.span)) for r in related)
            if rel != related:
                kw["related"] = rel
        checks = getattr(it, "checks", None)
        if checks:
            chk = tuple(replace(c, span=fn(c.span)) if c.span is not None else c for c in checks)
            if chk != checks:
                kw["checks"] = chk
        out.append(replace(it, **kw) if kw else it)  # type: ignore[type-var]
    return out
