"""A call bound to its stub signature: what a Python rule sees and reports through."""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..lang.parse import parse_shape
from ..lang.render import render_dim, render_shape
from ..model import codes
from ..model.constraints import Rel
from ..model.diagnostics import Code, Span
from ..model.dims import Dim, Star, Unknown, UnknownSource
from ..model.obligations import Obligation, ObligationKind, SpecCheck
from ..model.shape import Item, Shape
from ..model.spec import DimKind, ShapeSpec
from ..model.values import (
    BoolV,
    FloatV,
    IntV,
    MaybeIntV,
    ModuleV,
    NoneV,
    RunV,
    SeqV,
    StrV,
    TensorV,
    TupleV,
    UnknownV,
    Value,
    unknown_tensor,
)
from ..unify import arith
from ..unify.broadcast import broadcast_dims
from ..unify.compare import CONDITION_HINT, Truth, Verdict, classify, condition_for, eq3, free_symbols
from ..unify.match import Bindings, Operand, Problem, ProblemKind, instantiate, match
from .context import Arg, RuleContext
from .stubs import OpDef

__all__ = ["Call", "report_problems"]

_KIND_CODES: dict[ProblemKind, Code] = {
    ProblemKind.MISMATCH: codes.SHAPE_MISMATCH,
    ProblemKind.BROADCAST: codes.BROADCAST,
    ProblemKind.RANK: codes.RANK_MISMATCH,
    ProblemKind.UNSOLVABLE: codes.UNSOLVABLE,
}

_KIND_HINTS: dict[ProblemKind, str] = {
    ProblemKind.MISMATCH: "check which tensor is passed, or transpose/reshape it first",
    ProblemKind.BROADCAST: "dims broadcast when they are equal or one of them is 1; add `unsqueeze` or `expand` where needed",
    ProblemKind.RANK: "add or remove dims with `unsqueeze`/`squeeze`/`reshape`",
    ProblemKind.UNSOLVABLE: "the sizes cannot satisfy this pattern; check the input size",
}


def short_name(qualname: str) -> str:
    """``torch.nn.functional.linear`` -> ``linear``; ``torch.Tensor.view`` -> ``view``; ``torch.nn.Linear.forward`` -> ``Linear``."""
    parts = qualname.split(".")
    if parts[-1] in ("forward", "__init__", "__call__") and len(parts) > 1:
        return parts[-2]
    return parts[-1]


def _rendered_spec(spec: ShapeSpec, subst: Mapping[str, str]) -> str:
    """The spec's text with some names replaced (by ints or ``{refs}``)."""
    if not subst:
        return spec.text
    out = []
    for d in spec.dims:
        text = spec.text[d.start : d.end]
        if d.kind is DimKind.NAMED and d.name is not None and d.name in subst:
            text = ("#" if d.broadcastable else "") + subst[d.name]
        out.append(text)
    return " ".join(out)


class Call:
    """One call of an op, bound to the op's stub signature."""

    __slots__ = ("op", "bound", "ctx", "span", "module", "name")

    def __init__(
        self,
        op: OpDef,
        bound: dict[str, Arg],
        ctx: RuleContext,
        span: Span | None,
        module: ModuleV | None = None,
    ):
        self.op = op
        self.bound = bound
        self.ctx = ctx
        self.span = span or ctx.default_span
        #: For a module's ``forward``: the module instance (constructor arguments).
        self.module = module
        self.name = short_name(op.qualname)

    # -- reading arguments -------------------------------------------------------
    @property
    def params(self) -> Mapping[builtins.str, Any]:
        """The ``@rule(..., key=value)`` parameters from the stub."""
        return self.op.rule_args

    def has(self, name: builtins.str) -> builtins.bool:
        return name in self.bound or (self.module is not None and name in self.module.args)

    def arg(self, name: builtins.str) -> Arg:
        """Argument ``name``; for a module's ``forward``, constructor arguments too."""
        a = self.bound.get(name)
        if a is not None:
            return a
        if self.module is not None and name in self.module.args:
            return Arg(self.module.args[name])
        return Arg(UnknownV())

    def value(self, name: builtins.str) -> Value:
        return self.arg(name).value  # type: ignore[no-any-return]

    def tensor(self, name: builtins.str) -> TensorV | None:
        """The tensor argument ``name`` (an unknown value counts as a tensor of unknown shape).

        ``None`` when the argument is absent or not a tensor.
        """
        if not self.has(name):
            return None
        v = self.value(name)
        if isinstance(v, TensorV):
            return v
        if isinstance(v, UnknownV):
            return unknown_tensor(v.source)
        if isinstance(v, MaybeIntV):
            return unknown_tensor()
        return None

    def shape(self, name: builtins.str) -> Shape | None:
        t = self.tensor(name)
        return None if t is None else t.shape

    def is_none(self, name: builtins.str) -> builtins.bool:
        return isinstance(self.value(name), NoneV) or not self.has(name)

    def given(self, name: builtins.str) -> builtins.bool | None:
        """Whether argument ``name`` was given a value other than ``None``; ``None`` when not known
        (a value the analysis cannot see may be ``None``)."""
        if self.is_none(name):
            return False
        return None if isinstance(self.value(name), UnknownV) else True

    def int(self, name: builtins.str) -> Dim | None:
        """An int argument; ``Unknown`` when unknown; ``None`` when absent or None."""
        v = self.value(name)
        return as_dim(v)

    def ints(self, name: builtins.str) -> tuple[Dim, ...] | None:
        """A sequence of ints (``(2, 3)``, ``[2, 3]``, ``x.shape``, or ``*size`` varargs); ``None`` when unknown."""
        return as_dims(self.value(name))

    def bool(self, name: builtins.str) -> builtins.bool | None:
        v = self.value(name)
        if isinstance(v, BoolV):
            return v.value
        if isinstance(v, IntV) and type(v.value) is int:
            return bool(v.value)
        return None

    def float(self, name: builtins.str) -> builtins.float | None:
        v = self.value(name)
        if isinstance(v, FloatV):
            return v.value
        if isinstance(v, IntV) and type(v.value) is int:
            return float(v.value)
        return None

    def str(self, name: builtins.str) -> builtins.str | None:
        v = self.value(name)
        return v.value if isinstance(v, StrV) else None

    def at(self, name: builtins.str | None) -> Span:
        """The span of argument ``name`` (the call's span when absent)."""
        if name is None:
            return self.span
        a = self.bound.get(name)
        return a.span if a is not None and a.span is not None else self.span

    def label(self, name: builtins.str) -> builtins.str:
        a = self.bound.get(name)
        if a is not None and a.text and len(a.text) <= 30:
            return f"`{a.text}`"
        return f"`{name}`"

    @property
    def facts(self) -> Any:
        return self.ctx.facts

    def fresh(self, base: builtins.str) -> Dim:
        return self.ctx.fresh(base)

    # -- reporting -------------------------------------------------------------
    def error(
        self, code: Code, message: builtins.str, at: builtins.str | None = None, hint: builtins.str | None = None
    ) -> None:
        self.ctx.report(code, f"{self.name}: {message}", self.at(at), hint)

    def check(
        self,
        t: Truth,
        dims: Sequence[Dim],
        message: builtins.str | Callable[[], builtins.str],
        *,
        at: builtins.str | None = None,
        hint: builtins.str | None = None,
        code: Code = codes.SHAPE_MISMATCH,
        checks: Sequence[tuple[builtins.str, builtins.str]] = (),
        rel: Rel | None = None,
    ) -> Verdict:
        """Report a requirement on ``dims`` whose truth is ``t``.

        Errors are reported; unknowns become an obligation whose runtime checks
        are ``checks`` (``(param, spec)`` pairs).  ``message`` may be a function:
        it is rendered only when the requirement is not proven (most are).
        """
        verdict = classify(t, *dims)
        if verdict is Verdict.OK:
            return verdict
        if verdict is Verdict.UNPROVEN and rel is Rel.DIVISIBLE:
            # A divisibility that cannot be proven (``reshape(..., -1, 2)`` on a head dim) is checked at run time.
            verdict = Verdict.OBLIGATION
        if callable(message):
            message = message()
        condition = (
            condition_for(rel, dims[0], dims[1], self.facts) if verdict is Verdict.UNPROVEN and len(dims) == 2 else None
        )
        if verdict is Verdict.ERROR:
            self.error(code, message, at, hint)
        elif condition is not None:
            self.error(codes.SIZE_CONDITION, f"{message}: {condition}", at, CONDITION_HINT)
        elif verdict is Verdict.UNPROVEN:
            self.error(
                codes.SYMBOLIC_MISMATCH,
                message + " (cannot prove the dims equal)",
                at,
                "use one name for both dims in the annotations, or `assert` the relation",
            )
        if condition is not None:
            verdict = Verdict.OBLIGATION  # the op works (and is checked at run time) when the condition holds
        elif verdict is Verdict.OBLIGATION:
            self.warn_undecided(message, rel if rel is not None or len(dims) != 2 else Rel.EQ, dims, at)
        if verdict is Verdict.OBLIGATION:
            self.oblige(message, [(p, s) for p, s in checks])
            if rel is not None and len(dims) == 2:
                self.ctx.require(rel, dims[0], dims[1], f"{self.name}: {message}")
        return verdict

    def warn_undecided(
        self, message: builtins.str, rel: Rel | None, dims: Sequence[Dim], at: builtins.str | None
    ) -> None:
        """A requirement that is undecided (an obligation), but decided for the sizes the program
        usually has, is a warning naming the condition:

        - it holds for full batches but not for a loader's last batch (``RuleContext.partial``):
          ``last-batch``;
        - it fails with a command-line option's default (``RuleContext.defaults``): ``option-default``.
        """
        if not self.ctx.partial and not self.ctx.defaults:
            return  # the common case: no last batch, no command-line option in this analysis
        symbols = {s for d in dims for s in free_symbols(d)}
        partial = [s for s in symbols if s in self.ctx.partial]
        if partial:
            usual = {s: size for s, (_, size) in self.ctx.partial.items()}
            if _truth(rel, [_substitute(d, usual) for d in dims], self.facts) is Truth.TRUE:
                self.ctx.report(
                    codes.LAST_BATCH,
                    f"{self.name}: {message} ({self.ctx.partial[partial[0]][0]})",
                    self.at(at),
                    "pass drop_last=True to the DataLoader, or take the size from the tensor (`x.size(0)`)",
                )
                return
        options = sorted((s for s in symbols if s in self.ctx.defaults), key=str)
        if options:
            values = {s: self.ctx.defaults[s][1] for s in options}
            if _truth(rel, [_substitute(d, values) for d in dims], self.facts) is Truth.FALSE:
                shown = ", ".join(f"{self.ctx.defaults[s][0]} {self.ctx.defaults[s][1]}" for s in options)
                self.ctx.report(
                    codes.OPTION_DEFAULT,
                    f"{self.name}: {message} (fails with the default {shown})",
                    self.at(at),
                    "change the default, or pass a value that fits on the command line",
                )

    def broadcast_undecided(self, dims: Sequence[Dim | None], reason: builtins.str, at: builtins.str) -> None:
        """A broadcast that cannot be decided (``reason`` names it): checked at run time, and a warning
        when it fails only on a loader's last batch or with an option's default (:meth:`warn_undecided`)."""
        self.oblige(reason, [])
        self.warn_undecided(reason, Rel.BROADCAST, [d for d in dims if d is not None], at)

    def oblige(
        self,
        reason: builtins.str,
        checks: Sequence[tuple[builtins.str, builtins.str]],
        kind: ObligationKind = ObligationKind.OP,
    ) -> None:
        spec_checks = tuple(SpecCheck(self.at(p), self.arg(p).text, s) for p, s in checks)
        self.ctx.oblige(Obligation(kind, self.span, spec_checks, f"{self.name}: {reason}"))

    # -- declarative matching from Python rules ------------------------------------
    def match(
        self,
        specs: Mapping[builtins.str, builtins.str | ShapeSpec],
        returns: builtins.str | ShapeSpec | None = None,
        known: Mapping[builtins.str, Dim] | None = None,
    ) -> Shape | None:
        """Match tensor arguments against shape strings jointly, report, and instantiate ``returns``.

        ``known`` pre-binds names (sizes computed by the rule).
        """
        b = Bindings(self.ctx.facts)
        subst: dict[builtins.str, builtins.str] = {}
        for k, v in (known or {}).items():
            b.bind(k, v, "")
            if type(v) is int:
                subst[k] = str(v)
        operands: list[Operand] = []
        params: list[builtins.str] = []
        for pname, spec in specs.items():
            t = self.tensor(pname)
            if t is None:
                continue
            sp = parse_shape(spec) if isinstance(spec, str) else spec
            operands.append(Operand(sp, t.shape, self.label(pname)))
            params.append(pname)
        problems = match(operands, b)
        report_problems(self, problems, params, [o.spec for o in operands], subst)
        if returns is None:
            return None
        return instantiate(parse_shape(returns) if isinstance(returns, str) else returns, b, self.ctx.fresh)


def _substitute(d: Dim, sizes: Mapping[Any, Dim]) -> Dim:
    if isinstance(d, builtins.int) or isinstance(d, Unknown) or not hasattr(d, "xreplace"):
        return d
    return arith.norm(d.xreplace(dict(sizes)))


def _truth(rel: Rel | None, dims: Sequence[Dim], facts: Any) -> Truth:
    """Is the requirement ``rel`` between ``dims`` true, false, or not known?"""
    if rel is Rel.EQ and len(dims) == 2:
        return eq3(dims[0], dims[1], facts)
    if rel is Rel.DIVISIBLE and len(dims) == 2:
        div = facts.divisible(dims[0], dims[1])
        return Truth.UNKNOWN if div is None else Truth.TRUE if div else Truth.FALSE
    if rel is Rel.BROADCAST:
        verdict = broadcast_dims(dims, facts)[1]
        return Truth.TRUE if verdict is Verdict.OK else Truth.FALSE if verdict is Verdict.ERROR else Truth.UNKNOWN
    return Truth.UNKNOWN


def report_problems(
    call: Call,
    problems: Sequence[Problem],
    params: Sequence[str],
    specs: Sequence[ShapeSpec],
    subst: Mapping[str, str],
    hint: str | None = None,
    kind: ObligationKind = ObligationKind.OP,
) -> bool:
    """Report match problems; one obligation gathers the undecided ones.  True when no error."""
    ok = True
    pending: list[str] = []
    for pr in problems:
        at = params[pr.operand] if pr.operand < len(params) else None
        if pr.verdict is Verdict.ERROR:
            ok = False
            call.error(_KIND_CODES[pr.kind], pr.message, at, hint or _KIND_HINTS[pr.kind])
        elif pr.verdict is Verdict.UNPROVEN and (
            condition := condition_for(*pr.relation, call.facts) if pr.relation is not None else None
        ):
            call.error(codes.SIZE_CONDITION, f"{pr.message}: {condition}", at, CONDITION_HINT)
            pending.append(pr.message)
            assert pr.relation is not None
            call.ctx.require(pr.relation[0], pr.relation[1], pr.relation[2], f"{call.name}: {pr.message}")
        elif pr.verdict is Verdict.UNPROVEN:
            ok = False
            call.error(
                codes.SYMBOLIC_MISMATCH,
                pr.message + " (distinct symbolic dims)",
                at,
                "use one name for both dims in the annotations, or `assert` that they are equal",
            )
        elif pr.verdict is Verdict.OBLIGATION:
            pending.append(pr.message)
            if pr.relation is not None:
                rel, lhs, rhs = pr.relation
                call.ctx.require(rel, lhs, rhs, f"{call.name}: {pr.message}")
            if pr.relation is not None:
                call.warn_undecided(pr.message, pr.relation[0], pr.relation[1:], at)
            elif pr.dims:
                call.warn_undecided(pr.message, Rel.BROADCAST, pr.dims, at)
    if pending and ok:
        checks = [(p, _rendered_spec(s, subst)) for p, s in zip(params, specs)]
        call.oblige("; ".join(dict.fromkeys(pending)), checks, kind)
    return ok


def as_dim(v: Value) -> Dim | None:
    if isinstance(v, IntV):
        return v.value
    if isinstance(v, BoolV):
        return Unknown(UnknownSource.UNANNOTATED) if v.value is None else int(v.value)
    if isinstance(v, UnknownV):
        return Unknown(v.source)
    if isinstance(v, TensorV) and v.shape.rank == 0:
        return Unknown(UnknownSource.DATA_DEPENDENT)
    return None


def as_dims(v: Value) -> tuple[Dim, ...] | None:
    """Ints from a sequence value, a single int, or varargs holding one sequence."""
    if isinstance(v, TupleV):
        if len(v.items) == 1 and isinstance(v.items[0], (TupleV, SeqV)):
            return as_dims(v.items[0])
        if len(v.items) == 1 and isinstance(v.items[0], UnknownV):
            return None  # one unknown argument may be an int or a whole tuple of sizes
        out: list[Dim] = []
        for item in v.items:
            d = as_dim(item)
            if d is None:
                return None
            out.append(d)
        return tuple(out)
    if isinstance(v, (IntV, BoolV)):
        d = as_dim(v)
        return None if d is None else (d,)
    return None


def sizes_with_run(v: Value) -> Shape | None:
    """Size arguments holding a run of unknown length, as a shape: ``*x.shape[:-1], 4`` (varargs with
    a :class:`RunV`), ``(*x.shape[:-1], 4)`` or ``x.shape[:-1]`` (a sequence whose ``sizes`` hold the
    run); ``None`` when the sizes hold no run or an item is not an int."""
    if isinstance(v, TupleV) and len(v.items) == 1 and isinstance(v.items[0], (TupleV, SeqV)):
        return sizes_with_run(v.items[0])
    if isinstance(v, SeqV):
        return v.sizes if v.sizes is not None and v.sizes.star is not None else None
    if not isinstance(v, TupleV) or not any(isinstance(x, RunV) for x in v.items):
        return None
    items: list[Item] = []
    for x in v.items:
        if isinstance(x, RunV):
            items.extend(x.sizes.items)
            continue
        d = as_dim(x)
        if d is None:
            return None
        items.append(d)
    return Shape(tuple(items)) if sum(1 for i in items if not is_dim(i)) == 1 else None


def is_dim(item: Item) -> bool:
    return not isinstance(item, Star)


def describe_shape(t: TensorV | None) -> str:
    return "?" if t is None else render_shape(t.shape)


def dim_text(d: Dim) -> str:
    return render_dim(d)
