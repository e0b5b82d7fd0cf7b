"""``reveal_type(x)`` shows the shape: ``Revealed type is "torch._tensor.Tensor[b, 3]"``.

mypy special-cases ``reveal_type``: no plugin hook sees it, and mypy formats
the note itself (``TypeStrVisitor`` never prints ``extra_attrs``).  So the
plugin rewrites mypy's note after the module is checked (:mod:`.aftercheck`),
with the revealed expression's type from the checker's type map.  The note is
only rewritten when our rendering without shapes is exactly mypy's own text,
so anything we do not render as mypy does is left alone.
"""

from __future__ import annotations

from mypy.errors import ErrorInfo
from mypy.nodes import Expression
from mypy.options import Options
from mypy.types import Instance, TupleType, Type, TypeStrVisitor, get_proper_type

__all__ = ["PREFIX", "rewrite", "render"]

PREFIX = 'Revealed type is "'


def rewrite(info: ErrorInfo, typ: Type, options: Options) -> None:
    """Put the shapes of ``typ`` into mypy's ``Revealed type is "..."`` note."""
    text = render(typ, options)
    if text is not None and info.message == f'{PREFIX}{_plain(typ, options)}"':
        info.message = f'{PREFIX}{text}"'


def note_key(expr: Expression) -> tuple[int, int]:
    return (expr.line, expr.column)


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
