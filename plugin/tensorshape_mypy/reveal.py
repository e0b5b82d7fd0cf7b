"""``reveal_type(x)`` shows the shape: ``Revealed type is "torch._tensor.Tensor[b, 3]"``.

mypy special-cases ``reveal_type``: no plugin hook sees it, and mypy formats
the note itself (``TypeStrVisitor`` never prints ``extra_attrs``).  So the
plugin edits mypy's note after the module is checked:

* every checker hook remembers the checker it ran in (:func:`seen`);
* ``get_additional_indirect_deps`` runs after a module is type checked and
  before its messages are flushed (:func:`finish`).  For each ``reveal_type``
  note of that module, the revealed expression's type is read from the
  checker's type map; when it carries shapes the note's text is rewritten with
  them.  The note is only rewritten when our rendering without shapes is
  exactly mypy's own text, so anything we do not render as mypy does is left
  alone.

In a module where no hook of ours ran (no calls, operators or tensor
attributes at all), the type map is out of reach: a revealed name that is
never assigned in the module falls back on its declared type.
"""

from __future__ import annotations

from typing import Any

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
from mypy.options import Options
from mypy.types import Instance, TupleType, Type, TypeStrVisitor, get_proper_type

__all__ = ["seen", "seen_errors", "finish", "render"]

_PREFIX = 'Revealed type is "'

#: The checker and the error collector of the module being processed.  mypy
#: checks one module at a time; :func:`finish` matches the checker's path.
_LAST: dict[str, Any] = {}


def seen(api: object) -> None:
    """A checker hook ran in ``api``'s module (called by every checker callback)."""
    _LAST["checker"] = api


def seen_errors(errors: object) -> None:
    """mypy's error collector, from a semantic-analysis hook (for modules no checker hook saw)."""
    _LAST["errors"] = errors


class _Reveals:
    """The ``reveal_type(...)`` expressions of a module (as statements, assigned or returned)."""

    def __init__(self) -> None:
        self.reveals: list[Expression] = []
        self.assigned: set[Var] = set()

    def block(self, b: Block | None) -> None:
        if b is not None:
            for s in b.body:
                self.stmt(s)

    def stmt(self, s: Statement) -> None:
        if isinstance(s, (ExpressionStmt, ReturnStmt)):
            self.expr(s.expr)
        elif isinstance(s, AssignmentStmt):
            for lv in s.lvalues:
                if isinstance(lv, NameExpr) and isinstance(lv.node, Var):
                    self.assigned.add(lv.node)
            self.expr(s.rvalue)
        elif isinstance(s, (FuncDef, ClassDef)):
            self.block(s.defs if isinstance(s, ClassDef) else s.body)
        elif isinstance(s, Decorator):
            self.block(s.func.body)
        elif isinstance(s, OverloadedFuncDef):
            for item in s.items:
                self.stmt(item)
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
    """Rewrite the ``reveal_type`` notes of ``file`` (just type checked) to show shapes."""
    chk = _LAST.get("checker")
    if chk is not None and getattr(chk, "path", None) == file.path:
        errors = chk.msg.errors
        options: Options = chk.options
    else:
        chk = None
        errors = _LAST.get("errors")
        options = getattr(errors, "options", None) or Options()
    infos = errors.error_info_map.get(file.path) if errors is not None else None
    if not infos:
        return
    notes = {
        (i.line, i.column): i for i in infos if i.severity == "note" and i.message.startswith(_PREFIX)
    }
    if not notes:
        return
    walker = _Reveals()
    for d in file.defs:
        walker.stmt(d)
    for expr in walker.reveals:
        info = notes.get((expr.line, expr.column))
        if info is None:
            continue
        typ = chk.lookup_type_or_none(expr) if chk is not None else _declared(expr, walker.assigned)
        if typ is None:
            continue
        text = render(typ, options)
        if text is not None and info.message == f'{_PREFIX}{_plain(typ, options)}"':
            info.message = f'{_PREFIX}{text}"'


def _declared(expr: Expression, assigned: set[Var]) -> Type | None:
    """Without the type map: the declared type of a name never assigned in the module."""
    if isinstance(expr, NameExpr) and isinstance(expr.node, Var) and expr.node not in assigned:
        return expr.node.type
    return None


def _plain(t: Type, options: Options) -> str:
    return str(t.accept(TypeStrVisitor(options=options)))


def render(t: Type, options: Options) -> str | None:
    """mypy's rendering of ``t`` with the shapes of its tensors, or ``None`` if nothing to add."""
    plain = _plain(t, options)
    if _render(t, options, False) != plain:
        return None
    mine = _render(t, options, True)
    return mine if mine != plain else None


def _render(t: Type, options: Options, shapes: bool) -> str:
    p = get_proper_type(t)
    if isinstance(p, TupleType):
        fallback = p.partial_fallback
        if fallback is not None and fallback.type.fullname != "builtins.tuple":
            return _plain(t, options)
        return "tuple[" + (", ".join(_render(i, options, shapes) for i in p.items) or "()") + "]"
    if not isinstance(p, Instance) or p.last_known_value is not None:
        return _plain(t, options)
    name = p.type.fullname
    if not options.reveal_verbose_types and name.startswith("builtins."):
        name = p.type.name
    if p.args:
        if name in ("builtins.tuple", "tuple"):
            return _plain(t, options)
        return name + "[" + ", ".join(_render(a, options, shapes) for a in p.args) + "]"
    dims = _dims(p) if shapes else None
    return name if dims is None else f"{name}[{dims}]"


def _dims(t: Instance) -> str | None:
    from tensorshape.lang.render import render_dim
    from tensorshape.model.values import TensorV

    from . import carry
    from .translate import is_tensor, value_of_type

    if not carry.has_carried(t) or not is_tensor(t):
        return None
    v = value_of_type(t)
    if not isinstance(v, TensorV) or v.shape.is_unknown:
        return None
    return ", ".join(render_dim(d) for d in v.shape.items) or "()"
