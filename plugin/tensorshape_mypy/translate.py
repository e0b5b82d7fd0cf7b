"""Translate between mypy's view (types, expressions) and the core's abstract values."""

from __future__ import annotations

from collections.abc import Sequence

from mypy.nodes import (
    ARG_NAMED,
    ARG_POS,
    CallExpr,
    Context,
    EllipsisExpr,
    Expression,
    FloatExpr,
    IntExpr,
    ListExpr,
    MemberExpr,
    NameExpr,
    SliceExpr,
    StrExpr,
    TupleExpr,
    UnaryExpr,
)
from mypy.plugin import CheckerPluginInterface
from mypy.types import (
    AnyType,
    Instance,
    LiteralType,
    NoneType,
    TupleType,
    Type,
    TypeOfAny,
    get_proper_type,
)
from tensorshape.model.diagnostics import Span
from tensorshape.model.dims import Unknown, UnknownSource
from tensorshape.model.shape import Shape
from tensorshape.model.values import (
    ELLIPSIS,
    NONE,
    UNKNOWN,
    BoolV,
    FloatV,
    IntV,
    SeqKind,
    SliceV,
    StrV,
    TensorV,
    TupleV,
    UnknownV,
    Value,
    constant_value,
)
from tensorshape.rules.context import Arg

from . import carry

__all__ = ["is_tensor", "value_of_type", "value_of_expr", "arg_of", "span_of", "call_args", "to_type"]

TENSOR_BASE = "torch._C.TensorBase"
#: How mypy finds the tensor class from any module (``torch._tensor`` is not a name in ``torch``).
TENSOR = "torch.Tensor"


def is_tensor(t: Instance) -> bool:
    return any(i.fullname == TENSOR_BASE for i in t.type.mro)


def span_of(node: Context) -> Span:
    line = max(node.line, 1)
    col = max(node.column, 0)
    end_line = node.end_line if node.end_line is not None else line
    end_col = node.end_column if node.end_column is not None else col + 1
    return Span(line, col, end_line, end_col)


def value_of_type(typ: Type | None) -> Value:
    """What a mypy type says about a value."""
    if typ is None:
        return UNKNOWN
    c = carry.carried(typ)
    if isinstance(c, carry.Spec):
        return c.value()
    if c is not None:
        return c
    t = get_proper_type(typ)
    if isinstance(t, AnyType):
        return UNKNOWN
    if isinstance(t, NoneType):
        return NONE
    if isinstance(t, LiteralType):
        return _literal(t.value)
    if isinstance(t, TupleType):
        return TupleV(tuple(value_of_type(i) for i in t.items), SeqKind.TUPLE)
    if isinstance(t, Instance):
        if t.last_known_value is not None:
            return _literal(t.last_known_value.value)
        name = t.type.fullname
        if name == "builtins.bool":
            return BoolV(None)
        if name == "builtins.int":
            return IntV(Unknown(UnknownSource.UNANNOTATED))
        if name == "builtins.float":
            return FloatV(None)
        if name == "builtins.str":
            return StrV(None)
        if is_tensor(t):
            return TensorV(Shape.unknown(UnknownSource.ANNOTATED))
    return UNKNOWN


def _literal(v: object) -> Value:
    return constant_value(v) or UNKNOWN


def value_of_expr(expr: Expression, api: CheckerPluginInterface, typ: Type | None = None) -> Value:
    """An argument's value: literals and displays from the expression, the rest from its type."""
    if isinstance(expr, IntExpr):
        return IntV(expr.value)
    if isinstance(expr, UnaryExpr) and expr.op == "-" and isinstance(expr.expr, IntExpr):
        return IntV(-expr.expr.value)
    if isinstance(expr, FloatExpr):
        return FloatV(expr.value)
    if isinstance(expr, StrExpr):
        return StrV(expr.value)
    if isinstance(expr, EllipsisExpr):
        return ELLIPSIS
    if isinstance(expr, NameExpr) and expr.fullname in ("builtins.None", "builtins.True", "builtins.False"):
        return NONE if expr.name == "None" else BoolV(expr.name == "True")
    if isinstance(expr, SliceExpr):
        return SliceV(
            *(NONE if e is None else value_of_expr(e, api) for e in (expr.begin_index, expr.end_index, expr.stride))
        )
    if isinstance(expr, (TupleExpr, ListExpr)):
        kind = SeqKind.TUPLE if isinstance(expr, TupleExpr) else SeqKind.LIST
        return TupleV(tuple(value_of_expr(e, api) for e in expr.items), kind)
    return value_of_type(typ if typ is not None else _type_of(expr, api))


def _type_of(expr: Expression, api: CheckerPluginInterface) -> Type | None:
    """The type mypy already inferred for ``expr`` (never re-checks it)."""
    lookup = getattr(api, "lookup_type_or_none", None)
    if lookup is None:
        return None
    t: Type | None = lookup(expr)
    return t


def text_of(expr: Expression) -> str | None:
    """Source text of a simple expression (``x``, ``self.w``), for messages."""
    if isinstance(expr, NameExpr):
        return expr.name
    if isinstance(expr, MemberExpr):
        base = text_of(expr.expr)
        return None if base is None else f"{base}.{expr.name}"
    return None


def arg_of(expr: Expression, api: CheckerPluginInterface, typ: Type | None = None) -> Arg:
    return Arg(value_of_expr(expr, api, typ), span_of(expr), text_of(expr))


def call_args(call: CallExpr, api: CheckerPluginInterface) -> tuple[list[Arg], dict[str, Arg]] | None:
    """The actual arguments of a call, in call order; ``None`` with ``*args``/``**kwargs``."""
    args: list[Arg] = []
    kwargs: dict[str, Arg] = {}
    for e, kind, name in zip(call.args, call.arg_kinds, call.arg_names):
        if kind == ARG_POS:
            args.append(arg_of(e, api))
        elif kind == ARG_NAMED and name is not None:
            kwargs[name] = arg_of(e, api)
        else:
            return None
    return args, kwargs


def to_type(v: Value, default: Type, tensor: Instance | None = None) -> Type:
    """``default`` (mypy's own result type) carrying ``v``.

    Where mypy says ``Any`` only a tensor (``tensor`` given: the callee's own
    declared result) or a tuple of them is filled in; everything else keeps
    mypy's type.
    """
    d = get_proper_type(default)
    if isinstance(d, Instance):
        text = carry.encode(v) if _fits(v, d) else None
        return carry.attach(d, text) if text is not None else carry.strip(d)
    if isinstance(d, TupleType) and isinstance(v, TupleV) and len(v.items) == len(d.items):
        return d.copy_modified(items=[to_type(i, t) for i, t in zip(v.items, d.items)])
    if isinstance(d, AnyType) and tensor is not None and isinstance(v, TensorV):
        text = carry.encode(v)
        return carry.attach(tensor, text) if text is not None else default
    return default


def _fits(v: Value, t: Instance) -> bool:
    if isinstance(v, TensorV):
        return is_tensor(t)
    if isinstance(v, IntV):
        return t.type.fullname == "builtins.int"
    if isinstance(v, TupleV) and v.kind is SeqKind.SIZE:
        return t.type.fullname == "torch.Size"
    return not is_tensor(t) and t.type.fullname not in ("builtins.int", "builtins.float", "builtins.bool")


def any_type() -> AnyType:
    return AnyType(TypeOfAny.special_form)


def unknown_list(vs: Sequence[Value]) -> bool:
    return all(isinstance(v, UnknownV) for v in vs)
