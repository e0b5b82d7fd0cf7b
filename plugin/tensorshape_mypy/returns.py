"""A returned value checked against the function's return annotation (the core's rule)."""

from __future__ import annotations

from mypy.messages import MessageBuilder
from mypy.nodes import Expression
from mypy.types import TupleType, Type, get_proper_type
from tensorshape.rules.context import RuleContext
from tensorshape.rules.signature import check_value, rigid_bindings, shape_of
from tensorshape.unify.facts import NO_FACTS, Facts

from . import carry
from .report import report_to
from .translate import span_of, value_of_type

__all__ = ["check_return"]


def check_return(msg: MessageBuilder, declared: Type, typ: Type, expr: Expression, facts: Facts = NO_FACTS) -> None:
    """``return expr`` (of type ``typ``) in a function declared to return ``declared``, under ``facts``."""
    d = get_proper_type(declared)
    if isinstance(d, TupleType):
        t = get_proper_type(typ)
        if isinstance(t, TupleType) and len(t.items) == len(d.items):
            for di, ti in zip(d.items, t.items):
                check_return(msg, di, ti, expr, facts)
        return
    spec = carry.carried(d)
    if not isinstance(spec, carry.Spec):
        return
    shape = shape_of(value_of_type(typ))
    if shape is None:
        return
    rc = RuleContext(facts=facts, default_span=span_of(expr))
    findings, _ = check_value(spec.spec, shape, rigid_bindings(spec.spec, rc.facts), "return")
    for f in findings:
        rc.report(f.code, f.message, span_of(expr), f.hint)
    report_to(msg, rc.diagnostics)
