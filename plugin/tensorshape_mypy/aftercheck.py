"""Work done once a module is type checked: ``return`` checks and ``reveal_type`` notes.

mypy has no hook for a ``return`` statement or for ``reveal_type``.  It does
call ``get_additional_indirect_deps(file)`` after it has type checked a module
and before it flushes that module's messages; the plugin uses that moment
(:func:`finish`):

* every checker callback of the plugin remembers the checker it ran in
  (:func:`seen`), whose type map then holds the type of every expression of
  the module;
* each ``return`` of a function whose return annotation carries a shape is
  checked against it (the core's :func:`tensorshape.rules.signature.check_value`);
* each ``Revealed type is "..."`` note gets the shapes (:mod:`.reveal`).

In a module where no callback ran (no calls, operators or tensor attributes
at all), the type map is out of reach: a name that is never assigned in the
module is taken at its declared type, anything else is left alone.
"""

from __future__ import annotations

from typing import Any

from mypy.messages import MessageBuilder
from mypy.nodes import (
    REVEAL_TYPE,
    AssignmentStmt,
    Block,
    CallExpr,
    ClassDef,
    Decorator,
    Expression,
    ExpressionStmt,
    ForStmt,
    FuncDef,
    IfStmt,
    MypyFile,
    NameExpr,
    OverloadedFuncDef,
    ReturnStmt,
    RevealExpr,
    Statement,
    TryStmt,
    Var,
    WhileStmt,
    WithStmt,
)
from mypy.types import CallableType, Type

__all__ = ["seen", "seen_errors", "finish", "is_installed"]

#: The checker and mypy's error collector of the module being processed: mypy
#: checks one module at a time, and :func:`finish` matches the checker's path.
_LAST: dict[str, Any] = {}


def seen(api: object) -> None:
    """A checker callback ran in ``api``'s module."""
    _LAST["checker"] = api


def seen_errors(errors: object) -> None:
    """mypy's error collector, from a semantic-analysis hook (for modules no checker callback saw)."""
    _LAST["errors"] = errors


def is_installed(path: str) -> bool:
    """Installed packages (torch itself) are checked by mypy but not by us."""
    return "site-packages" in path or "dist-packages" in path or "typeshed" in path


class _Walk:
    """The ``return`` statements (with their function) and ``reveal_type`` calls of a module."""

    def __init__(self) -> None:
        self.reveals: list[Expression] = []
        self.returns: list[tuple[FuncDef, Expression]] = []
        self.assigned: set[Var] = set()
        self.func: FuncDef | None = None

    def block(self, b: Block | None) -> None:
        if b is not None:
            for s in b.body:
                self.stmt(s)

    def stmt(self, s: Statement) -> None:
        if isinstance(s, ExpressionStmt):
            self.expr(s.expr)
        elif isinstance(s, ReturnStmt):
            if s.expr is not None and self.func is not None:
                self.returns.append((self.func, s.expr))
            self.expr(s.expr)
        elif isinstance(s, AssignmentStmt):
            for lv in s.lvalues:
                if isinstance(lv, NameExpr) and isinstance(lv.node, Var):
                    self.assigned.add(lv.node)
            self.expr(s.rvalue)
        elif isinstance(s, FuncDef):
            outer, self.func = self.func, s
            self.block(s.body)
            self.func = outer
        elif isinstance(s, Decorator):
            self.stmt(s.func)
        elif isinstance(s, OverloadedFuncDef):
            for item in s.items:
                self.stmt(item)
            if s.impl is not None:
                self.stmt(s.impl)
        elif isinstance(s, ClassDef):
            self.block(s.defs)
        elif isinstance(s, IfStmt):
            for b in s.body:
                self.block(b)
            self.block(s.else_body)
        elif isinstance(s, (ForStmt, WhileStmt)):
            self.block(s.body)
            self.block(s.else_body)
        elif isinstance(s, WithStmt):
            self.block(s.body)
        elif isinstance(s, TryStmt):
            for tb in (s.body, *s.handlers, s.else_body, s.finally_body):
                self.block(tb)
        elif isinstance(s, Block):
            self.block(s)

    def expr(self, e: Expression | None) -> None:
        if isinstance(e, CallExpr) and e.analyzed is not None:
            e = e.analyzed
        if isinstance(e, RevealExpr) and e.kind == REVEAL_TYPE and e.expr is not None:
            self.reveals.append(e.expr)


def finish(file: MypyFile) -> None:
    """Check the returns and rewrite the ``reveal_type`` notes of ``file``, just type checked."""
    if is_installed(file.path):
        return
    chk = _LAST.get("checker")
    if chk is not None and getattr(chk, "path", None) == file.path:
        msg: MessageBuilder = chk.msg
        lookup = chk.lookup_type_or_none
    else:
        errors = _LAST.get("errors")
        if errors is None:
            return
        msg = MessageBuilder(errors, {})
        lookup = None
    if getattr(msg.errors, "file", None) != file.path:
        return
    walk = _Walk()
    for d in file.defs:
        walk.stmt(d)

    def type_of(e: Expression) -> Type | None:
        if lookup is not None:
            t: Type | None = lookup(e)
            return t
        if isinstance(e, NameExpr) and isinstance(e.node, Var) and e.node not in walk.assigned:
            return e.node.type
        return None

    if walk.returns:
        from tensorshape.unify.facts import NO_FACTS

        from .asserts import facts_at
        from .returns import check_return

        for func, e in walk.returns:
            declared = func.type
            t = type_of(e)
            if isinstance(declared, CallableType) and t is not None:
                facts = facts_at(chk, e.line, func) if chk is not None and lookup is not None else NO_FACTS
                check_return(msg, declared.ret_type, t, e, facts)
    if walk.reveals:
        _reveals(msg, walk.reveals, type_of)


def _reveals(msg: MessageBuilder, reveals: list[Expression], type_of: Any) -> None:
    from .reveal import PREFIX, note_key, rewrite

    infos = msg.errors.error_info_map.get(msg.errors.file) or []
    notes = {(i.line, i.column): i for i in infos if i.severity == "note" and i.message.startswith(PREFIX)}
    for e in reveals:
        info = notes.get(note_key(e))
        t = type_of(e) if info is not None else None
        if info is not None and t is not None:
            rewrite(info, t, msg.options)
