"""Calls of annotated user functions and values checked against annotations.

Front-end neutral: both the libcst front end (``infer/``) and the mypy plugin
build an :class:`~tensorshape.rules.stubs.OpDef` from the function's
annotations, call :func:`check_call` with the arguments' values, and
instantiate the return annotation with the bindings it returns.  A returned
value (or an annotated assignment) is checked with :func:`check_value`, whose
dims are the function's rigid symbols.  Nothing here knows libcst or mypy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..lang.render import render_shape
from ..model import codes
from ..model.diagnostics import Code, Span
from ..model.dims import Dim, Star, Unknown, UnknownSource
from ..model.obligations import ObligationKind
from ..model.shape import Item, Shape
from ..model.spec import DimKind, ShapeSpec
from ..model.values import IntV, TensorV, UnknownV, Value
from ..unify.compare import CONDITION_HINT, Verdict, condition_for
from ..unify.facts import Facts
from ..unify.match import Bindings, Operand, match
from ..unify.specexpr import evaluate
from ..unify.symbols import rigid
from . import engine
from .call import Call, report_problems
from .context import Arg, RuleContext
from .stubs import OpDef

__all__ = ["Finding", "shape_of", "check_call", "check_value", "rigid_bindings", "rigid_shape", "param_ref"]

#: Resolves a ``{ref}`` of an annotation (``{n}``, ``{self.dim}``) given the bound arguments.
Refs = Callable[[str, Mapping[str, Arg]], "Dim | None"]


def shape_of(v: Value) -> Shape | None:
    """The shape a value offers to an annotation: a tensor's, unknown for an unknown value, else ``None``."""
    if isinstance(v, TensorV):
        return v.shape
    if isinstance(v, UnknownV):
        return Shape.unknown(v.source)
    return None


def param_ref(path: str, bound: Mapping[str, Arg]) -> Dim | None:
    """``{n}`` in an annotation: the value of the int parameter ``n`` at this call."""
    head, _, rest = path.partition(".")
    a = bound.get(head)
    return a.value.value if a is not None and isinstance(a.value, IntV) and not rest else None


def check_call(
    op: OpDef,
    args: Sequence[Arg],
    kwargs: Mapping[str, Arg],
    rc: RuleContext,
    span: Span,
    name: str,
    refs: Refs | None = None,
) -> Bindings:
    """Match the arguments of a call against the callee's annotated parameters.

    Problems are reported into ``rc`` (at the arguments, with the callee's
    annotations as the hint); the bindings (``b`` -> ``4``) instantiate the
    return annotation.  Arguments that do not bind (wrong count, unknown
    keywords) are mypy's or Python's business: nothing is checked.
    """
    bound = engine.bind(op, list(args), dict(kwargs))
    if bound is None:
        return Bindings(rc.facts)
    resolve = refs or param_ref
    b = Bindings(rc.facts, lambda path: resolve(path, bound))
    call = Call(op, bound, rc, span)
    operands: list[Operand] = []
    params: list[str] = []
    for p in op.params:
        if p.spec is None or p.name not in bound:
            continue
        shape = shape_of(bound[p.name].value)
        if shape is None:
            continue
        operands.append(Operand(p.spec, shape, call.label(p.name)))
        params.append(p.name)
    b.violated = not report_problems(
        call,
        match(operands, b),
        params,
        [o.spec for o in operands],
        {},
        hint=f"the arguments must fit `{name}`'s annotations",
        kind=ObligationKind.ARGUMENT,
    )
    return b


@dataclass(frozen=True, slots=True)
class Finding:
    """A problem :func:`check_value` found: report it with the front end's own machinery."""

    code: Code
    message: str
    hint: str


def rigid_bindings(spec: ShapeSpec, facts: Facts, refs: Callable[[str], Dim | None] | None = None) -> Bindings:
    """Bindings where the annotation's names are the function's rigid symbols (inside its body)."""
    b = Bindings(facts, refs)
    for n in spec.names():
        b.bind(n, rigid(n), "the annotation")
    for d in spec.dims:
        if d.kind is DimKind.VARIADIC and d.name:
            b.vars[d.name] = (Star(d.name),)
    return b


def rigid_shape(spec: ShapeSpec, refs: Callable[[str], Dim | None] | None = None) -> Shape:
    """The shape an annotation describes inside the annotated function: rigid symbols named as
    written (a ragged dim ``jagged=n`` is its own symbol ``n~``); ``refs`` resolves ``{ref}``s."""
    from .ops.jagged import declare_jagged

    items: list[Item] = []
    for d in spec.dims:
        k = d.kind
        if k is DimKind.FIXED:
            assert d.size is not None
            items.append(d.size)
        elif k is DimKind.NAMED and d.jagged and d.name is not None:
            items.append(rigid(d.name + "~"))
            declare_jagged(d.name + "~")
        elif k is DimKind.NAMED:
            assert d.name is not None
            items.append(rigid(d.name))
        elif k is DimKind.EXPR:
            assert d.expr is not None
            v = evaluate(d.expr, rigid, refs)
            items.append(Unknown(UnknownSource.ANNOTATED) if v is None else v)
        elif k is DimKind.ANON:
            items.append(Unknown(UnknownSource.ANNOTATED))
        elif k is DimKind.VARIADIC:
            items.append(Star(d.name))
        else:
            items.append(Star(None, UnknownSource.ANNOTATED))
    return Shape(tuple(items))


def check_value(spec: ShapeSpec, shape: Shape, b: Bindings, what: str) -> tuple[list[Finding], list[str]]:
    """Check a shape against an annotation inside the annotated function (``what``: ``"return"``...).

    Returns the errors to report and the requirements that hold only at run
    time (obligations; the CLI turns them into runtime checks).
    """
    findings: list[Finding] = []
    pending: list[str] = []
    for p in match([Operand(spec, shape, what)], b):
        text = f"{what} value has shape {render_shape(shape)}, but the annotation says {spec.text!r}: {p.message}"
        if p.verdict is Verdict.ERROR:
            code = codes.RANK_MISMATCH if p.kind.name == "RANK" else codes.SHAPE_MISMATCH
            findings.append(Finding(code, text, "fix the computation or the annotation"))
        elif p.verdict is Verdict.UNPROVEN and (
            condition := condition_for(*p.relation, b.facts) if p.relation is not None else None
        ):
            findings.append(Finding(codes.SIZE_CONDITION, f"{text}: {condition}", CONDITION_HINT))
            pending.append(p.message)
        elif p.verdict is Verdict.UNPROVEN:
            findings.append(Finding(codes.SYMBOLIC_MISMATCH, text, "use the same dim names, or `assert` the relation"))
        elif p.verdict is Verdict.OBLIGATION:
            pending.append(p.message)
    return findings, pending
