"""Facts the code establishes about dims, used to simplify and compare them.

``assert x.shape[1] == 3``, ``assert d % h == 0`` and the like add facts; a
fact is an equality (kept as a substitution of a symbol), a divisibility
(which lets ``h * (d // h)`` simplify to ``d``), a lower bound: an opaque size
that is at least 1 (a conv that ran with ``width`` output channels, as torch
raises for none), so ``4*width == 2*width`` is false rather than undecided, or an
inequality ``a <= b`` between sizes (the index a ``DataLoader`` passes to a
dataset's ``__getitem__`` is below its ``__len__``).  Facts are immutable; at a
control-flow join only the facts both paths share survive.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from ..model.constraints import Rel
from ..model.dims import Dim, Unknown
from . import bounds
from .arith import expand_bounded, is_int_value, norm, to_sympy
from .bounds import replayed_cache
from .monomial import divides, monomial
from .symbols import is_rigid_symbol, sp

__all__ = ["Facts", "NO_FACTS"]

#: A power of a sum above this exponent is never expanded (its expansion grows exponentially).
_MAX_EXPANDED_POWER = 4


def _is_symbol(e: Any) -> bool:
    return type(e) is not int and not isinstance(e, Unknown) and bool(e.is_Symbol)


@dataclass(frozen=True, slots=True)
class Facts:
    #: Substitutions ``symbol -> dim`` (idempotent: no value mentions a key).
    subst: tuple[tuple[Any, Any], ...] = ()
    #: Divisibility facts ``(divisor, dividend)``.
    divides: frozenset[tuple[Any, Any]] = frozenset()
    #: Opaque symbols known to be at least 1.
    positive: frozenset[Any] = frozenset()
    #: Expressions known to be at least 0 (``b - a`` for a fact ``a <= b``).
    nonnegative: frozenset[Any] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.subst or self.divides or self.positive or self.nonnegative)

    # -- adding facts -------------------------------------------------------
    def assume_eq(self, a: Dim, b: Dim) -> Facts:
        """Record ``a == b`` (no-op when it cannot be used)."""
        if isinstance(a, Unknown) or isinstance(b, Unknown):
            return self
        out = _assumed_eq(self, a, b)
        return self if out is None else out

    def _assume_eq(self, a: Dim, b: Dim) -> Facts | None:
        """:meth:`assume_eq` of two dims that are not unknown; ``None`` for no change."""
        a, b = self.simplify(a), self.simplify(b)
        if type(a) is int and type(b) is int:
            return None
        if a == b:
            return None
        sym, val = self._orient(a, b)
        if sym is None:
            out = self._assume_exact(a, b)
            return None if out is self else out
        mapping = {sym: to_sympy(val)}
        subst = tuple((k, v.xreplace(mapping) if hasattr(v, "xreplace") else v) for k, v in self.subst)
        return Facts(subst + ((sym, to_sympy(val)),), self.divides, self.positive, self.nonnegative)

    @staticmethod
    def _orient(a: Any, b: Any) -> tuple[Any, Any]:
        """Pick which side to substitute away: prefer an opaque symbol, then a later name."""
        cands = []
        for s, v in ((a, b), (b, a)):
            if _is_symbol(s) and (type(v) is int or s not in v.free_symbols):
                cands.append((s, v))
        if not cands:
            # Solve a linear equation for a symbol with coefficient +-1: ``n + 1 == m*2``.
            diff = to_sympy(a) - to_sympy(b)
            for s in sorted(diff.free_symbols, key=lambda s: (is_rigid_symbol(s), s.name)):
                coeff = diff.coeff(s)
                if coeff not in (1, -1):
                    continue
                rest = expand_bounded(diff - coeff * s)
                if rest is not None and s not in rest.free_symbols:
                    return s, norm(-rest * coeff)
            return None, None
        cands.sort(key=lambda sv: (is_rigid_symbol(sv[0]), str(sv[0])), reverse=False)
        # Opaque (non-rigid) first; among rigid, replace the later name by the earlier.
        if len(cands) == 2 and is_rigid_symbol(cands[0][0]) and is_rigid_symbol(cands[1][0]):
            cands.sort(key=lambda sv: str(sv[0]), reverse=True)
        return cands[0]

    def _assume_exact(self, a: Any, b: Any) -> Facts:
        """``n_head * (n_embd // n_head) == n_embd`` holds only if the division is exact: record that."""
        S = sp()
        diff = expand_bounded(to_sympy(a) - to_sympy(b))
        if diff is None:
            return self
        floors = diff.atoms(S.floor)
        if len(floors) != 1:
            return self
        (f,) = floors
        if S.expand(diff.xreplace({f: f.args[0]})) != 0:
            return self
        num, den = S.fraction(S.together(f.args[0]))
        return self.assume_divides(den, num)

    def assume_divides(self, divisor: Dim, dividend: Dim) -> Facts:
        """Record ``divisor | dividend`` (from ``assert dividend % divisor == 0``)."""
        if isinstance(divisor, Unknown) or isinstance(dividend, Unknown):
            return self
        pair = (to_sympy(self.simplify(divisor)), to_sympy(self.simplify(dividend)))
        return Facts(self.subst, self.divides | {pair}, self.positive, self.nonnegative)

    def assume_positive(self, d: Dim) -> Facts:
        """Record ``d >= 1`` for a size ``d`` that is an opaque symbol, or a positive multiple of one
        (no-op otherwise: a rigid symbol is positive already)."""
        if isinstance(d, (int, Unknown)):
            return self
        e = to_sympy(self.simplify(d))
        if e.is_Mul and len(e.args) == 2 and e.args[0].is_Integer and e.args[0] > 0:
            e = e.args[1]
        if not _is_symbol(e) or is_rigid_symbol(e) or e in self.positive:
            return self
        return Facts(self.subst, self.divides, self.positive | {e}, self.nonnegative)

    def assume_le(self, a: Dim, b: Dim) -> Facts:
        """Record ``a <= b`` (no-op when either is unknown or it is decided already)."""
        if isinstance(a, Unknown) or isinstance(b, Unknown) or (type(a) is int and type(b) is int):
            return self
        e: Any = norm(to_sympy(self.simplify(b)) - to_sympy(self.simplify(a)))
        if type(e) is int or isinstance(e, Unknown) or e.is_number:
            return self
        return Facts(self.subst, self.divides, self.positive, self.nonnegative | {e})

    def positive_form(self, e: Any) -> Any:
        """``e`` with each symbol known to be at least 1 replaced by a positive symbol (to compare,
        never to show: the replacement is a different symbol of the same name)."""
        if not self.positive or type(e) is int:
            return e
        return _positive_form(self.positive, e)

    def _positive_form(self, e: Any) -> Any:
        return e.xreplace({s: _positive_twin(s) for s in self.positive if s in e.free_symbols})

    # -- using facts ----------------------------------------------------------
    def simplify(self, d: Dim) -> Dim:
        if isinstance(d, (int, Unknown)):
            return d
        return _simplified(self, d)

    def _simplify(self, d: Any) -> Dim:
        e: Any = d
        if self.subst:
            e = e.xreplace(dict(self.subst))
        if self.divides and (e.has(sp().floor) or e.has(sp().Mod)):
            e = self._use_divisibility(e)
        return norm(e)

    def _use_divisibility(self, e: Any) -> Any:
        sympy = sp()
        repl: dict[Any, Any] = {}
        for f in e.atoms(sympy.floor):
            q = f.args[0]
            if self.is_integer_quotient(q):
                repl[f] = q
        for m in e.atoms(sympy.Mod):
            if self.is_integer_quotient(m.args[0] / m.args[1]):
                repl[m] = sympy.Integer(0)
        return e.xreplace(repl) if repl else e

    def is_integer_quotient(self, q: Any) -> bool:
        """Is the rational expression ``q`` an integer by the divisibility facts?

        A power of a sum (``(a+b+...)**30``) is not put over a common denominator: expanding it
        is exponential, so such a quotient is not proven (the requirement stays an obligation)."""
        return _integer_quotient(q, self.divides)

    def divisible(self, dividend: Dim, divisor: Dim) -> bool | None:
        """Is ``divisor | dividend``?  ``None`` when unknown."""
        if type(dividend) is int and type(divisor) is int:
            return divisor != 0 and dividend % divisor == 0
        if isinstance(dividend, Unknown) or isinstance(divisor, Unknown):
            return None
        if is_int_value(divisor, 0):
            return False
        return _divisible(self, dividend, divisor)

    def _divisible(self, dividend: Any, divisor: Any) -> bool | None:
        # Two monomials: their exponents answer what sympy's quotient would (no quotient built).
        n, m = monomial(self.simplify(dividend)), monomial(self.simplify(divisor))
        if n is not None and m is not None and (divides(m, n) or not self.divides):
            return True if divides(m, n) else None
        if self.is_integer_quotient(to_sympy(self.simplify(dividend)) / to_sympy(self.simplify(divisor))):
            return True
        return None

    def relations(self) -> list[tuple[Rel, Dim, Dim]]:
        """The facts as relations (``(Rel.EQ, a, b)``, ``(Rel.DIVISIBLE, dividend, divisor)``)."""
        out: list[tuple[Rel, Dim, Dim]] = [(Rel.EQ, norm(k), norm(v)) for k, v in self.subst]
        out.extend((Rel.DIVISIBLE, norm(dividend), norm(divisor)) for divisor, dividend in self.divides)
        out.extend((Rel.LE, 1, norm(s)) for s in self.positive)
        out.extend((Rel.LE, 0, norm(e)) for e in self.nonnegative)
        return out

    # -- control flow -----------------------------------------------------------
    def join(self, other: Facts) -> Facts:
        if self is other:
            return self
        return Facts(
            tuple(p for p in self.subst if p in other.subst),
            self.divides & other.divides,
            self.positive & other.positive,
            self.nonnegative & other.nonnegative,
        )


# The questions a function's analysis puts to its facts come back thousands of times with the same
# facts (25k simplifications of 253 distinct dims on the annotated models): remembered, with the
# bounds they hit replayed.  Facts are immutable and compared by value.


@replayed_cache(maxsize=8192)
def _simplified(facts: Facts, d: Any) -> Dim:
    return facts._simplify(d)


@replayed_cache(maxsize=4096)
def _assumed_eq(facts: Facts, a: Any, b: Any) -> Facts | None:
    return facts._assume_eq(a, b)


@replayed_cache(maxsize=4096)
def _divisible(facts: Facts, dividend: Any, divisor: Any) -> bool | None:
    return facts._divisible(dividend, divisor)


@functools.lru_cache(maxsize=4096)
def _positive_form(positive: frozenset[Any], e: Any) -> Any:
    return Facts(positive=positive)._positive_form(e)


@functools.lru_cache(maxsize=1024)
def _positive_twin(s: Any) -> Any:
    return sp().Symbol(s.name, integer=True, positive=True)


@replayed_cache(maxsize=8192)
def _integer_quotient(q: Any, divides: frozenset[tuple[Any, Any]]) -> bool:
    """:meth:`Facts.is_integer_quotient`, remembered: the same quotients come back again and again
    (every ``view``/``reshape`` and conv of a model, each callee run again), and ``cancel`` costs a
    polynomial GCD each time."""
    sympy = sp()
    if any(p.base.is_Add and p.exp.is_Integer and abs(p.exp) > _MAX_EXPANDED_POWER for p in q.atoms(sympy.Pow)):
        bounds.hit(bounds.EXPANSION)  # not cancelled: taken as not an integer (unproven)
        return False
    whole = _monomial_whole(q)
    if whole is None:
        q = sympy.cancel(q)
        whole = sympy.fraction(q)[1] == 1
    if whole:
        return True
    for divisor, dividend in divides:
        r = q * divisor / dividend
        whole = _monomial_whole(r)
        if whole is None:
            whole = sympy.fraction(sympy.cancel(r))[1] == 1
        if whole:
            return True
    return False


def _monomial_whole(e: Any) -> bool | None:
    """For a monomial (an integer or rational coefficient times powers of symbols with integer
    exponents), whether ``cancel`` would leave it without a denominator: sympy keeps a product's
    powers of one symbol merged already, so that is no negative exponent and an integer
    coefficient.  ``None`` for anything else (``cancel`` decides)."""
    if e.is_Symbol or e.is_Integer:
        return True
    if e.is_Rational:
        return False
    whole: bool | None = True
    for x in e.args if e.is_Mul else (e,):
        if x.is_Symbol:
            continue
        if x.is_Rational:
            whole = whole and bool(x.is_Integer)
        elif x.is_Pow and x.args[0].is_Symbol and x.args[1].is_Integer:
            whole = whole and bool(x.args[1] > 0)
        else:
            return None
    return whole


NO_FACTS = Facts()
