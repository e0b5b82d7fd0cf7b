"""Apply op rules to calls: the one entry point both front ends use.

Front ends resolve what is called to a canonical name (``torch.matmul``,
``torch.nn.Linear``) and pass the arguments' abstract values; the engine binds
them to the stub signature, applies the declarative spec or the Python rule,
and reports through the :class:`~tensorshape.rules.context.RuleContext`.
A name the table does not know gives ``None``: the caller decides what an
unknown op means (an unknown result, and optionally an ``unknown-op`` note).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..lang.render import render_shape
from ..model.diagnostics import Span
from ..model.dims import Dim, Unknown, UnknownSource
from ..model.shape import Shape
from ..model.values import (
    NONE,
    BoolV,
    DictV,
    FloatV,
    IntV,
    Layout,
    MaybeIntV,
    ModuleV,
    NoneV,
    SeqKind,
    SeqV,
    StrV,
    TensorV,
    TupleV,
    UnknownV,
    Value,
    unknown_tensor,
)
from ..unify import arith
from ..unify.match import Bindings, Operand, instantiate, match
from . import levels
from .call import Call, as_dim, as_dims, report_problems
from .context import Arg, RuleContext
from .registry import get_rule
from .stubs import OpDef, ParamKind, Returns, Table, load_table

__all__ = [
    "table",
    "bind",
    "call_function",
    "call_method",
    "construct_module",
    "call_module",
    "module_attr",
    "tensor_attr",
    "binary_op",
    "unary_op",
    "getitem",
    "PostHook",
    "post_hooks",
    "required_by_module",
    "required_by_function",
    "required_by_method",
]

#: Layered analyses (Vollo) see every applied op after its shape rule.
PostHook = Callable[[Call, Value], Value]
post_hooks: list[PostHook] = []


def table() -> Table:
    return load_table()


def bind(op: OpDef, args: Sequence[Arg], kwargs: Mapping[str, Arg]) -> dict[str, Arg] | None:
    """Bind actual arguments to parameters as Python does; ``None`` when they do not fit."""
    bound: dict[str, Arg] = {}
    positional = [p for p in op.params if p.kind in (ParamKind.POSITIONAL_ONLY, ParamKind.POSITIONAL)]
    var = next((p for p in op.params if p.kind is ParamKind.VAR_POSITIONAL), None)
    varkw = next((p for p in op.params if p.kind is ParamKind.VAR_KEYWORD), None)
    extra: list[Arg] = []
    for i, a in enumerate(args):
        if i < len(positional):
            bound[positional[i].name] = a
        elif var is not None:
            extra.append(a)
        else:
            return None
    if var is not None:
        spans = [a.span for a in extra if a.span is not None]
        span = Span(spans[0].line, spans[0].column, spans[-1].end_line, spans[-1].end_column) if spans else None
        bound[var.name] = Arg(TupleV(tuple(a.value for a in extra), SeqKind.TUPLE), span, None)
    extra_kw: list[tuple[str, Value]] = []
    for name, a in kwargs.items():
        p = op.param(name)
        if p is None or p.kind in (ParamKind.POSITIONAL_ONLY, ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD):
            if varkw is None:
                return None
            extra_kw.append((name, a.value))
            continue
        if name in bound:
            return None
        bound[name] = a
    if varkw is not None:
        bound[varkw.name] = Arg(DictV(tuple(extra_kw)))
    for p in op.params:
        if p.name not in bound and p.kind not in (ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD):
            if p.default is None:
                return None
            bound[p.name] = Arg(p.default)
        elif (
            p.kind is not ParamKind.VAR_POSITIONAL
            and p.name in bound
            and not _fits(p.type, p.spec is not None, bound[p.name].value)
        ):
            return None
    return bound


_NUMBERS = (IntV, FloatV, BoolV)


def _fits(type_name: str | None, has_spec: bool, v: Value) -> bool:
    """Does a value fit a declared parameter type?  Overloads are chosen by this."""
    if isinstance(v, UnknownV) or type_name is None:
        return True
    if has_spec:
        return not isinstance(v, (TupleV, StrV))
    if type_name == "Tensor":
        return isinstance(v, TensorV)
    if type_name == "int":
        return isinstance(v, (IntV, BoolV))
    if type_name in ("float", "bool"):
        return isinstance(v, _NUMBERS)
    if type_name == "Sequence":
        return isinstance(v, (TupleV, SeqV))
    if type_name.startswith("int | None"):
        return isinstance(v, (IntV, BoolV, NoneV))
    return True


def _apply(
    op: OpDef, bound: dict[str, Arg], ctx: RuleContext, span: Span | None, module: ModuleV | None = None
) -> Value:
    call = Call(op, bound, ctx, span, module)
    if op.rule is not None:
        fn = get_rule(op.rule)
        if fn is None:
            raise LookupError(f"{op.file}:{op.line}: no Python rule named {op.rule!r}")
        result = fn(call)
    else:
        result = _declarative(call)
    for hook in post_hooks:
        result = hook(call, result)
    return result


def _declarative(call: Call) -> Value:
    """Match tensor parameters against their specs; instantiate the return spec."""
    op = call.op
    b = Bindings(call.ctx.facts, refs=lambda path: _ref(call, path))
    names: set[str] = set()
    for p in op.params:
        if p.spec is not None:
            names |= p.spec.names()
    for r in op.returns.specs:
        if r is not None:
            names |= r.names()
    subst: dict[str, str] = {}
    _prebind_module(call, b, names, subst)
    for p in op.params:
        if p.spec is not None or p.name not in names:
            continue
        v = call.value(p.name)
        if p.kind is ParamKind.VAR_POSITIONAL:
            dims = as_dims(v)
            if dims is not None:
                b.vars[p.name] = dims
            continue
        d = as_dim(v)
        if d is not None:
            b.bind(p.name, d, f"`{p.name}`")
            if type(d) is int:
                subst[p.name] = str(d)
            elif call.arg(p.name).text and call.arg(p.name).text.isidentifier():  # type: ignore[union-attr]
                subst[p.name] = "{" + call.arg(p.name).text + "}"  # type: ignore[operator]
    operands: list[Operand] = []
    params: list[str] = []
    for p in op.params:
        if p.spec is None:
            continue
        v = call.value(p.name)
        if isinstance(v, NoneV):
            continue
        if isinstance(v, MaybeIntV):
            shape = Shape.unknown()
        elif isinstance(v, (IntV, FloatV, BoolV)):
            if p.spec.variadic_index is None:
                continue
            shape = Shape(())
        elif isinstance(v, TensorV):
            shape = v.shape
        elif isinstance(v, UnknownV):
            shape = Shape.unknown(v.source)
        else:
            continue
        operands.append(Operand(p.spec, shape, call.label(p.name)))
        params.append(p.name)
    problems = match(operands, b)
    report_problems(call, problems, params, [o.spec for o in operands], subst)
    return _result(call, op.returns, b)


def _prebind_module(call: Call, b: Bindings, names: set[str], subst: dict[str, str] | None = None) -> None:
    """A module's ``forward`` sees its constructor's int arguments as dims."""
    if call.module is None:
        return
    for k, v in call.module.args.items():
        if k in names:
            d = as_dim(v)
            if d is not None:
                b.bind(k, d, f"{call.name}'s `{k}`")
                if subst is not None and type(d) is int:
                    subst[k] = str(d)  # runtime checks spell the size out


def _ref(call: Call, path: str) -> Dim | None:
    head, _, rest = path.partition(".")
    if head == "self" and call.module is not None and rest:
        return as_dim(call.module.args.get(rest, UnknownV()))
    if head in call.bound and not rest:
        return as_dim(call.value(head))
    return None


def _result(call: Call, returns: Returns, b: Bindings) -> Value:
    fresh = call.ctx.fresh
    if returns.kind == "tensor":
        spec = returns.specs[0] if returns.specs else None
        if spec is None:
            return unknown_tensor(UnknownSource.UNSUPPORTED)
        return TensorV(instantiate(spec, b, fresh), _result_dtype(call))
    if returns.kind == "tuple":
        return TupleV(
            tuple(
                TensorV(instantiate(s, b, fresh)) if s is not None else unknown_tensor(UnknownSource.UNSUPPORTED)
                for s in returns.specs
            )
        )
    if returns.kind == "int":
        return IntV(Unknown(UnknownSource.DATA_DEPENDENT))
    if returns.kind == "bool":
        return BoolV(None)
    if returns.kind == "none":
        return NONE
    return UnknownV(UnknownSource.UNSUPPORTED)


def _result_dtype(call: Call) -> str | None:
    if "compare" in call.op.kinds:
        return "bool"
    for p in call.op.params:
        if p.spec is not None:
            v = call.value(p.name)
            if isinstance(v, TensorV):
                return v.dtype
    return None


def _first_binding(
    defs: list[OpDef], args: Sequence[Arg], kwargs: Mapping[str, Arg]
) -> tuple[OpDef, dict[str, Arg]] | None:
    for op in defs:
        bound = bind(op, args, kwargs)
        if bound is not None:
            return op, bound
    return None


# -- entry points -------------------------------------------------------------------


def call_function(
    qualname: str, args: Sequence[Arg], kwargs: Mapping[str, Arg], ctx: RuleContext, span: Span | None = None
) -> Value | None:
    """Apply the rule of function ``qualname``; ``None`` when no stub declares it."""
    defs = table().lookup(qualname)
    if not defs:
        return None
    if levels.involved(args, kwargs):
        return levels.apply(
            table(), [qualname], args, kwargs, ctx, span, lambda a, k: call_function(qualname, a, k, ctx, span)
        )
    hit = _first_binding(defs, args, kwargs)
    if hit is None:
        return UnknownV(UnknownSource.UNSUPPORTED)
    return _apply(hit[0], hit[1], ctx, span)


def call_method(
    receiver: Arg, name: str, args: Sequence[Arg], kwargs: Mapping[str, Arg], ctx: RuleContext, span: Span | None = None
) -> Value | None:
    """Apply a Tensor method: ``torch.Tensor.<name>``, else the function ``torch.<name>``.

    An in-place variant (``add_``) gives its base op's result and requires it to
    have the receiver's shape.  First-class dims go through :mod:`.levels`.
    """
    if levels.involved([receiver, *args], kwargs):
        return levels.apply(
            table(),
            [f"torch.Tensor.{name}", f"torch.{name}"],
            [receiver, *args],
            kwargs,
            ctx,
            span,
            lambda a, k: call_method(a[0], name, a[1:], k, ctx, span),
        )
    for qual in (f"torch.Tensor.{name}", f"torch.{name}"):
        defs = table().lookup(qual)
        if defs:
            hit = _first_binding(defs, [receiver, *args], kwargs)
            if hit is None:
                return UnknownV(UnknownSource.UNSUPPORTED)
            return _apply(hit[0], hit[1], ctx, span)
    if name.endswith("_") and not name.endswith("__"):
        result = call_method(receiver, name[:-1], args, kwargs, ctx, span)
        if result is None:
            return None
        if name in _RESHAPING_INPLACE:
            return result
        return _inplace(receiver, name, result, ctx, span)
    return None


#: In-place methods that change their tensor's shape on purpose.
_RESHAPING_INPLACE = frozenset(
    {
        "unsqueeze_",
        "squeeze_",
        "transpose_",
        "t_",
        "swapdims_",
        "swapaxes_",
        "resize_",
        "resize_as_",
        "as_strided_",
        "set_",
    }
)


def _inplace(receiver: Arg, name: str, result: Value, ctx: RuleContext, span: Span | None) -> Value:
    from ..model import codes
    from ..unify.compare import Verdict
    from .ops.util import shapes_equal

    self_v = receiver.value
    if isinstance(self_v, TensorV) and isinstance(result, TensorV):
        verdict = shapes_equal(result.shape, self_v.shape, ctx.facts)
        if verdict is Verdict.ERROR:
            ctx.report(
                codes.BROADCAST,
                f"{name}: in-place result {render_shape(result.shape)} does not fit the tensor it writes into, "
                f"{render_shape(self_v.shape)}",
                span,
                "an in-place op cannot change its tensor's shape; use the out-of-place op",
            )
        return self_v
    return result


def _member(qualname: str, member: str) -> list[OpDef]:
    """``Class.member``'s definitions, looked up through the stub base classes."""
    tab = table()
    seen: set[str] = set()
    todo = [qualname]
    while todo:
        q = todo.pop(0)
        if q in seen:
            continue
        seen.add(q)
        defs = tab.lookup(f"{q}.{member}")
        if defs:
            return defs
        cls = tab.classes.get(q)
        if cls is not None:
            todo.extend(_qualify(q, b) for b in cls.bases)
    return []


def class_kinds(qualname: str) -> frozenset[str]:
    """The ``@kind`` tags of a module class, including its bases'."""
    tab = table()
    out: frozenset[str] = frozenset()
    q: str | None = qualname
    seen: set[str] = set()
    while q is not None and q not in seen:
        seen.add(q)
        cls = tab.classes.get(q)
        if cls is None:
            break
        out |= cls.kinds
        q = _qualify(q, cls.bases[0]) if cls.bases else None
    return out


def construct_module(
    qualname: str, args: Sequence[Arg], kwargs: Mapping[str, Arg], ctx: RuleContext, span: Span | None = None
) -> Value | None:
    """``nn.Linear(128, 10)``: a :class:`ModuleV` holding the bound constructor arguments."""
    if qualname not in table().classes:
        return None
    defs = _member(qualname, "__init__")
    if not defs:
        return ModuleV(qualname, {})
    hit = _first_binding(defs, args, kwargs)
    if hit is None:
        return ModuleV(qualname, {})
    op, bound = hit
    if op.rule is not None:
        made = _apply(op, bound, ctx, span)
        if isinstance(made, ModuleV) and made.qualname != qualname:
            return ModuleV(qualname, made.args, made.children)
        return made
    return ModuleV(qualname, {k: a.value for k, a in bound.items()})


def call_module(
    module: ModuleV, args: Sequence[Arg], kwargs: Mapping[str, Arg], ctx: RuleContext, span: Span | None = None
) -> Value | None:
    """Calling a module instance applies its ``forward`` rule."""
    defs = _member(module.qualname, "forward")
    if not defs:
        return None
    hit = _first_binding(defs, args, kwargs)
    if hit is None:
        return UnknownV(UnknownSource.UNSUPPORTED)
    return _apply(hit[0], hit[1], ctx, span, module)


def _qualify(qualname: str, base: str) -> str:
    ns = qualname.rsplit(".", 1)[0]
    return base if "." in base else f"{ns}.{base}"


#: torch's convolution layers: their dims, and whether the weight is ``[in, out/groups, *k]`` (transposed).
_CONVS = {f"torch.nn.{kind}{n}d": (n, kind == "ConvTranspose") for kind in ("Conv", "ConvTranspose") for n in (1, 2, 3)}


def _conv_param(module: ModuleV, attr: str, ctx: RuleContext) -> Value | None:
    """A convolution's ``weight`` (``[out, in/groups, *kernel]``; transposed ``[in, out/groups, *kernel]``)
    and ``bias`` (``[out]``, ``None`` with ``bias=False``), as torch's ``_ConvNd`` makes them."""
    n, transposed = _CONVS[module.qualname]
    args = module.args
    if attr == "bias":
        if args.get("bias") == BoolV(False):
            return NONE
        return TensorV(Shape((_dim_arg(args, "out_channels", None),)), layout=_parameter_layout(ctx))
    k = args.get("kernel_size")
    given = as_dims(k) if isinstance(k, TupleV) else None
    kernel: tuple[Dim, ...]
    if given is not None and len(given) == n:
        kernel = tuple(given)
    else:
        one = as_dim(k) if k is not None and not isinstance(k, TupleV) else None
        kernel = (one if one is not None else Unknown(UnknownSource.UNSUPPORTED),) * n
    c_in, c_out = _dim_arg(args, "in_channels", None), _dim_arg(args, "out_channels", None)
    groups = _dim_arg(args, "groups", 1)
    first, second = (c_in, c_out) if transposed else (c_out, c_in)
    per_group = (
        arith.floordiv(second, groups)
        if not isinstance(second, Unknown) and not isinstance(groups, Unknown)
        else Unknown(UnknownSource.UNSUPPORTED)
    )
    return TensorV(Shape((first, per_group, *kernel)), layout=_parameter_layout(ctx))


def _layer_norm_param(module: ModuleV, attr: str, ctx: RuleContext) -> Value | None:
    """``nn.LayerNorm(normalized_shape)``'s ``weight`` and ``bias``: ``normalized_shape`` (an int is one
    dim); ``None`` without ``elementwise_affine`` (or, for ``bias``, with ``bias=False``)."""
    args = module.args
    if args.get("elementwise_affine") == BoolV(False) or (attr == "bias" and args.get("bias") == BoolV(False)):
        return NONE
    given = args.get("normalized_shape")
    listed = as_dims(given) if isinstance(given, (TupleV, SeqV)) else None
    one = as_dim(given) if given is not None and listed is None else None
    dims = tuple(listed) if listed is not None else (one,) if one is not None else None
    return TensorV(Shape(dims), layout=_parameter_layout(ctx)) if dims is not None else None


def _parameter_layout(ctx: RuleContext) -> Layout | None:
    # Parameters and buffers are compile-time constants (Vollo).
    return Layout(True) if ctx.options.vollo else None


def _dim_arg(args: Mapping[str, Value], name: str, default: int | None) -> Dim:
    v = args.get(name)
    d = as_dim(v) if v is not None else default
    return d if d is not None else Unknown(UnknownSource.UNSUPPORTED)


def module_attr(module: ModuleV, attr: str, ctx: RuleContext) -> Value | None:
    """``lin.weight`` (from the class's attribute specs) or ``lin.out_features``."""
    if attr in ("weight", "bias") and module.qualname in _CONVS:
        return _conv_param(module, attr, ctx)
    if attr in ("weight", "bias") and module.qualname == "torch.nn.LayerNorm":
        return _layer_norm_param(module, attr, ctx)
    cls = None
    q: str | None = module.qualname
    while q is not None:
        c = table().classes.get(q)
        if c is None:
            break
        if attr in c.attrs:
            cls = c
            break
        q = _qualify(q, c.bases[0]) if c.bases else None
    if cls is not None:
        b = Bindings(ctx.facts)
        for k, v in module.args.items():
            d = as_dim(v)
            if d is not None:
                b.bind(k, d)
        if module.args.get("bias") == BoolV(False) and attr == "bias":
            return NONE
        # Parameters and buffers are compile-time constants (Vollo).
        return TensorV(instantiate(cls.attrs[attr], b, ctx.fresh), layout=Layout(True) if ctx.options.vollo else None)
    if attr in module.args:
        return module.args[attr]
    return None


def tensor_attr(receiver: Arg, attr: str, ctx: RuleContext, span: Span | None = None) -> Value | None:
    """Tensor attributes declared as ``@kind("property")`` in the stubs (``shape``, ``T``...)."""
    defs = table().lookup(f"torch.Tensor.{attr}")
    if defs and "property" in defs[0].kinds:
        if levels.involved([receiver], {}):
            return levels.apply(
                table(), [f"torch.{attr}"], [receiver], {}, ctx, span, lambda a, k: tensor_attr(a[0], attr, ctx, span)
            )
        return _apply(defs[0], {"self": receiver}, ctx, span)
    return None


_BINARY = {
    "+": "add",
    "-": "sub",
    "*": "mul",
    "/": "div",
    "//": "floor_divide",
    "%": "remainder",
    "**": "pow",
    "@": "matmul",
    "&": "bitwise_and",
    "|": "bitwise_or",
    "^": "bitwise_xor",
    "<<": "bitwise_left_shift",
    ">>": "bitwise_right_shift",
    "==": "eq",
    "!=": "ne",
    "<": "lt",
    "<=": "le",
    ">": "gt",
    ">=": "ge",
}

_UNARY = {"-": "neg", "~": "bitwise_not", "+": "positive"}


def binary_op(op: str, left: Arg, right: Arg, ctx: RuleContext, span: Span | None = None) -> Value | None:
    """A Python operator with at least one tensor operand (``x + y``, ``x @ w``)."""
    name = _BINARY.get(op)
    if name is None:
        return None
    return call_function(f"torch.{name}", [left, right], {}, ctx, span)


def unary_op(op: str, operand: Arg, ctx: RuleContext, span: Span | None = None) -> Value | None:
    name = _UNARY.get(op)
    if name is None:
        return None
    return call_function(f"torch.{name}", [operand], {}, ctx, span)


def getitem(receiver: Arg, index: Arg, ctx: RuleContext, span: Span | None = None) -> Value | None:
    """``x[...]`` on a tensor."""
    return call_method(receiver, "__getitem__", [index], {}, ctx, span)


# -- what an op requires of an argument whose shape is unknown (parameters learning from use) --


def required_by_module(
    module: ModuleV, args: Sequence[Arg], kwargs: Mapping[str, Arg], probe: Arg, ctx: RuleContext
) -> TensorV | None:
    """The tensor ``module(...)`` accepts for the argument ``probe`` (one of ``args``/``kwargs``)."""
    from .requires import required_shape

    hit = _first_binding(_member(module.qualname, "forward"), args, kwargs)
    if hit is None:
        return None
    return required_shape(hit[0], hit[1], probe, ctx, module, lambda m, a, k: required_by_module(m, a, k, a[0], ctx))


def required_by_function(
    qualname: str, args: Sequence[Arg], kwargs: Mapping[str, Arg], probe: Arg, ctx: RuleContext
) -> TensorV | None:
    """The tensor the function ``qualname`` accepts for the argument ``probe``."""
    from .requires import required_shape

    hit = _first_binding(table().lookup(qualname), args, kwargs)
    return required_shape(hit[0], hit[1], probe, ctx) if hit is not None else None


def required_by_method(
    receiver: Arg, name: str, args: Sequence[Arg], kwargs: Mapping[str, Arg], probe: Arg, ctx: RuleContext
) -> TensorV | None:
    """The tensor the Tensor method ``name`` accepts for the argument ``probe`` (or the receiver)."""
    from .requires import required_shape

    for qual in (f"torch.Tensor.{name}", f"torch.{name}"):
        defs = table().lookup(qual)
        if defs:
            hit = _first_binding(defs, [receiver, *args], kwargs)
            return required_shape(hit[0], hit[1], probe, ctx) if hit is not None else None
    return None
