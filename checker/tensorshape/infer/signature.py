"""Signatures of the project's own functions, read from their annotations."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from ..model.diagnostics import Code, Diagnostic, Span
from ..model.values import UnknownV, Value
from ..rules.stubs import OpDef, Param, ParamKind, Returns
from .annotations import Annotation, read_annotation

if TYPE_CHECKING:
    from .project import ModuleInfo
    from .values import FunctionV

#: Evaluates an expression in a module's globals (annotations, defaults).
StaticValue = Callable[["ModuleInfo", cst.BaseExpression], Value]

__all__ = ["UParam", "Signature", "signature_of", "annotation_names"]

_KINDS = {
    "positional_only": ParamKind.POSITIONAL_ONLY,
    "positional": ParamKind.POSITIONAL,
    "var_positional": ParamKind.VAR_POSITIONAL,
    "keyword_only": ParamKind.KEYWORD_ONLY,
    "var_keyword": ParamKind.VAR_KEYWORD,
}


@dataclass(frozen=True, slots=True)
class UParam:
    name: str
    kind: str
    annotation: Annotation | None = None
    default: Value | None = None


@dataclass(slots=True)
class Signature:
    params: tuple[UParam, ...]
    returns: Annotation | None
    #: Does the first parameter receive the instance (a method that is not static)?
    is_method: bool
    #: Problems found in the annotations (reported with the function's own analysis).
    diagnostics: list[Diagnostic] = field(default_factory=list)
    _opdef: OpDef | None = None

    @property
    def has_shapes(self) -> bool:
        """Does any parameter or the return carry a shape spec?"""
        anns = [p.annotation for p in self.params] + [self.returns]
        return any(_has_spec(a) for a in anns if a is not None)

    @property
    def returns_shape(self) -> bool:
        return self.returns is not None and _has_spec(self.returns)

    def spec_names(self) -> set[str]:
        out: set[str] = set()
        for a in [p.annotation for p in self.params] + [self.returns]:
            if a is not None:
                out |= annotation_names(a)
        return out

    def opdef(self, qualname: str) -> OpDef:
        """The signature as the rule engine's :class:`OpDef` (for binding call arguments)."""
        if self._opdef is None:
            params = tuple(
                Param(
                    p.name,
                    _KINDS[p.kind],
                    p.default,
                    p.annotation.spec if p.annotation is not None and p.annotation.kind == "tensor" else None,
                    None,
                )
                for p in self.params
            )
            self._opdef = OpDef(qualname, params, Returns("unknown"))
        return self._opdef


def _has_spec(a: Annotation) -> bool:
    if a.kind == "tensor":
        return a.spec is not None
    return any(_has_spec(i) for i in a.items)


def annotation_names(a: Annotation) -> set[str]:
    """The dim names an annotation's shape specs use."""
    out: set[str] = set(a.spec.names()) if a.spec is not None else set()
    for i in a.items:
        out |= annotation_names(i)
    return out


def signature_of(f: FunctionV, static_value: StaticValue) -> Signature:
    """Read ``f``'s parameters, defaults and annotations (names resolve in its module, already run)."""
    module = f.module
    diags: list[Diagnostic] = []

    def report(code: Code, message: str, span: Span, hint: str | None) -> None:
        diags.append(Diagnostic(code, message, span, code.severity, hint))

    def ticket(node: cst.CSTNode, start: int = 0, length: int = 0) -> Span:
        assert module.spans is not None
        return module.spans.ticket(node, start, length)

    def resolve(expr: cst.BaseExpression) -> Value:
        return static_value(module, expr)

    def ann(node: cst.Annotation | None) -> Annotation | None:
        if node is None:
            return None
        return read_annotation(node.annotation, resolve, report, ticket)

    def default(node: cst.BaseExpression | None) -> Value | None:
        if node is None:
            return None
        try:
            return static_value(module, node)
        except Exception:  # noqa: BLE001 - a default we cannot evaluate is unknown
            return UnknownV()

    ps = f.node.params
    params: list[UParam] = []
    for p in ps.posonly_params:
        params.append(UParam(p.name.value, "positional_only", ann(p.annotation), default(p.default)))
    for p in ps.params:
        params.append(UParam(p.name.value, "positional", ann(p.annotation), default(p.default)))
    if type(ps.star_arg) is cst.Param:
        params.append(UParam(ps.star_arg.name.value, "var_positional", ann(ps.star_arg.annotation)))
    for p in ps.kwonly_params:
        params.append(UParam(p.name.value, "keyword_only", ann(p.annotation), default(p.default)))
    if ps.star_kwarg is not None:
        params.append(UParam(ps.star_kwarg.name.value, "var_keyword", ann(ps.star_kwarg.annotation)))
    returns = ann(f.node.returns)
    decorators = {_decorator_name(d) for d in f.node.decorators}
    is_method = f.owner is not None and "staticmethod" not in decorators and bool(params)
    return Signature(tuple(params), returns, is_method, diags)


def _decorator_name(d: cst.Decorator) -> str:
    e = d.decorator
    if type(e) is cst.Call:
        e = e.func
    if type(e) is cst.Attribute:
        return e.attr.value
    if isinstance(e, cst.Name):
        return e.value
    return ""
