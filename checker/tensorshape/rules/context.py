"""What a rule may use and report into: facts, fresh symbols, options, diagnostics.

Both front ends create one :class:`RuleContext` per analysed scope and read the
diagnostics and obligations back from it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import codes
from ..model.constraints import Constraint, Rel
from ..model.diagnostics import Code, Diagnostic, Related, Span
from ..model.dims import Dim, Unknown
from ..model.obligations import Obligation
from ..model.shape import Shape
from ..unify.facts import NO_FACTS, Facts
from ..unify.symbols import SymbolTable

__all__ = ["Options", "RuleContext", "Arg"]


@dataclass(frozen=True, slots=True)
class Options:
    """Analysis options that change rule verdicts (from config or the command line)."""

    #: Apply the Vollo data-dimension rules.
    vollo: bool = False
    #: Mirror the Vollo compiler's ``allow_dynamic_weights`` flag.
    allow_dynamic_weights: bool = False
    #: Clamp symbolic slice bounds exactly (``min(n, size)``) instead of assuming them in range
    #: (shape functions need the exact value; the checker prefers the intent).
    exact_bounds: bool = False
    #: An unannotated parameter used as a tensor gets a shape from its first uses
    #: (``b, n, c = x.shape``; ``self.fc(x)``): see ``infer/learn.py``.
    learn_params: bool = True


@dataclass(frozen=True, slots=True)
class Arg:
    """An actual argument of a call: its abstract value and where it is."""

    value: Any
    span: Span | None = None
    #: The argument's source text, when it is a simple expression (``x``, ``self.w``).
    text: str | None = None


@dataclass(slots=True)
class RuleContext:
    facts: Facts = NO_FACTS
    options: Options = field(default_factory=Options)
    symbols: SymbolTable = field(default_factory=SymbolTable)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    obligations: list[Obligation] = field(default_factory=list)
    #: The span used when a rule reports without one.
    default_span: Span = field(default_factory=lambda: Span(1, 0, 1, 0))
    #: Calls any value (a user module, a function): set by the front end so
    #: container rules (``nn.Sequential``) can call what they hold.
    invoke: Callable[[Any, Sequence[Arg], Mapping[str, Arg], Span | None], Any] | None = None
    #: Drop reports: set while interpreting a path that may be infeasible (a branch
    #: whose condition is unknown, inside a call analysed with specific arguments).
    muted: bool = False
    #: Relations between dims that hold only if the sizes are right at run time (shape functions).
    constraints: list[Constraint] = field(default_factory=list)
    #: The same relations, kept even while muted, for the front end to take as facts: the code
    #: after a requirement checked at run time runs only if it held (as after an ``assert``).
    learned: list[tuple[Rel, Dim, Dim]] = field(default_factory=list)
    #: Symbols for sizes that differ from the usual one only sometimes (a loader's last batch), with
    #: the condition to name and the usual size: a requirement that holds for the usual size but is
    #: undecided for the other is a warning.
    partial: dict[Any, tuple[str, Dim]] = field(default_factory=dict)
    #: Sizes the user may set, by symbol: the option's flag and default (``--batch-size``, 64).  A
    #: requirement that cannot be decided for every value but fails for the default is a warning.
    defaults: Mapping[Any, tuple[str, int]] = field(default_factory=dict)
    #: Shapes holding a run that a rule took as exactly so many dims, torch raising for every other
    #: length (``[d0 d1 *batch]`` given to ``bmm``: ``[d0 d1 _]``): the front end may give a
    #: parameter that learnt only a minimum rank the full shape (``infer/learn.py``).
    runs_fixed: list[tuple[Shape, Shape]] = field(default_factory=list)

    def fresh(self, base: str) -> Dim:
        """A fresh opaque symbol for a size that exists but is not known."""
        return self.symbols.fresh(base)

    def report(
        self,
        code: Code,
        message: str,
        span: Span | None = None,
        hint: str | None = None,
        related: tuple[Related, ...] = (),
    ) -> None:
        if self.muted:
            return
        self.diagnostics.append(
            Diagnostic(code, message, span or self.default_span, code.severity, hint, None, related)
        )

    def require(self, rel: Rel, lhs: Dim, rhs: Dim, message: str) -> None:
        """Record an undecided relation between two dims (ignored when either is unknown)."""
        if isinstance(lhs, Unknown) or isinstance(rhs, Unknown):
            return
        if rel is Rel.EQ or rel is Rel.DIVISIBLE:
            self.learned.append((rel, lhs, rhs))
        if self.muted:
            return
        c = Constraint(rel, lhs, rhs, message)
        if c not in self.constraints:
            self.constraints.append(c)

    def learn(self, facts: Facts) -> Facts:
        """``facts`` with the relations required since the last call (emptied)."""
        for rel, lhs, rhs in self.learned:
            if rel is Rel.EQ:
                facts = facts.assume_eq(lhs, rhs)
            elif rel is Rel.LE:
                facts = facts.assume_positive(rhs) if lhs == 1 else facts.assume_le(lhs, rhs)
            else:
                facts = facts.assume_divides(rhs, lhs)
        self.learned.clear()
        return facts

    def at_least_one(self, d: Dim) -> None:
        """Learn ``d >= 1``: the op raises for a size of 0, so the code after it runs only if it held."""
        if not isinstance(d, (int, Unknown)):
            self.learned.append((Rel.LE, 1, d))

    def at_most(self, a: Dim, b: Dim) -> None:
        """Learn ``a <= b`` (a sequence's length within the padded length it was packed from)."""
        if not isinstance(a, Unknown) and not isinstance(b, Unknown):
            self.learned.append((Rel.LE, a, b))

    def oblige(self, obligation: Obligation) -> None:
        if self.muted:
            return
        self.obligations.append(obligation)
        self.diagnostics.append(
            Diagnostic(codes.OBLIGATION, obligation.reason, obligation.span, codes.OBLIGATION.severity, None)
        )
