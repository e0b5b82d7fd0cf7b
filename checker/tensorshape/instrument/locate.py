"""Where a check can go, found on libcst nodes (never by counting text lines).

For every statement: its position, its parent statement, whether a line can be
inserted before it, the parts whose evaluation a check before the statement
reproduces (an ``if``'s test, a ``for``'s iterable, ...), the parts evaluated
only under a condition or later (lambda bodies, comprehensions, ``a if c else
b``, the right of ``and``/``or``, an ``elif``'s test) and the names bound inside
the statement itself (``:=``, ``with ... as``).  For every function: the line of
its ``def`` keyword and whether its annotations are shape annotations the
runtime can read.

Nothing is computed for the whole module: the statements are collected per top-level
statement (per member of a top-level class), the first time a check is placed in it, by a
read-only walk of its nodes (libcst's visitors rebuild every node), with the positions of the
nodes used here only, from one generation of that statement's code by the analysis's span
table (:meth:`~tensorshape.infer.spans.SpanTable.unit_positions`).  With :meth:`Located.needed`
as the table's :attr:`~tensorshape.infer.spans.SpanTable.also_track`, that generation is the one
that resolves the obligations' spans there: each statement's code is generated once, not twice.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodePosition, CodeRange

from ..infer.spans import SpanTable
from ..infer.syntax import code_children
from ..lang.parse import parse_shape
from ..runtime.annotations import spec_in_text

__all__ = ["Statement", "FunctionSite", "Site", "locate", "line_breaks"]

Pos = tuple[int, int]
_BREAK = re.compile(r"\r\n|\r|\n")


def line_breaks(text: str) -> int:
    """Line breaks as Python counts them (``\\r\\n``, ``\\r``, ``\\n``; not ``\\x0c``, ``\\x85``, U+2028...)."""
    return len(_BREAK.findall(text))


@dataclass(slots=True)
class Statement:
    start: Pos
    end: Pos
    parent: int
    #: A direct child of a module or an indented block (so it starts a line of its own).
    in_block: bool
    #: Ranges a check placed before the statement evaluates exactly as the statement does.
    hoistable: list[tuple[Pos, Pos]] = field(default_factory=list)
    #: Ranges evaluated conditionally, repeatedly or later (lambda, comprehension, ``if``-expression...).
    deferred: list[tuple[Pos, Pos]] = field(default_factory=list)
    #: Names the statement binds while it runs (``:=``, ``with ... as``).
    binds: set[str] = field(default_factory=set)
    #: For a ``def``: its index in the function list.
    function: int = -1


@dataclass(frozen=True, slots=True)
class FunctionSite:
    name: str
    #: The line of the ``def`` keyword (our decorator goes right above it).
    def_line: int
    start: int
    end: int
    #: Some parameter or the return has a shape annotation with a literal spec.
    annotated: bool
    #: Why ``@shapecheck`` cannot go on it (a spec the runtime would reject), else ``None``.
    unusable: str | None
    #: The source of its decorators, one a line.
    wrapped_by: str = ""


@dataclass(frozen=True, slots=True)
class Site:
    """Where an obligation's check goes: before ``line`` (``None``: nowhere, ``why`` says so)."""

    line: int | None
    why: str = ""
    #: The statement's first column on that line.
    column: int = 0
    #: Names bound inside the statement: operands rooted at them cannot be checked before it.
    binds: frozenset[str] = frozenset()


def _in(p: Pos, r: tuple[Pos, Pos]) -> bool:
    return r[0] <= p < r[1] or p == r[0]


def _range(r: CodeRange) -> tuple[Pos, Pos]:
    return (r.start.line, r.start.column), (r.end.line, r.end.column)


def _names(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {n for e in target.elements for n in _names(e.value)}
    if isinstance(target, cst.StarredElement):
        return _names(target.value)
    return set()


class _Collector:
    """The statements and functions under one node, found by a read-only walk (libcst's visitors
    rebuild every node they pass), with positions from ``positions``."""

    def __init__(self, module: cst.Module, positions: Mapping[cst.CSTNode, object]) -> None:
        self._module = module
        self._positions = positions
        self.statements: list[Statement] = []
        self.functions: list[FunctionSite] = []
        self._stack: list[int] = []
        self._block: list[bool] = [True]  # is the current statement container an indented block / module?
        self._elif: set[int] = set()  # ids of If nodes that are elif branches

    def _pos(self, node: cst.CSTNode) -> tuple[Pos, Pos]:
        rng = self._positions[node]
        assert isinstance(rng, CodeRange)
        return _range(rng)

    def walk(self, root: cst.CSTNode) -> None:
        """Call ``visit_<Type>`` on entering each node under ``root`` and ``leave_<Type>`` after its
        children, in the order of the source (an explicit stack: the parser guard bounds nesting, but
        a walk must not add Python frames per level)."""
        todo: list[tuple[cst.CSTNode, bool]] = [(root, False)]
        while todo:
            node, done = todo.pop()
            name = type(node).__name__
            if done:
                leave = _LEAVE.get(name)
                if leave is not None:
                    leave(self, node)
                continue
            visit = _VISIT.get(name)
            if visit is not None:
                visit(self, node)
            if name in _LEAVE:
                todo.append((node, True))
            todo.extend((c, False) for c in reversed(code_children(node)))

    def _enter(self, node: cst.CSTNode) -> Statement:
        start, end = self._pos(node)
        s = Statement(start, end, self._stack[-1] if self._stack else -1, self._block[-1])
        self._stack.append(len(self.statements))
        self.statements.append(s)
        return s

    def _leave(self) -> None:
        self._stack.pop()

    # Containers: an indented block lets lines in, a one-line suite (``if c: a; b``) does not.
    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._block.append(True)

    def leave_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._block.pop()

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._block.append(False)

    def leave_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._block.pop()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        s = self._enter(node)
        if node.body:  # only the first statement of ``a; b`` runs right after our line
            s.hoistable.append(self._pos(node.body[0]))

    def leave_SimpleStatementLine(self, original_node: cst.SimpleStatementLine) -> None:
        self._leave()

    def visit_If(self, node: cst.If) -> None:
        if id(node) in self._elif:
            return  # an ``elif``: part of the first ``if``; its test runs only when the earlier ones fail
        s = self._enter(node)
        s.hoistable.append(self._pos(node.test))
        if isinstance(node.orelse, cst.If):
            self._elif.add(id(node.orelse))

    def leave_If(self, original_node: cst.If) -> None:
        if id(original_node) in self._elif:
            self._elif.discard(id(original_node))
        else:
            self._leave()

    def visit_While(self, node: cst.While) -> None:
        self._enter(node).hoistable.append(self._pos(node.test))

    def leave_While(self, original_node: cst.While) -> None:
        self._leave()

    def visit_For(self, node: cst.For) -> None:
        self._enter(node).hoistable.append(self._pos(node.iter))

    def leave_For(self, original_node: cst.For) -> None:
        self._leave()

    def visit_With(self, node: cst.With) -> None:
        s = self._enter(node)
        for item in node.items:
            s.hoistable.append(self._pos(item.item))
            if item.asname is not None:
                s.binds |= _names(item.asname.name)

    def leave_With(self, original_node: cst.With) -> None:
        self._leave()

    def _other(self, node: cst.CSTNode) -> None:
        self._enter(node)

    def _done(self, node: cst.CSTNode) -> None:
        self._leave()

    visit_Try = visit_TryStar = visit_Match = visit_ClassDef = _other
    leave_Try = leave_TryStar = leave_Match = leave_ClassDef = _done

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._enter(node).function = len(self.functions)
        start, end = self._pos(node)
        name_line = self._pos(node.name)[0][0]
        def_line = name_line - line_breaks(node.whitespace_after_def.value)
        if node.asynchronous is not None:
            def_line -= line_breaks(node.asynchronous.whitespace_after.value)
        specs = _specs(self._module, node)
        unusable = None
        for spec in specs:
            if spec is None:
                continue
            try:
                parse_shape(spec)
            except Exception as e:  # noqa: BLE001 - any failure means the decorator would reject it
                unusable = f"spec {spec!r} does not parse ({e})"
                break
        self.functions.append(
            FunctionSite(
                node.name.value,
                def_line,
                start[0],
                end[0],
                any(s is not None for s in specs),
                unusable,
                "\n".join(self._module.code_for_node(d.decorator) for d in node.decorators),
            )
        )

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._leave()

    # Parts of an expression a check before the statement would not evaluate the same way.
    def _defer(self, r: tuple[Pos, Pos]) -> None:
        if self._stack:
            self.statements[self._stack[-1]].deferred.append(r)

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._defer(self._pos(node.body))

    def _comp(self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp) -> None:
        start, end = self._pos(node)
        first_iter = self._pos(node.for_in.iter)
        self._defer((start, first_iter[0]))
        self._defer((first_iter[1], end))

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comp

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._defer(self._pos(node.body))
        self._defer(self._pos(node.orelse))

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._defer(self._pos(node.right))

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        if self._stack:
            self.statements[self._stack[-1]].binds |= _names(node.target)


_VISIT: dict[str, Callable[[_Collector, cst.CSTNode], None]] = {
    n[len("visit_") :]: getattr(_Collector, n) for n in dir(_Collector) if n.startswith("visit_")
}
_LEAVE: dict[str, Callable[[_Collector, cst.CSTNode], None]] = {
    n[len("leave_") :]: getattr(_Collector, n) for n in dir(_Collector) if n.startswith("leave_")
}


class _Unit:
    """The statements and functions of one top-level statement (or class member)."""

    def __init__(self, statements: list[Statement], functions: list[FunctionSite]) -> None:
        self.statements = statements
        self.functions = functions
        self._starts = [s.start for s in statements]  # visit order is start order

    def _innermost(self, p: Pos) -> int:
        """The innermost statement containing ``p``: the last one starting before it, or an ancestor."""
        i = bisect.bisect_right(self._starts, p) - 1
        while i >= 0 and not (self.statements[i].start <= p <= self.statements[i].end):
            i = self.statements[i].parent
        return i

    def site(self, p: Pos) -> Site:
        """Where a check for something at ``p`` goes."""
        i = self._innermost(p)
        if i < 0:
            return Site(None, "not inside a statement")
        s = self.statements[i]
        if not any(_in(p, r) for r in s.hoistable):
            return Site(None, "not in a part a check before the statement would evaluate (elif test, a; b, ...)")
        if any(_in(p, r) for r in s.deferred):
            return Site(
                None,
                "inside a lambda, comprehension or conditional expression: a check before the statement would run at another time",
            )
        if not s.in_block:
            return Site(
                None, "on a one-line compound statement or after `;`: no line of its own to put the check before"
            )
        return Site(s.start[0], column=s.start[1], binds=frozenset(s.binds))

    def owner(self, p: Pos) -> FunctionSite | None:
        """The innermost function around ``p``."""
        i = self._innermost(p)
        while i >= 0 and self.statements[i].function < 0:
            i = self.statements[i].parent
        return self.functions[self.statements[i].function] if i >= 0 else None


class Located:
    """The lookups ``instrument`` needs, in the module whose spans ``spans`` resolves: the statements of
    a top-level statement (class member) are collected the first time something in it is asked for."""

    def __init__(self, spans: SpanTable) -> None:
        self._spans = spans
        self._units: dict[tuple[int, int | None], _Unit] = {}
        self._needed: dict[tuple[int, int | None], list[cst.CSTNode]] = {}

    def needed(self, unit: tuple[int, int | None]) -> list[cst.CSTNode]:
        """The nodes of ``unit`` whose positions :meth:`site` and :meth:`owner` read there (found by a
        walk that only notes what it asks for)."""
        found = self._needed.get(unit)
        if found is None:
            found = self._needed[unit] = []
            _Collector(self._spans.module, _Needed(found)).walk(self._spans.unit_node(unit))
        return found

    def _unit(self, unit: tuple[int, int | None]) -> _Unit:
        found = self._units.get(unit)
        if found is None:
            # Walked twice: once to learn which nodes' positions are needed, once with them.
            c = _Collector(self._spans.module, self._spans.unit_positions(unit, self.needed(unit)))
            c.walk(self._spans.unit_node(unit))
            found = self._units[unit] = _Unit(c.statements, c.functions)
        return found

    def site(self, line: int, column: int) -> Site:
        """Where a check for something at ``(line, column)`` goes."""
        return self._unit(self._spans.unit_at(line)).site((line, column))

    def owner(self, line: int, column: int) -> FunctionSite | None:
        """The innermost function around ``(line, column)``."""
        return self._unit(self._spans.unit_at(line)).owner((line, column))

    def functions(self) -> Iterator[FunctionSite]:
        """Every function whose annotations hold a shape spec (for ``--all``), in the order of the
        source; only the statements (class members) that hold one are collected."""
        module = self._spans.module
        seen: set[tuple[int, int | None]] = set()
        for k, stmt in enumerate(module.body):
            body = stmt.body if isinstance(stmt, cst.ClassDef) else None
            members = body.body if isinstance(body, cst.IndentedBlock) else ()
            parts: list[tuple[int | None, cst.CSTNode]] = [*enumerate(members)] if members else [(None, stmt)]
            for j, part in parts:
                if not _has_spec(module, part):
                    continue
                unit = self._spans.unit(k, j)
                if unit not in seen:
                    seen.add(unit)
                    yield from (f for f in self._unit(unit).functions if f.annotated)


class _Needed(Mapping[cst.CSTNode, object]):
    """Positions that only note which nodes are asked for (all at line 1, column 0)."""

    _NOWHERE = CodeRange(CodePosition(1, 0), CodePosition(1, 0))

    def __init__(self, asked: list[cst.CSTNode]) -> None:
        self._asked = asked

    def __getitem__(self, node: cst.CSTNode) -> object:
        self._asked.append(node)
        return self._NOWHERE

    def __iter__(self) -> Iterator[cst.CSTNode]:
        return iter(self._asked)

    def __len__(self) -> int:
        return len(self._asked)


def _specs(module: cst.Module, node: cst.FunctionDef) -> list[str | None]:
    """The shape spec of each annotation of ``node`` (``None``: none), read as the runtime decorator
    reads them (as text), so both agree on what is checked."""
    params = node.params
    anns = [p.annotation for p in (*params.params, *params.kwonly_params, *params.posonly_params)]
    if isinstance(params.star_arg, cst.Param):
        anns.append(params.star_arg.annotation)
    if isinstance(params.star_kwarg, cst.Param):
        anns.append(params.star_kwarg.annotation)
    anns.append(node.returns)
    return [spec_in_text(module.code_for_node(a.annotation)) for a in anns if a is not None]


def _has_spec(module: cst.Module, node: cst.CSTNode) -> bool:
    """Whether some function under ``node`` has an annotation with a shape spec."""
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, cst.FunctionDef) and any(s is not None for s in _specs(module, n)):
            return True
        todo.extend(code_children(n))
    return False


def locate(spans: SpanTable) -> Located:
    """The statements and functions of ``spans.module``, collected where they are asked for."""
    return Located(spans)
