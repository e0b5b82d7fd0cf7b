"""The jaxtyping dtype class of a static proposal when the analysis has no dtype: where the value
comes from, or what the code does with it.

A small flow over one function's source: a parameter fed to an op that refuses integer tensors
(``nn.Linear``, a convolution, ``F.softmax``...) is ``Float``; one fed to ``nn.Embedding``,
``F.one_hot`` or as the index of ``gather`` is ``Int``; the mask of ``masked_fill`` or the
condition of ``torch.where`` is ``Bool``.  A value made by such a module or op (``randn``,
``argmax``, a comparison, ``.float()``) has its class, and a view of a value (``x.view(...)``,
``x[0]``, ``x.transpose(1, 2)``), an arithmetic with a float, a ``cat`` of values of one class keep
it.  Two pieces of evidence that disagree, or none, give nothing (the proposal stays ``Shaped``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import libcst as cst

__all__ = ["function_kinds"]

#: Modules whose weights are float: their input and output are float tensors.
_FLOAT_MODULES = frozenset(
    {
        "Linear",
        "Bilinear",
        "LazyLinear",
        "Conv1d",
        "Conv2d",
        "Conv3d",
        "ConvTranspose1d",
        "ConvTranspose2d",
        "ConvTranspose3d",
        "LayerNorm",
        "GroupNorm",
        "RMSNorm",
        "BatchNorm1d",
        "BatchNorm2d",
        "BatchNorm3d",
        "InstanceNorm1d",
        "InstanceNorm2d",
        "InstanceNorm3d",
        "LSTM",
        "GRU",
        "RNN",
        "MultiheadAttention",
        "TransformerEncoder",
        "TransformerDecoder",
        "TransformerEncoderLayer",
        "TransformerDecoderLayer",
    }
)
#: Modules whose input is indices and output float.
_INDEX_MODULES = frozenset({"Embedding", "EmbeddingBag"})
#: Functions that refuse integer tensors (their first argument is float) and return float.
_FLOAT_FUNCTIONS = frozenset(
    {
        "linear",
        "bilinear",
        "conv1d",
        "conv2d",
        "conv3d",
        "conv_transpose1d",
        "conv_transpose2d",
        "conv_transpose3d",
        "layer_norm",
        "group_norm",
        "batch_norm",
        "softmax",
        "log_softmax",
        "gelu",
        "scaled_dot_product_attention",
    }
)
#: Functions that make float tensors (without ``dtype=``).
_FLOAT_MAKERS = frozenset({"randn", "rand", "randn_like", "rand_like", "zeros", "ones", "empty", "normal"})
#: Methods returning indices, and those converting.
_INT_METHODS = frozenset({"argmax", "argmin", "argsort", "long", "int", "nonzero"})
_FLOAT_METHODS = frozenset({"float", "double", "half", "bfloat16", "softmax", "log_softmax"})
_BOOL_METHODS = frozenset({"bool", "isnan", "isinf", "isfinite", "logical_not", "logical_and", "logical_or"})
#: Methods (and ``torch.`` functions of the same name) whose result is a view or copy of the receiver.
_SAME_METHODS = frozenset(
    {
        "view",
        "reshape",
        "transpose",
        "permute",
        "contiguous",
        "unsqueeze",
        "squeeze",
        "flatten",
        "expand",
        "expand_as",
        "repeat",
        "clone",
        "detach",
        "t",
        "to",
        "flip",
        "roll",
        "narrow",
        "masked_fill",
        "clamp",
        "abs",
        "neg",
    }
)
_DTYPES = {
    "float": "Float",
    "float16": "Float",
    "float32": "Float",
    "float64": "Float",
    "bfloat16": "Float",
    "half": "Float",
    "double": "Float",
    "long": "Int",
    "int": "Int",
    "int8": "Int",
    "int16": "Int",
    "int32": "Int",
    "int64": "Int",
    "bool": "Bool",
}
_ANNOTATED = {"Float": "Float", "Int": "Int", "Integer": "Int", "Bool": "Bool"}


def _name(e: cst.BaseExpression) -> str | None:
    """The last name of ``a.b.c`` / ``c``."""
    if isinstance(e, cst.Name):
        return e.value
    if isinstance(e, cst.Attribute):
        return e.attr.value
    return None


def _dtype_kwarg(call: cst.Call) -> str | None:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "dtype":
            return _DTYPES.get(_name(a.value) or "")
    return None


class _Modules(cst.CSTVisitor):
    """``self.fc = nn.Linear(...)`` in a class's methods: attribute -> module class name (the first
    layer of an ``nn.Sequential``)."""

    def __init__(self) -> None:
        self.attrs: dict[str, str] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            target = t.target
            if (
                isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == "self"
                and isinstance(node.value, cst.Call)
            ):
                call = node.value
                cls = _name(call.func)
                if cls == "Sequential" and call.args and isinstance(call.args[0].value, cst.Call):
                    cls = _name(call.args[0].value.func)
                if cls:
                    self.attrs[target.attr.value] = cls


class _Flow(cst.CSTVisitor):
    """Kinds of one function's names in source order, evidence on its parameters, and its returns."""

    def __init__(self, params: Sequence[str], modules: Mapping[str, str], given: Mapping[str, str]) -> None:
        self.params = set(params)
        self.modules = modules
        self.env: dict[str, str | None] = {p: given[p] for p in params if p in given}
        self.evidence: dict[str, set[str]] = {}
        self.returns: list[str | None] = []
        self.depth = 0

    # -- evidence: what the code does with a parameter -----------------------------------------------
    def _use(self, e: cst.BaseExpression | None, kind: str) -> None:
        while True:  # through views: ``mask.unsqueeze(-1)``, ``mask[:, None]``
            if isinstance(e, cst.Subscript):
                e = e.value
            elif isinstance(e, cst.Call) and isinstance(e.func, cst.Attribute) and e.func.attr.value in _SAME_METHODS:
                e = e.func.value
            else:
                break
        if isinstance(e, cst.Name) and e.value in self.params:
            self.evidence.setdefault(e.value, set()).add(kind)

    def _module(self, func: cst.BaseExpression) -> str | None:
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self":
            return self.modules.get(func.attr.value)
        return None

    def visit_Call(self, node: cst.Call) -> None:
        args = [a.value for a in node.args if a.keyword is None]
        first = args[0] if args else None
        module = self._module(node.func)
        name = _name(node.func)
        if module in _FLOAT_MODULES or (name in _FLOAT_FUNCTIONS and module is None):
            self._use(first, "Float")
        elif module in _INDEX_MODULES or (name in ("embedding", "one_hot") and module is None):
            self._use(first, "Int")
        elif name == "nll_loss" and len(args) > 1:
            self._use(args[1], "Int")
        elif name in ("gather", "index_select") and isinstance(node.func, cst.Attribute):
            receiver_method = not (isinstance(node.func.value, cst.Name) and node.func.value.value == "torch")
            index = args[1] if receiver_method and len(args) > 1 else args[2] if len(args) > 2 else None
            self._use(index, "Int")
        elif name in ("masked_fill", "masked_fill_", "masked_select", "masked_scatter"):
            receiver = isinstance(node.func, cst.Attribute) and not (
                isinstance(node.func.value, cst.Name) and node.func.value.value == "torch"
            )
            self._use(first if receiver else args[1] if len(args) > 1 else None, "Bool")
        elif name == "where" and len(args) == 3:
            self._use(first, "Bool")

    # -- flow: what a value is ------------------------------------------------------------------------
    def kind(self, e: cst.BaseExpression) -> str | None:
        if isinstance(e, cst.Name):
            return self.env.get(e.value)
        if isinstance(e, cst.Subscript):
            return self.kind(e.value)
        if isinstance(e, cst.Comparison):
            return "Bool"
        if isinstance(e, cst.UnaryOperation):
            return self.kind(e.expression)
        if isinstance(e, cst.BinaryOperation):
            kinds = {self.kind(e.left), self.kind(e.right)}
            if isinstance(e.operator, cst.Divide) or "Float" in kinds:
                return "Float"
            if isinstance(e.operator, cst.BitAnd | cst.BitOr | cst.BitXor) and kinds == {"Bool"}:
                return "Bool"
            return None
        if isinstance(e, cst.Call):
            return self._call_kind(e)
        return None

    def _call_kind(self, e: cst.Call) -> str | None:
        dtype = _dtype_kwarg(e)
        module = self._module(e.func)
        name = _name(e.func)
        if module is not None:
            return "Float" if module in _FLOAT_MODULES or module in _INDEX_MODULES else None
        if dtype is not None and name in _FLOAT_MAKERS | {"full", "tensor", "arange", "randint", "to"}:
            return dtype
        if name in _FLOAT_MAKERS or name in _FLOAT_FUNCTIONS:
            return "Float"
        if name == "randint":
            return "Int"
        if not isinstance(e.func, cst.Attribute):
            return None
        receiver = e.func.value
        is_torch = isinstance(receiver, cst.Name) and receiver.value in ("torch", "F")
        if name in _INT_METHODS:
            return "Int"
        if name in _FLOAT_METHODS:
            return "Float"
        if name in _BOOL_METHODS:
            return "Bool"
        if name in ("cat", "stack") and is_torch and e.args:
            items = e.args[0].value
            if isinstance(items, cst.List | cst.Tuple):
                kinds = {self.kind(el.value) for el in items.elements}
                return kinds.pop() if len(kinds) == 1 else None
            return None
        if name in _SAME_METHODS:
            if is_torch:
                return self.kind(e.args[0].value) if e.args else None
            return self.kind(receiver)
        return None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.depth += 1
        return self.depth == 1  # a nested function's names are its own

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def leave_Assign(self, original_node: cst.Assign) -> None:
        kind = self.kind(original_node.value)
        for t in original_node.targets:
            if isinstance(t.target, cst.Name):
                self.env[t.target.value] = kind
            elif isinstance(t.target, cst.Tuple | cst.List):
                for el in t.target.elements:  # ``k, v = kv.chunk(2)``: parts keep the class
                    if isinstance(el.value, cst.Name):
                        self.env[el.value.value] = kind if _chunks(original_node.value) else None

    def visit_Return(self, node: cst.Return) -> None:
        self.returns.append(self.kind(node.value) if node.value is not None else None)


def _chunks(e: cst.BaseExpression) -> bool:
    return isinstance(e, cst.Call) and _name(e.func) in ("chunk", "split", "unbind")


def function_kinds(module: cst.Module) -> dict[str, dict[str, str]]:
    """qualname -> slot (a parameter or ``return``) -> ``Float`` / ``Int`` / ``Bool`` where the code
    says which (see the module's docstring)."""
    out: dict[str, dict[str, str]] = {}

    def walk(body: Sequence[cst.BaseStatement], scope: list[str], modules: Mapping[str, str]) -> None:
        for stmt in body:
            if isinstance(stmt, cst.ClassDef):
                found = _Modules()
                stmt.visit(found)
                walk(_suite(stmt.body), [*scope, stmt.name.value], found.attrs)
            elif isinstance(stmt, cst.FunctionDef):
                out_here = _one(stmt, modules)
                if out_here:
                    out[".".join([*scope, stmt.name.value])] = out_here

    walk(list(module.body), [], {})
    return out


def _suite(body: cst.BaseSuite) -> list[cst.BaseStatement]:
    return list(body.body) if isinstance(body, cst.IndentedBlock) else []


def _one(fn: cst.FunctionDef, modules: Mapping[str, str]) -> dict[str, str]:
    from .generalise import RESULT

    p = fn.params
    params = [x for x in (*p.posonly_params, *p.params, *p.kwonly_params)]
    given: dict[str, str] = {}
    for x in params:
        ann = x.annotation.annotation if x.annotation is not None else None
        if isinstance(ann, cst.Subscript):
            cls = _ANNOTATED.get(_name(ann.value) or "")
            if cls:
                given[x.name.value] = cls
    names = [x.name.value for x in params]
    evidence = _Flow(names, modules, given)
    fn.visit(evidence)  # first: what the body does with each parameter
    kinds = {n: next(iter(k)) for n, k in evidence.evidence.items() if len(k) == 1 and n not in given}
    flow = _Flow(names, modules, {**given, **kinds})
    fn.visit(flow)  # then: the values, in source order, from the parameters' classes
    out = dict(kinds)
    got = set(flow.returns)
    if len(got) == 1 and None not in got:
        out[RESULT] = str(got.pop())
    return out
