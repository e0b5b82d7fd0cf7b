"""Compile a shape spec once into a plan that checks a shape with plain Python ints.

No sympy and no parsing at check time: a plan is a tuple of steps; symbolic
dims (``2*d``, ``d-1``, ``min(a,b)``) become small Python functions of the
bindings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..lang.parse import parse_shape
from ..model.spec import DimKind, EBin, ECall, EInt, EName, ENeg, ERef, SpecExpr

__all__ = ["Plan", "compile_spec", "Step"]

Expr = Callable[[Mapping[str, object], Mapping[str, object]], int]

#: Step kinds: fixed size, a name to bind, an expression to check, skip, a variadic run.
FIXED, NAME, EXPR, SKIP, RUN = range(5)


@dataclass(frozen=True, slots=True)
class Step:
    kind: int
    #: FIXED: the size.
    size: int = 0
    #: NAME/RUN: the name (``None`` for ``...``); EXPR: the source text.
    name: str | None = None
    broadcast: bool = False
    expr: Expr | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    text: str
    before: tuple[Step, ...]
    run: Step | None
    after: tuple[Step, ...]
    #: Expression steps, checked once every plain name of the call is bound.
    deferred: bool

    @property
    def min_rank(self) -> int:
        return len(self.before) + len(self.after)


_OPS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "**": lambda a, b: a**b,
}


def _compile_expr(e: SpecExpr) -> Expr:
    if isinstance(e, EInt):
        v = e.value
        return lambda b, r: v
    if isinstance(e, EName):
        n = e.name
        return lambda b, r: b[n]  # type: ignore[return-value]
    if isinstance(e, ERef):
        path = e.path
        return lambda b, r: _ref(r, path)
    if isinstance(e, ENeg):
        f = _compile_expr(e.operand)
        return lambda b, r: -f(b, r)
    if isinstance(e, EBin):
        op, lf, rf = _OPS[e.op], _compile_expr(e.left), _compile_expr(e.right)
        return lambda b, r: op(lf(b, r), rf(b, r))
    assert isinstance(e, ECall)
    fn = min if e.func == "min" else max
    args = [_compile_expr(a) for a in e.args]
    return lambda b, r: fn(a(b, r) for a in args)


def _ref(refs: Mapping[str, object], path: str) -> int:
    head, *rest = path.split(".")
    value = refs[head]
    for attr in rest:
        value = getattr(value, attr)
    return int(value)  # type: ignore[call-overload, no-any-return]


_PLANS: dict[str, Plan] = {}


def compile_spec(text: str) -> Plan:
    """The plan of a shape string (cached in a plain dict, which ``torch.compile`` traces cheaply)."""
    plan = _PLANS.get(text)
    if plan is None:
        plan = _PLANS[text] = _compile(text)
    return plan


def _compile(text: str) -> Plan:
    spec = parse_shape(text)
    steps: list[Step] = []
    run_at: int | None = None
    deferred = False
    for d in spec.dims:
        k = d.kind
        if k is DimKind.FIXED:
            steps.append(Step(FIXED, d.size or 0, None, d.broadcastable))
        elif k is DimKind.NAMED:
            steps.append(Step(NAME, 0, d.name, d.broadcastable))
        elif k is DimKind.EXPR:
            assert d.expr is not None
            steps.append(Step(EXPR, 0, text[d.start : d.end], d.broadcastable, _compile_expr(d.expr)))
            deferred = True
        elif k is DimKind.ANON:
            steps.append(Step(SKIP))
        else:
            run_at = len(steps)
            steps.append(Step(RUN, 0, d.name if k is DimKind.VARIADIC else None, d.broadcastable))
    if run_at is None:
        return Plan(text, tuple(steps), None, (), deferred)
    return Plan(text, tuple(steps[:run_at]), steps[run_at], tuple(steps[run_at + 1 :]), deferred)
