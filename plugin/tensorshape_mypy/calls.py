"""The hook callbacks: calls, operators, attributes, returns and ``reveal_shape``.

Each callback translates what mypy knows into the core's values, asks the rule
engine (the same rules and stubs as the ``tensorshape`` CLI), reports the
core's diagnostics and returns mypy's own result type carrying the result.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from mypy.nodes import (
    ARG_NAMED,
    ARG_NAMED_OPT,
    ARG_OPT,
    ARG_POS,
    ARG_STAR,
    ARG_STAR2,
    CallExpr,
    Decorator,
    Expression,
    FuncDef,
    IndexExpr,
    MemberExpr,
    NameExpr,
    OpExpr,
    RefExpr,
)
from mypy.plugin import AttributeContext, CheckerPluginInterface, FunctionContext, MethodContext
from mypy.types import CallableType, Instance, Overloaded, TupleType, Type, get_proper_type
from tensorshape.lang.render import describe_value
from tensorshape.model import codes
from tensorshape.model.diagnostics import Span
from tensorshape.model.values import (
    UNKNOWN,
    IntV,
    ModuleV,
    SeqKind,
    TensorV,
    TupleV,
    UnknownV,
    Value,
)
from tensorshape.rules import engine, signature
from tensorshape.rules.context import Arg, RuleContext
from tensorshape.rules.stubs import OpDef, Param, ParamKind, Returns
from tensorshape.unify import arith
from tensorshape.unify.match import Bindings, instantiate

from . import aftercheck, carry
from .aftercheck import is_installed
from .asserts import facts_at
from .report import report
from .translate import TENSOR, arg_of, call_args, is_tensor, span_of, text_of, to_type, value_of_type

__all__ = [
    "torch_function",
    "construct_module",
    "method",
    "user_function",
    "int_arith",
    "tensor_attribute",
    "module_attribute",
    "reveal_shape",
]


def _skip(api: CheckerPluginInterface) -> bool:
    """Installed packages (torch itself) are checked by mypy but not by us."""
    aftercheck.seen(api)
    return is_installed(api.path)


def _context(api: CheckerPluginInterface, span: Span) -> RuleContext:
    """A rule context with the facts the function's asserts establish before ``span``."""
    return RuleContext(facts=facts_at(api, span.line), default_span=span)


def _run(api: CheckerPluginInterface, span: Span, fn: Callable[[RuleContext], Value | None]) -> Value | None:
    rc = _context(api, span)
    v = fn(rc)
    report(api, rc.diagnostics)
    return v


# -- torch functions and nn modules ------------------------------------------------------------------


def _engine_call(
    qualname: str, apply: Callable[[str, list[Arg], dict[str, Arg], RuleContext, Span], Value | None]
) -> Callable[[FunctionContext], Type]:
    """A hook handing a call's arguments to the engine (a torch function, an ``nn`` constructor)."""

    def hook(ctx: FunctionContext) -> Type:
        call = ctx.context
        if _skip(ctx.api) or not isinstance(call, CallExpr):
            return ctx.default_return_type
        got = call_args(call, ctx.api)
        if got is None:
            return ctx.default_return_type
        args, kwargs = got
        span = span_of(call)
        v = _run(ctx.api, span, lambda rc: apply(qualname, args, kwargs, rc, span))
        return to_type(v or UNKNOWN, ctx.default_return_type)

    return hook


def torch_function(qualname: str) -> Callable[[FunctionContext], Type]:
    return _engine_call(qualname, engine.call_function)


def construct_module(qualname: str) -> Callable[[FunctionContext], Type]:
    return _engine_call(qualname, engine.construct_module)


def _forward_return(t: Instance) -> Type | None:
    """The declared result of a module class's ``forward`` (what ``__call__`` really returns)."""
    node = t.type.get_method("forward")
    ft = getattr(node, "type", None)
    if isinstance(node, Decorator):
        ft = node.func.type
    ft = get_proper_type(ft) if ft is not None else None
    if isinstance(ft, Overloaded):
        ft = ft.items[0]
    return ft.ret_type if isinstance(ft, CallableType) else None


# -- methods and operators ---------------------------------------------------------------------------------

_BINARY = {
    "__add__": "+",
    "__sub__": "-",
    "__mul__": "*",
    "__truediv__": "/",
    "__floordiv__": "//",
    "__mod__": "%",
    "__pow__": "**",
    "__matmul__": "@",
    "__and__": "&",
    "__or__": "|",
    "__xor__": "^",
    "__lshift__": "<<",
    "__rshift__": ">>",
    "__eq__": "==",
    "__ne__": "!=",
    "__lt__": "<",
    "__le__": "<=",
    "__gt__": ">",
    "__ge__": ">=",
}
_REFLECTED = {
    f"__r{k[2:]}": v
    for k, v in _BINARY.items()
    if k not in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")
}
_INPLACE = {
    "__iadd__": "add_",
    "__isub__": "sub_",
    "__imul__": "mul_",
    "__itruediv__": "div_",
    "__ifloordiv__": "floor_divide_",
    "__imod__": "remainder_",
    "__ipow__": "pow_",
    "__iand__": "bitwise_and_",
    "__ior__": "bitwise_or_",
    "__ixor__": "bitwise_xor_",
}
_UNARY = {"__neg__": "-", "__invert__": "~", "__pos__": "+"}


def _single_args(ctx: MethodContext) -> list[Arg]:
    """The operand(s) of an operator (one expression per formal)."""
    out = []
    for exprs, types in zip(ctx.args, ctx.arg_types):
        for e, t in zip(exprs, types):
            out.append(arg_of(e, ctx.api, t))
    return out


def method(name: str) -> Callable[[MethodContext], Type]:
    """Any method call whose receiver might be a tensor, a modelled module or a user object."""

    def hook(ctx: MethodContext) -> Type:
        if _skip(ctx.api):
            return ctx.default_return_type
        recv_t = ctx.type
        if not isinstance(recv_t, Instance):
            return ctx.default_return_type
        if is_tensor(recv_t):
            result = _tensor_method(ctx, recv_t, name)
        else:
            c = carry.carried(recv_t)
            if isinstance(c, ModuleV) and name == "__call__":
                result = _module_call(ctx, recv_t, c)
            else:
                result = _user_method(ctx, recv_t, name)
        return result

    return hook


def _tensor_method(ctx: MethodContext, recv_t: Instance, name: str) -> Type:
    node = ctx.context
    span = span_of(node)
    recv_expr = _receiver_expr(node, name)
    recv = Arg(
        value_of_type(recv_t),
        span_of(recv_expr) if recv_expr is not None else None,
        text_of(recv_expr) if recv_expr is not None else None,
    )
    default = ctx.default_return_type
    if name in _BINARY or name in _REFLECTED or name in _INPLACE or name in _UNARY or name == "__getitem__":
        ops = _single_args(ctx)
        if name in _UNARY:
            v = _run(ctx.api, span, lambda rc: engine.unary_op(_UNARY[name], recv, rc, span))
        elif len(ops) != 1:
            return default
        elif name == "__getitem__":
            v = _run(ctx.api, span, lambda rc: engine.getitem(recv, ops[0], rc, span))
        elif name in _BINARY:
            v = _run(ctx.api, span, lambda rc: engine.binary_op(_BINARY[name], recv, ops[0], rc, span))
        elif name in _REFLECTED:
            v = _run(ctx.api, span, lambda rc: engine.binary_op(_REFLECTED[name], ops[0], recv, rc, span))
        else:
            v = _run(ctx.api, span, lambda rc: engine.call_method(recv, _INPLACE[name], ops, {}, rc, span))
        return to_type(v or UNKNOWN, default)
    if name.startswith("__") or not isinstance(node, CallExpr):
        return default
    got = call_args(node, ctx.api)
    if got is None:
        return default
    args, kwargs = got
    v = _run(ctx.api, span, lambda rc: engine.call_method(recv, name, args, kwargs, rc, span))
    return to_type(v or UNKNOWN, default)


def _receiver_expr(node: object, name: str) -> Expression | None:
    if isinstance(node, CallExpr) and isinstance(node.callee, MemberExpr):
        return node.callee.expr
    if isinstance(node, IndexExpr):
        return node.base
    if isinstance(node, OpExpr):
        return node.right if name in _REFLECTED else node.left
    return None


def _module_call(ctx: MethodContext, recv_t: Instance, module: ModuleV) -> Type:
    node = ctx.context
    if not isinstance(node, CallExpr):
        return ctx.default_return_type
    got = call_args(node, ctx.api)
    if got is None:
        return ctx.default_return_type
    args, kwargs = got
    span = span_of(node)
    v = _run(ctx.api, span, lambda rc: engine.call_module(module, args, kwargs, rc, span))
    default = ctx.default_return_type
    if v is None or isinstance(v, UnknownV):
        return default
    declared = _forward_return(recv_t)
    if isinstance(get_proper_type(default), Instance):
        return to_type(v, default)
    tensor = ctx.api.named_generic_type(TENSOR, []) if isinstance(v, TensorV) and not v.shape.is_unknown else None
    if declared is None or not isinstance(get_proper_type(declared), Instance):
        # ``nn.Sequential.forward`` is not annotated: a tensor the rules computed fills mypy's ``Any``.
        return to_type(v, default, tensor)
    out = to_type(v, declared)
    # Only fill in mypy's ``Any`` when the value says something.
    return out if carry.has_carried(out) or isinstance(get_proper_type(out), TupleType) else default


# -- the project's functions and methods -------------------------------------------------------------


def _callee_type(node: object) -> CallableType | None:
    t: object = None
    if isinstance(node, FuncDef):
        t = node.type
    elif isinstance(node, Decorator):
        t = node.var.type or node.func.type
    p = get_proper_type(t) if isinstance(t, Type) else None
    return p if isinstance(p, CallableType) else None


def _has_specs(c: CallableType) -> bool:
    return any(isinstance(carry.carried(t), carry.Spec) for t in c.arg_types) or _ret_has_spec(c.ret_type)


def _ret_has_spec(t: Type) -> bool:
    p = get_proper_type(t)
    if isinstance(p, TupleType):
        return any(_ret_has_spec(i) for i in p.items)
    return isinstance(carry.carried(p), carry.Spec)


def user_function(ctx: FunctionContext) -> Type:
    call = ctx.context
    if _skip(ctx.api) or not isinstance(call, CallExpr) or not isinstance(call.callee, RefExpr):
        return ctx.default_return_type
    callee = _callee_type(call.callee.node)
    if callee is None or not _has_specs(callee):
        # A generic callee (``def f(t: T) -> T``) would hand back its argument's shape.
        return _strip_specs(ctx.default_return_type)
    got = call_args(call, ctx.api)
    if got is None:
        return _strip_specs(ctx.default_return_type)
    qualname = call.callee.fullname or (call.callee.name if isinstance(call.callee, (NameExpr, MemberExpr)) else "")
    result = _check_user_call(ctx.api, callee, qualname, got[0], got[1], span_of(call), ctx.default_return_type)
    return result


def _user_method(ctx: MethodContext, recv_t: Instance, name: str) -> Type:
    node = ctx.context
    if not isinstance(node, CallExpr):
        return ctx.default_return_type
    target = "forward" if name == "__call__" and recv_t.type.get_method("forward") is not None else name
    callee = _callee_type(recv_t.type.get_method(target))
    if callee is None or not _has_specs(callee):
        return _strip_specs(ctx.default_return_type)
    got = call_args(node, ctx.api)
    if got is None:
        return _strip_specs(ctx.default_return_type)
    args = [Arg(value_of_type(recv_t)), *got[0]]
    default = ctx.default_return_type
    if name == "__call__" and target == "forward":
        default = callee.ret_type
    qualname = f"{recv_t.type.fullname}.{target}"
    return _check_user_call(ctx.api, callee, qualname, args, got[1], span_of(node), default)


_KINDS = {
    ARG_POS: ParamKind.POSITIONAL,
    ARG_OPT: ParamKind.POSITIONAL,
    ARG_STAR: ParamKind.VAR_POSITIONAL,
    ARG_NAMED: ParamKind.KEYWORD_ONLY,
    ARG_NAMED_OPT: ParamKind.KEYWORD_ONLY,
    ARG_STAR2: ParamKind.VAR_KEYWORD,
}


def _opdef(callee: CallableType, name: str) -> OpDef:
    params = []
    for i, (kind, pname, t) in enumerate(zip(callee.arg_kinds, callee.arg_names, callee.arg_types)):
        c = carry.carried(t)
        spec = c.spec if isinstance(c, carry.Spec) else None
        pk = _KINDS[kind]
        if pname is None and pk is ParamKind.POSITIONAL:
            pk = ParamKind.POSITIONAL_ONLY
        default = UNKNOWN if kind in (ARG_OPT, ARG_NAMED_OPT) else None
        params.append(Param(pname or f"__arg{i}", pk, default, spec, None))
    return OpDef(name, tuple(params), Returns("unknown"))


def _check_user_call(
    api: CheckerPluginInterface,
    callee: CallableType,
    qualname: str,
    args: Sequence[Arg],
    kwargs: Mapping[str, Arg],
    span: Span,
    default: Type,
) -> Type:
    """Check a call against the callee's shape annotations; its result from the return annotation."""
    rc = _context(api, span)
    b = signature.check_call(_opdef(callee, qualname), args, kwargs, rc, span, qualname.rsplit(".", 1)[-1])
    report(api, rc.diagnostics)
    return to_type(_result_of(callee.ret_type, b, rc), default)


def _result_of(t: Type, b: Bindings, rc: RuleContext) -> Value:
    p = get_proper_type(t)
    if isinstance(p, TupleType):
        return TupleV(tuple(_result_of(i, b, rc) for i in p.items), SeqKind.TUPLE)
    c = carry.carried(p)
    if isinstance(c, carry.Spec):
        return TensorV(instantiate(c.spec, b, rc.fresh))
    return UNKNOWN


def _strip_specs(t: Type) -> Type:
    p = get_proper_type(t)
    if isinstance(p, Instance):
        return carry.strip(p)
    if isinstance(p, TupleType):
        return p.copy_modified(items=[_strip_specs(i) for i in p.items])
    return t


# -- ints, attributes, reveal_shape ----------------------------------------------------------------------------

INT_OPS = {
    "__add__": arith.add,
    "__radd__": arith.add,
    "__sub__": arith.sub,
    "__mul__": arith.mul,
    "__rmul__": arith.mul,
    "__floordiv__": arith.floordiv,
}


def int_arith(name: str) -> Callable[[MethodContext], Type]:
    """``32 * 16``, ``b * t``: int arithmetic on sizes the plugin knows."""
    op = INT_OPS[name]

    def hook(ctx: MethodContext) -> Type:
        aftercheck.seen(ctx.api)
        left = value_of_type(ctx.type)
        ops = _single_args(ctx)
        if len(ops) != 1 or not isinstance(left, IntV) or not isinstance(ops[0].value, IntV):
            return ctx.default_return_type
        right = ops[0].value.value
        if name == "__rsub__":
            return ctx.default_return_type
        facts = facts_at(ctx.api, ctx.context.line)
        return to_type(IntV(facts.simplify(op(left.value, right))), ctx.default_return_type)

    return hook


def tensor_attribute(attr: str) -> Callable[[AttributeContext], Type]:
    def hook(ctx: AttributeContext) -> Type:
        aftercheck.seen(ctx.api)
        t = ctx.type
        if ctx.is_lvalue or not isinstance(t, Instance) or not carry.has_carried(t):
            return ctx.default_attr_type
        recv = Arg(value_of_type(t), span_of(ctx.context), None)
        span = span_of(ctx.context)
        v = _run(ctx.api, span, lambda rc: engine.tensor_attr(recv, attr, rc, span))
        if isinstance(v, TupleV) and v.kind is SeqKind.SIZE:
            return _size_type(ctx, v)
        return to_type(v or UNKNOWN, ctx.default_attr_type)

    return hook


def _size_type(ctx: AttributeContext, v: TupleV) -> Type:
    """``x.shape`` of a tensor of known rank: a tuple of ints that carry the dims (so unpacking keeps them)."""
    size = get_proper_type(ctx.default_attr_type)
    if not isinstance(size, Instance):
        return ctx.default_attr_type
    int_t = ctx.api.named_generic_type("builtins.int", [])
    return TupleType([to_type(i, int_t) for i in v.items], size)


def module_attribute(attr: str) -> Callable[[AttributeContext], Type]:
    def hook(ctx: AttributeContext) -> Type:
        aftercheck.seen(ctx.api)
        t = ctx.type
        module = carry.carried(t) if isinstance(t, Instance) else None
        if ctx.is_lvalue or not isinstance(module, ModuleV):
            return ctx.default_attr_type
        rc = RuleContext()
        v = engine.module_attr(module, attr, rc)
        return to_type(v or UNKNOWN, ctx.default_attr_type)

    return hook


def reveal_shape(ctx: FunctionContext) -> Type:
    """``reveal_shape(x)`` prints what the plugin knows about ``x`` (code ``reveal``)."""
    aftercheck.seen(ctx.api)
    call = ctx.context
    if not isinstance(call, CallExpr) or len(call.args) != 1 or not ctx.arg_types or not ctx.arg_types[0]:
        return ctx.default_return_type
    t = ctx.arg_types[0][0]
    v = arg_of(call.args[0], ctx.api, t).value
    rc = RuleContext()
    rc.report(codes.REVEAL, f"revealed shape: {describe_value(v)}", span_of(call))
    report(ctx.api, rc.diagnostics)
    return t
