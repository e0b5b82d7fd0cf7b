"""Facts from ``assert`` statements: ``assert x.shape[1] == w.shape[0]``.

mypy has no hook on ``assert``, but it checks a function's statements in
order: when a callback runs for a line of a function, the ``assert``s before
that line have been type checked and their operands' types (with the shapes
they carry) are in the checker's type map.  :func:`facts_at` reads the asserts
on the straight-line path to the line (the function's body and the blocks
that enclose the line; not those inside an earlier ``if``, loop or ``with``)
and turns them into the core's facts (:mod:`tensorshape.rules.asserts`):
``assert x.shape[1] == w.shape[0]``, ``assert n == m``,
``assert x.shape == y.shape``, ``assert x.shape == (b, 3)``,
``assert d % h == 0``, ``not`` and ``and`` of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mypy.nodes import (
    AssertStmt,
    Block,
    ComparisonExpr,
    Expression,
    ForStmt,
    FuncItem,
    IfStmt,
    IntExpr,
    OpExpr,
    Statement,
    TryStmt,
    UnaryExpr,
    WhileStmt,
    WithStmt,
)
from mypy.plugin import CheckerPluginInterface
from tensorshape.rules.asserts import assume_divisible, assume_equal
from tensorshape.unify.facts import NO_FACTS, Facts

from .translate import value_of_expr

__all__ = ["facts_at"]

#: Facts after an assert, by the assert (checker pass and node identity); reset per checker.
_CACHE: dict[tuple[int, int], tuple[AssertStmt, Facts, Facts]] = {}
_OWNER: list[Any] = [None]


def current_function(api: CheckerPluginInterface) -> FuncItem | None:
    """The function mypy is checking (the innermost one)."""
    scope = getattr(api, "scope", None)
    fn = scope.current_function() if scope is not None else None
    return fn if isinstance(fn, FuncItem) else None


def facts_at(api: CheckerPluginInterface, line: int, fn: FuncItem | None = None) -> Facts:
    """The facts the asserts of the current function (or ``fn``) establish before ``line``."""
    if fn is None:
        fn = current_function(api)
    if fn is None:
        return NO_FACTS
    if _OWNER[0] is not api:
        _OWNER[0] = api
        _CACHE.clear()
    pass_num = getattr(api, "pass_num", 0)
    facts = NO_FACTS
    for s in _asserts_before(fn.body, line):
        key = (pass_num, id(s))
        hit = _CACHE.get(key)
        if hit is not None and hit[0] is s and hit[1] is facts:
            facts = hit[2]
            continue
        new = _assume(s.expr, True, api, facts)
        _CACHE[key] = (s, facts, new)
        facts = new
    return facts


def _asserts_before(block: Block, line: int) -> Iterator[AssertStmt]:
    """The asserts on the straight-line path from the start of ``block`` to ``line``."""
    for s in block.body:
        if s.line >= line:
            return
        end = s.end_line if s.end_line is not None else s.line
        if isinstance(s, AssertStmt):
            if end < line:
                yield s
            continue
        if end >= line:
            # The compound statement holding the line: descend into the block holding it.
            for b in _blocks(s):
                if b.body and b.body[0].line <= line <= _end(b):
                    yield from _asserts_before(b, line)
            return


def _end(b: Block) -> int:
    last = b.body[-1]
    return last.end_line if last.end_line is not None else last.line


def _blocks(s: Statement) -> list[Block]:
    if isinstance(s, IfStmt):
        return [*s.body, *([s.else_body] if s.else_body else [])]
    if isinstance(s, (ForStmt, WhileStmt)):
        return [s.body, *([s.else_body] if s.else_body else [])]
    if isinstance(s, WithStmt):
        return [s.body]
    if isinstance(s, TryStmt):
        return [b for b in (s.body, *s.handlers, s.else_body, s.finally_body) if b is not None]
    if isinstance(s, Block):
        return [s]
    return []


def _assume(e: Expression, truth: bool, api: CheckerPluginInterface, facts: Facts) -> Facts:
    if isinstance(e, UnaryExpr) and e.op == "not":
        return _assume(e.expr, not truth, api, facts)
    if isinstance(e, OpExpr) and ((e.op == "and" and truth) or (e.op == "or" and not truth)):
        return _assume(e.right, truth, api, _assume(e.left, truth, api, facts))
    if not (isinstance(e, ComparisonExpr) and len(e.operators) == 1):
        return facts
    op = e.operators[0]
    if not ((op == "==" and truth) or (op == "!=" and not truth)):
        return facts
    left, right = e.operands
    for a, b in ((left, right), (right, left)):
        if isinstance(a, OpExpr) and a.op == "%" and isinstance(b, IntExpr) and b.value == 0:
            return assume_divisible(facts, value_of_expr(a.left, api), value_of_expr(a.right, api))
    return assume_equal(facts, value_of_expr(left, api), value_of_expr(right, api))
