"""Positions, computed only when needed.

libcst computes positions by generating code for the whole module, which costs
about twice the parse.  During analysis a node's span is a *ticket*: a
:class:`~tensorshape.model.diagnostics.Span` with a negative line number that
indexes a table of nodes.  Only when a result needs real positions (there is a
diagnostic to print, or the LSP asks) does :meth:`SpanTable.resolve` compute
them, and then only for the top-level statement that holds the node: Python's
own (C) parser gives the first line of every top-level statement (and of every
member of a top-level class), and libcst's position codegen runs over that one
statement (or that one method) from there.  The statement is the
one being analysed when the ticket was taken (:attr:`SpanTable.at_statement`), else the
statements are tried in order; the whole-module provider is the fallback when
the two parsers disagree on the statements.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import PositionProvidingCodegenState

from ..model.diagnostics import Span
from .summaries import body_loads, node_ids, statement_index
from .syntax import code_children
from .toplevel import LineScanner, split_lines, statement_starts

__all__ = ["SpanTable", "map_spans"]

T = TypeVar("T")


class SpanTable:
    __slots__ = (
        "module", "_nodes", "_index", "_positions", "_offsets", "_whole", "_source", "_first", "_by_stmt",
        "_hints", "at_statement", "_holders", "_holders_at", "_ast", "_members", "_by_member", "_scan",
        "_partial", "_found", "also_track", "_unit_found", "_ids",
    )  # fmt: skip

    def __init__(self, module: cst.Module, source: str | bytes | None = None, first: list[int] | None = None):
        self.module = module
        self._nodes: list[cst.CSTNode] = []
        self._index: dict[int, int] = {}
        self._positions: dict[cst.CSTNode, object] | None = None
        self._offsets: dict[int, tuple[int, int]] = {}
        #: The ticket of each node's whole span (asked for again on every evaluation).
        self._whole: dict[int, Span] = {}
        #: The module's text (for the first line of each top-level statement); None: whole-module positions.
        self._source = source
        #: The first line of each top-level statement (given when the module was parsed in pieces).
        self._first: list[int] | None = first or None
        #: Positions of the nodes of each top-level statement whose positions were computed, by its index.
        self._by_stmt: dict[int, Mapping[cst.CSTNode, object]] = {}
        #: The top-level statement being analysed when each node's ticket was taken (index; -1: unknown).
        self._hints: list[int] = []
        #: The index of the top-level statement under analysis (set by the analyser; -1: unknown).
        self.at_statement = -1
        #: The top-level statement of each node, by ``id`` (made when a ticket has no statement).
        self._holders: dict[int, int] | None = None
        self._holders_at = 0  # the count of function bodies loaded from summaries when it was made
        #: Python's parse of the module's statements (for the first lines of class members).
        self._ast: list[ast.stmt] = []
        #: Per top-level class: ``(ids of the nodes of each member, first line of each member)``;
        #: ``None`` when Python's parser and libcst disagree on the members.
        self._members: dict[int, tuple[list[frozenset[int]], list[int]] | None] = {}
        #: Positions of the nodes of each class member whose positions were computed.
        self._by_member: dict[tuple[int, int], Mapping[cst.CSTNode, object]] = {}
        #: The line scan of the text: its lines, which of them start outside brackets and strings, and the
        #: line where the code of each top-level statement starts (None: not scanned, or it disagreed).
        self._scan: tuple[list[str], list[bool], list[int]] | None = None
        #: Statements (``("stmt", index)``) and class members (``(index, member)``) whose code was generated
        #: up to one node only (:func:`node_position`).
        self._partial: set[tuple[object, int]] = set()
        #: Positions of nodes computed for a group of tickets (:meth:`_prefetch`), by ``id``.
        self._found: dict[int, object] = {}
        #: Nodes of a :meth:`unit` whose positions a caller will ask for after the analysis (``instrument``'s
        #: insertion points): :meth:`resolve_all` tracks them in the same generation of the unit's code as
        #: the tickets' nodes, and :meth:`unit_positions` gives them from there.  ``None``: no such caller.
        self.also_track: Callable[[tuple[int, int | None]], Iterable[cst.CSTNode]] | None = None
        #: The positions found by those shared generations, by unit.
        self._unit_found: dict[tuple[int, int | None], Mapping[cst.CSTNode, object]] = {}
        #: The ids of the nodes of each top-level statement asked about (:meth:`_holds`), with the count of
        #: function bodies loaded from summaries when they were collected.
        self._ids: dict[int, tuple[int, frozenset[int]]] = {}

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
            self._hints.append(self.at_statement)
            self._index[key] = i
        if start or length:
            return Span(-(i + 1), start, -(i + 1), start + length)
        line = -(i + 1)  # one int object for both ends (a ticket is taken for most nodes)
        whole = self._whole[key] = Span(line, 0, line, -1)
        return whole

    @staticmethod
    def is_ticket(span: Span) -> bool:
        return span.line < 0

    def _provider(self) -> dict[cst.CSTNode, object]:
        if self._positions is None:
            wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
            self._positions = dict(wrapper.resolve(PositionProvider))
        return self._positions

    def _first_lines(self) -> list[int]:
        """The line where the code of each top-level statement starts (its leading comment and blank lines
        included); empty when Python's parser cannot say (then the whole-module provider is used)."""
        if self._first is None:
            self._first = []
            if isinstance(self._source, str):
                # A line scan costs a sixth of Python's parse; the parse decides when the two disagree.
                lines = split_lines(self._source)
                top = LineScanner().starts(lines)
                starts = statement_starts(lines, top)
                first = scanned_first_lines(self.module.body, lines, starts)
                if first is not None:
                    self._scan, self._first = (lines, top, starts), first
            if not self._first and self._source is not None:
                self._ast = python_body(self._source)
                self._first = _first_lines(self.module.body, self._ast) or []
        return self._first

    def _member_lines(self, k: int, stmt: cst.ClassDef, indent: str) -> list[int] | None:
        """The first line of each member of the class that is top-level statement ``k``; ``None`` when
        neither the line scan nor Python's parse can say."""
        assert type(stmt.body) is cst.IndentedBlock
        members = stmt.body.body
        if self._scan is not None:
            lines, top, starts = self._scan
            end = starts[k + 1] if k + 1 < len(starts) else len(lines)
            found = scanned_first_lines(
                members, lines, statement_starts(lines, top, indent, starts[k] + 1, end), indent
            )
            if found is not None:
                return found
            if not self._ast and self._source is not None:
                self._ast = python_body(self._source)
        node_ast = self._ast[_ast_index(self.module.body, k)] if self._ast else None
        return _first_lines(members, node_ast.body) if isinstance(node_ast, ast.ClassDef) else None

    def _statement(self, i: int) -> Mapping[cst.CSTNode, object]:
        found = self._by_stmt.get(i)
        if found is None:
            found = self._by_stmt[i] = statement_positions(self.module, i, self._first_lines()[i])
        return found

    def _in_statement(self, i: int, node: cst.CSTNode) -> object | None:
        """The position of ``node`` in the ``i``-th top-level statement: the first node asked for in a
        statement has the code generated up to its end only, with no position kept for the others
        (most statements have one node reported, or none); a second one has them all computed."""
        if i not in self._by_stmt and ("stmt", i) not in self._partial:
            self._partial.add(("stmt", i))
            found: object | None = node_position(self.module, i, self._first_lines()[i], node)
            if found is not None:
                return found
        return self._statement(i).get(node)

    def _in_member(self, k: int, node: cst.CSTNode) -> object | None:
        """The position of ``node`` when it is inside a member of the class that is top-level statement
        ``k`` (a method): only that member's code is generated, not the whole class."""
        stmt = self.module.body[k]
        if not isinstance(stmt, cst.ClassDef) or type(stmt.body) is not cst.IndentedBlock or k in self._by_stmt:
            return None
        members = self._member_table(k, stmt)
        if members is None:
            return None
        ids, lines = members
        indent = self._indent(stmt)
        key = id(node)
        for j, inside in enumerate(ids):
            if key in inside:
                found = self._by_member.get((k, j))
                if found is None and (k, j) not in self._partial:
                    self._partial.add((k, j))  # the first node asked for in a member: see :meth:`_in_statement`
                    rng: object | None = node_position(self.module, k, lines[j], node, member=j, indent=indent)
                    if rng is not None:
                        return rng
                if found is None:
                    found = self._by_member[(k, j)] = statement_positions(
                        self.module, k, lines[j], member=j, indent=indent
                    )
                return found.get(node)
        return None

    def _indent(self, stmt: cst.ClassDef) -> str:
        assert type(stmt.body) is cst.IndentedBlock
        return self.module.default_indent if stmt.body.indent is None else stmt.body.indent

    def _member_table(self, k: int, stmt: cst.ClassDef) -> tuple[list[frozenset[int]], list[int]] | None:
        """The ids of the nodes of each member of the class that is top-level statement ``k``, and each
        member's first line (``None`` when they are not known)."""
        if k not in self._members:
            assert type(stmt.body) is cst.IndentedBlock
            lines = self._member_lines(k, stmt, self._indent(stmt))
            self._members[k] = ([frozenset(_node_ids(m)) for m in stmt.body.body], lines) if lines else None
        return self._members[k]

    def unit_at(self, line: int) -> tuple[int, int | None]:
        """The top-level statement whose code holds ``line`` (in a top-level class, the member that
        holds it), as :meth:`unit` gives it."""
        first = self._first_lines() if self._positions is None else []
        k = max(bisect.bisect_right(first, line) - 1, 0)
        stmt = self.module.body[k] if first else None
        if isinstance(stmt, cst.ClassDef) and type(stmt.body) is cst.IndentedBlock and k not in self._by_stmt:
            members = self._member_table(k, stmt)
            j = bisect.bisect_right(members[1], line) - 1 if members is not None else -1
            return self.unit(k, j if j >= 0 else None)
        return self.unit(k)

    def unit(self, k: int, member: int | None = None) -> tuple[int, int | None]:
        """``(k, member)``: the ``k``-th top-level statement (with ``member``, that member of its class
        body), a part of the module whose positions can be computed alone; ``member`` is None when the
        member's first line is not known, ``k`` -1 (the whole module) when the statements' are not."""
        if self._positions is not None or not self._first_lines():
            return -1, None
        stmt = self.module.body[k]
        if member is not None and isinstance(stmt, cst.ClassDef) and k not in self._by_stmt:
            if self._member_table(k, stmt) is not None:
                return k, member
        return k, None

    def unit_node(self, unit: tuple[int, int | None]) -> cst.CSTNode:
        """The node of a :meth:`unit`."""
        k, member = unit
        if k < 0:
            return self.module
        stmt = self.module.body[k]
        if member is None:
            return stmt
        assert isinstance(stmt, cst.ClassDef) and type(stmt.body) is cst.IndentedBlock
        return stmt.body.body[member]

    def unit_positions(
        self, unit: tuple[int, int | None], nodes: Iterable[cst.CSTNode]
    ) -> Mapping[cst.CSTNode, object]:
        """The positions of ``nodes`` of a :meth:`unit`, tracked alone in one generation of its code (all
        of its positions when they are known already, or from :meth:`resolve_all`'s generation when it
        tracked them all: see :attr:`also_track`)."""
        k, member = unit
        if k < 0:
            return self._provider()
        shared = self._unit_found.get(unit)
        if shared is not None:
            nodes = list(nodes)
            if all(n in shared for n in nodes):
                return shared
        if member is None:
            if k in self._by_stmt:
                return self._by_stmt[k]
            return nodes_positions(self.module, k, self._first_lines()[k], nodes)
        if (k, member) in self._by_member:
            return self._by_member[(k, member)]
        stmt = self.module.body[k]
        assert isinstance(stmt, cst.ClassDef)
        members = self._member_table(k, stmt)
        assert members is not None
        return nodes_positions(self.module, k, members[1][member], nodes, member=member, indent=self._indent(stmt))

    def _position(self, i: int) -> object | None:
        """The position of the ``i``-th node: from its statement's positions when the statement is known
        (from a class member's when it is in one).  Kept once found: the module's tree does not change,
        and later checked files ask again for the same nodes (an unknown op's example location in a
        module they all import)."""
        node = self._nodes[i]
        found = self._found.get(id(node))
        if found is None:
            found = self._locate(node, i)
            if found is not None:
                self._found[id(node)] = found
        return found

    def _locate(self, node: cst.CSTNode, i: int) -> object | None:
        if self._positions is None and self._first_lines():
            hint = self._statement_of(i)
            if hint >= 0:
                rng = self._in_member(hint, node)
                if rng is not None:
                    return rng
                rng = self._in_statement(hint, node)
                if rng is not None:
                    return rng
            for k in range(len(self.module.body)):
                if k != hint:
                    rng = self._statement(k).get(node)
                    if rng is not None:
                        return rng
        return self._provider().get(node)

    def _statement_of(self, i: int) -> int:
        """The top-level statement holding the ``i``-th node (-1: none found): the one analysed when its
        ticket was taken, if it holds the node, else found by identity."""
        node = self._nodes[i]
        hint = self._hints[i]
        if hint >= 0 and self._holds(hint, node):
            return hint
        # A ticket taken while another statement was analysed (a callee of the same module run from
        # it), or with none: generating the code of statements without the node costs more than a walk.
        return self._holder(node)

    def _holds(self, k: int, node: cst.CSTNode) -> bool:
        """Whether the ``k``-th top-level statement holds ``node`` (its ids are collected again when the
        node is missing and function bodies were loaded since)."""
        loads = body_loads()
        got = self._ids.get(k)
        if got is None or (id(node) not in got[1] and loads != got[0]):
            got = self._ids[k] = (loads, frozenset(node_ids(self.module.body[k])))
        return id(node) in got[1]

    def _holder(self, node: cst.CSTNode) -> int:
        """The top-level statement holding ``node`` (-1: none); the index is made again when a node
        is missing from it and function bodies were loaded since."""
        loads = body_loads()
        if self._holders is None or (id(node) not in self._holders and loads != self._holders_at):
            self._holders, self._holders_at = statement_index(self.module), loads
        return self._holders.get(id(node), -1)

    def resolve(self, span: Span) -> Span:
        """The real span of a ticket (other spans pass through)."""
        if span.line >= 0:
            return span
        rng = self._position(-span.line - 1)
        if rng is None:
            return Span(1, 0, 1, 0)
        start, end = rng.start, rng.end  # type: ignore[attr-defined]
        if span.end_column == -1:
            return Span(start.line, start.column, end.line, end.column)
        # A character range inside a one-line node (a string literal).
        return Span(start.line, start.column + span.column, start.line, start.column + span.end_column)

    def resolve_all(self, items: list[T]) -> list[T]:
        """Resolve the ``span`` (and ``related`` spans) of diagnostics or obligations: the positions of
        the nodes in one statement (class member) come from one generation of its code."""
        tickets: list[int] = []

        def note(span: Span) -> Span:
            if span.line < 0:
                tickets.append(-span.line - 1)
            return span

        map_spans(items, note)
        self._prefetch(tickets)
        return map_spans(items, lambda s: self.resolve(s) if s.line < 0 else s)

    def prefetch_nodes(self, nodes: Iterable[cst.CSTNode]) -> None:
        """Compute the positions of ``nodes`` (of this module) ahead of :meth:`resolve`: one pass per statement
        (class member) holding several of them, as :meth:`resolve_all` does for diagnostics."""
        self._prefetch([-self.ticket(n).line - 1 for n in nodes])

    def _prefetch(self, tickets: list[int]) -> None:
        """Compute the positions of the nodes of ``tickets``, one pass per statement (class member) that
        holds several of them (a single one is found by :meth:`_position` as cheaply), or that holds one
        when :attr:`also_track` adds the nodes a later caller needs there."""
        if self._positions is not None or not self._first_lines():
            return
        groups: dict[tuple[int, int | None], dict[int, cst.CSTNode]] = {}
        for i in tickets:
            node = self._nodes[i]
            if id(node) in self._found:
                continue
            k = self._statement_of(i)
            if k < 0 or k in self._by_stmt:
                continue
            stmt = self.module.body[k]
            j = None
            if isinstance(stmt, cst.ClassDef) and type(stmt.body) is cst.IndentedBlock:
                members = self._member_table(k, stmt)
                j = next((j for j, ids in enumerate(members[0]) if id(node) in ids), None) if members else None
                if (k, j) in self._by_member:
                    continue
            groups.setdefault((k, j), {})[id(node)] = node
        also = self.also_track
        for unit, nodes in groups.items():
            if also is not None:
                found = self.unit_positions(unit, [*nodes.values(), *also(unit)])
                self._unit_found[unit] = found
            elif len(nodes) > 1:
                found = self.unit_positions(unit, nodes.values())
            else:
                continue
            self._found.update((id(n), r) for n, r in found.items() if id(n) in nodes)


def python_body(source: str | bytes) -> list[ast.stmt]:
    """Python's own parse of the module's top-level statements (empty when it cannot parse it)."""
    try:
        return ast.parse(source).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []


def first_lines(module: cst.Module, source: str | bytes) -> list[int]:
    """The first line of the code of each of ``module``'s top-level statements, found by Python's parser;
    empty when it parses the text differently (or not at all)."""
    return _first_lines(module.body, python_body(source)) or []


def _first_lines(stmts: Sequence[cst.BaseStatement], body: Sequence[ast.stmt]) -> list[int] | None:
    """The first line of the code of each of libcst's ``stmts`` (a module's or a class's), from Python's
    ``body`` of the same statements; ``None`` when the two disagree."""
    out: list[int] = []
    i = 0
    for stmt in stmts:
        if i >= len(body):
            return None
        node = body[i]
        lead = len(getattr(stmt, "leading_lines", ()))
        if type(stmt) is cst.SimpleStatementLine:
            line = node.lineno
            i += len(stmt.body)
        else:
            decorators: Sequence[cst.Decorator] = getattr(stmt, "decorators", ())
            decorated: Sequence[ast.expr] = getattr(node, "decorator_list", ())
            if len(decorators) != len(decorated):
                return None
            # A decorator's ``@`` is on the line its expression starts on.
            line = decorated[0].lineno - len(decorators[0].leading_lines) if decorators else node.lineno
            i += 1
        out.append(line - lead)
    return out if i == len(body) and out else None


#: The words a compound statement's first line starts with (after its decorators).
_OPENS: dict[type, tuple[str, ...]] = {
    cst.FunctionDef: ("def", "async"), cst.ClassDef: ("class",), cst.If: ("if",), cst.For: ("for", "async"),
    cst.While: ("while",), cst.With: ("with", "async"), cst.Try: ("try",), cst.TryStar: ("try",),
    cst.Match: ("match",),
}  # fmt: skip


def scanned_first_lines(
    stmts: Sequence[cst.BaseStatement], lines: list[str], starts: list[int], indent: str = ""
) -> list[int] | None:
    """The first line (1-based, leading comment and blank lines included) of each of ``stmts``, from the
    lines where the line scan found their code starts (:func:`.toplevel.statement_starts`); ``None``
    when the scan disagrees with libcst's statements (an odd f-string can mislead it)."""
    if len(starts) != len(stmts):
        return None
    out = []
    n = len(indent)
    for at, stmt in zip(starts, stmts):
        decorators: Sequence[cst.Decorator] = getattr(stmt, "decorators", ())
        text = lines[at][n:]
        opens = _OPENS.get(type(stmt))
        if decorators:
            if not text.startswith("@"):
                return None
        elif opens is not None and not text.startswith(opens):
            return None
        lead = len(getattr(stmt, "leading_lines", ())) + (len(decorators[0].leading_lines) if decorators else 0)
        out.append(at + 1 - lead)
    return out


def _ast_index(stmts: Sequence[cst.BaseStatement], k: int) -> int:
    """The index in Python's body of libcst's ``k``-th statement (a line of ``a; b`` is several)."""
    return sum(len(s.body) if type(s) is cst.SimpleStatementLine else 1 for s in stmts[:k])


def _node_ids(node: cst.CSTNode) -> list[int]:
    """The ids of ``node`` and of every code node under it (layout nodes are never given tickets; one
    that was would be found by the whole statement's positions)."""
    out: list[int] = []
    todo = [node]
    while todo:
        n = todo.pop()
        out.append(id(n))
        todo.extend(code_children(n))
    return out


def statement_positions(
    module: cst.Module, index: int, first_line: int, member: int | None = None, indent: str = ""
) -> Mapping[cst.CSTNode, object]:
    """libcst's positions of the nodes of ``module``'s ``index``-th statement, whose code starts on
    ``first_line`` (at column 0, as every top-level statement does); with ``member``, of that member
    of the statement's class body only, whose code starts on ``first_line`` indented by ``indent``."""
    provider = PositionProvider()
    _generate(module, index, member, indent, PositionProvidingCodegenState, provider=provider, line=first_line)
    return provider._computed


def _generate(
    module: cst.Module, index: int, member: int | None, indent: str, make: Callable[..., T], **fields: Any
) -> T:
    """Generate the code of ``module``'s ``index``-th statement (of its class's ``member`` only, indented
    by ``indent``) into the codegen state ``make(**fields)`` makes; the state."""
    state: Any = make(default_indent=module.default_indent, default_newline=module.default_newline, **fields)
    stmt = module.body[index]
    if member is None:
        stmt._codegen(state)
    else:
        assert isinstance(stmt, cst.ClassDef) and type(stmt.body) is cst.IndentedBlock
        state.increase_indent(indent)
        stmt.body.body[member]._codegen(state)
    return state  # type: ignore[no-any-return]


class _Done(Exception):
    """The code was generated up to the end of the last node whose position was asked for."""


class _NoRecord:
    """The context of :meth:`_NodesState.record_syntactic_position` for every other node: nothing."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


_NO_RECORD = _NoRecord()


class _Record:
    """:meth:`PositionProvidingCodegenState.record_syntactic_position` for a node tracked: its range,
    from the ends of ``start_node`` and ``end_node`` when libcst takes them from there."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(
        self, state: _NodesState, node: cst.CSTNode, start_node: cst.CSTNode | None, end_node: cst.CSTNode | None
    ) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node
        self.start: CodePosition | None = None

    def __enter__(self) -> None:
        self.start = self.state.here()

    def __exit__(self, *exc: object) -> None:
        if exc[0] is not None:
            return
        found = self.state.found
        start = found[self.start_node].start if self.start_node is not None else self.start
        end = found[self.end_node].end if self.end_node is not None else self.state.here()
        assert start is not None
        found[self.node] = CodeRange(start, end)


class _NodesState(PositionProvidingCodegenState):
    """libcst's position codegen for some nodes only: the tokens are only collected, and turned into a
    line and column where a tracked node starts and ends (``PositionProvidingCodegenState`` updates the
    position after every token and keeps a range for every node, which costs ten times the code
    generation); generation stops at the end of the last tracked node.  A node whose range libcst takes
    from its children's (a compound statement's ends at its body's end) has those children tracked too."""

    __slots__ = ("targets", "found", "_at", "_starts", "_left")

    def __init__(self, *, targets: Iterable[cst.CSTNode], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.targets = {id(n) for n in targets}
        self.found: dict[cst.CSTNode, CodeRange] = {}
        self._at = 0  # tokens counted into ``line``/``column`` so far
        self._starts: dict[int, CodePosition] = {}
        self._left = len(self.targets)

    def add_indent_tokens(self) -> None:
        self.tokens.extend(self.indent_tokens)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)

    def here(self) -> CodePosition:
        """The position after the tokens so far (counted as ``_update_position`` does, token by token)."""
        tokens = self.tokens
        for k in range(self._at, len(tokens)):
            self._update_position(tokens[k])
        self._at = len(tokens)
        return CodePosition(self.line, self.column)

    def _track(self, node: cst.CSTNode | None) -> None:
        if node is not None and id(node) not in self.targets:
            self.targets.add(id(node))
            self._left += 1

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.targets:
            self._starts[id(node)] = self.here()

    def after_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.targets:
            start = self._starts.pop(id(node))
            if node not in self.found:  # a position recorded for the node itself stands (as in libcst)
                self.found[node] = CodeRange(start, self.here())
            self._left -= 1
            if not self._left:
                raise _Done

    def record_syntactic_position(
        self, node: cst.CSTNode, *, start_node: cst.CSTNode | None = None, end_node: cst.CSTNode | None = None
    ) -> Any:
        if id(node) in self.targets:
            self._track(start_node)
            self._track(end_node)
            return _Record(self, node, start_node, end_node)
        return _NO_RECORD


def nodes_positions(
    module: cst.Module,
    index: int,
    first_line: int,
    nodes: Iterable[cst.CSTNode],
    member: int | None = None,
    indent: str = "",
) -> dict[cst.CSTNode, CodeRange]:
    """libcst's positions of those of ``nodes`` that are in ``module``'s ``index``-th statement (in
    that member of its class), as :func:`statement_positions` gives them, from one generation of its
    code that tracks these nodes only and stops at the end of the last one."""
    nodes = list(nodes)
    state = _NodesState(
        targets=nodes, provider=None, line=first_line,
        default_indent=module.default_indent, default_newline=module.default_newline,
    )  # fmt: skip
    try:
        _generate(module, index, member, indent, lambda **_: state)
    except _Done:
        pass
    return {n: state.found[n] for n in nodes if n in state.found}


def node_position(
    module: cst.Module, index: int, first_line: int, node: cst.CSTNode, member: int | None = None, indent: str = ""
) -> CodeRange | None:
    """libcst's position of ``node`` (as :func:`statement_positions` gives it), generating the code of
    the statement (or class member) only up to the node's end; None when the node is not in it."""
    return nodes_positions(module, index, first_line, (node,), member, indent).get(node)


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
