"""Three-valued comparison of dims, and what an undecided answer means.

Gradual rule: a comparison that is definitely false is an error; one that
involves an unknown dim or an opaque symbol is a runtime obligation; one
between rigid (annotated) dims that cannot be proved is a ``symbolic-mismatch``.
"""

from __future__ import annotations

import enum
import functools
from typing import Any

from ..lang.render import render_dim
from ..model.constraints import Rel
from ..model.dims import Dim, Unknown
from .arith import MAX_EXPANDED_TERMS, expand_bounded, expansion_terms, is_int_value, to_sympy
from .bounds import replayed_cache
from .facts import NO_FACTS, Facts
from .sampling import periodic_condition, undecided
from .symbols import is_rigid_symbol, sp

__all__ = [
    "Truth",
    "eq3",
    "le3",
    "ne1",
    "Verdict",
    "classify",
    "free_symbols",
    "exact_divisions",
    "describe_condition",
    "condition_for",
    "CONDITION_HINT",
]


class Truth(enum.Enum):
    TRUE = "true"
    FALSE = "false"
    UNKNOWN = "unknown"

    def __bool__(self) -> bool:
        raise TypeError("Truth is three-valued; compare with Truth.TRUE")


def eq3(a: Dim, b: Dim, facts: Facts = NO_FACTS) -> Truth:
    """Is ``a == b``?"""
    if type(a) is int and type(b) is int:
        return Truth.TRUE if a == b else Truth.FALSE
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return Truth.UNKNOWN
    if a is b or (is_int_value(b, a) if type(a) is int else is_int_value(a, b) if type(b) is int else a == b):
        return Truth.TRUE
    if facts:
        a, b = facts.simplify(a), facts.simplify(b)
        if type(a) is int and type(b) is int:
            return Truth.TRUE if a == b else Truth.FALSE
        if isinstance(a, Unknown) or isinstance(b, Unknown):
            return Truth.UNKNOWN
        if type(a) is not int and type(b) is not int and a == b:  # one expression: the difference is 0
            return Truth.TRUE
        if facts.positive:
            return _symbolic_eq(facts.positive_form(to_sympy(a)), facts.positive_form(to_sympy(b)))
    return _symbolic_eq(a, b)


@replayed_cache(maxsize=8192)
def _symbolic_eq(a: Any, b: Any) -> Truth:
    """``a == b`` for two symbolic dims, by expanding the difference (cached: loops and
    re-analysed callees ask the same questions again).

    Most of these questions have no answer; two sample points that make the sides equal and
    unequal show it without sympy (:func:`sampling.undecided`), when the difference is small
    enough that sympy would have expanded it too (so the bound counts do not change)."""
    if _expandable(a, b) and undecided(a, b):
        return Truth.UNKNOWN
    diff = expand_bounded(to_sympy(a) - to_sympy(b))
    if diff is None:
        return Truth.UNKNOWN  # too big to expand: undecided
    if diff == 0:
        return Truth.TRUE
    if diff.is_number:
        return Truth.FALSE
    return _truth(diff.is_zero)


def _expandable(a: Any, b: Any) -> bool:
    """Does ``a - b`` expand within :data:`MAX_EXPANDED_TERMS` (its expansion has at most the terms
    of both sides')?"""
    return expansion_terms(a) + expansion_terms(b) <= MAX_EXPANDED_TERMS


def _truth(known: bool | None) -> Truth:
    """sympy's three-valued answer (``True``/``False``/``None``) as a :class:`Truth`."""
    return Truth.UNKNOWN if known is None else Truth.TRUE if known else Truth.FALSE


def le3(a: Dim, b: Dim, facts: Facts = NO_FACTS) -> Truth:
    """Is ``a <= b``?  Knows ``min``/``max``: ``min(5, n) <= n``, ``n <= max(n, m)``."""
    if type(a) is int and type(b) is int:
        return Truth.TRUE if a <= b else Truth.FALSE
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return Truth.UNKNOWN
    if facts:
        a, b = facts.simplify(a), facts.simplify(b)
        if isinstance(a, Unknown) or isinstance(b, Unknown):
            return Truth.UNKNOWN
        pa, pb = facts.positive_form(to_sympy(a)), facts.positive_form(to_sympy(b))
        t = _le(pa, pb, 0)
        if t is Truth.UNKNOWN and facts.nonnegative:
            # ``b - a >= e`` for some ``e >= 0`` the code established (``idx + 1 <= len``).
            gap = pb - pa
            if any(
                _le(facts.positive_form(to_sympy(facts.simplify(e))), gap, 0) is Truth.TRUE for e in facts.nonnegative
            ):
                return Truth.TRUE
        return t
    return _le(to_sympy(a), to_sympy(b), 0)


#: How deep ``min``/``max`` nest before :func:`le3` gives up.
_LE_DEPTH = 4


@replayed_cache(maxsize=8192)
def _le(a: Any, b: Any, depth: int) -> Truth:
    S = sp()
    if depth < _LE_DEPTH:
        # min(xs) <= b when one x is; max(xs) <= b when every x is (and dually on the right).
        if isinstance(a, S.Min) and any(_le(x, b, depth + 1) is Truth.TRUE for x in a.args):
            return Truth.TRUE
        if isinstance(b, S.Max) and any(_le(a, y, depth + 1) is Truth.TRUE for y in b.args):
            return Truth.TRUE
        if isinstance(a, S.Max):
            return _all(_le(x, b, depth + 1) for x in a.args)
        if isinstance(b, S.Min):
            return _all(_le(a, y, depth + 1) for y in b.args)
    diff = expand_bounded(b - a)
    if diff is None:
        return Truth.UNKNOWN
    if diff.is_number:
        return Truth.TRUE if diff >= 0 else Truth.FALSE
    return _truth(diff.is_nonnegative)


def _all(truths: Any) -> Truth:
    out = Truth.TRUE
    for t in truths:
        if t is Truth.FALSE:
            return Truth.FALSE
        if t is Truth.UNKNOWN:
            out = Truth.UNKNOWN
    return out


def exact_divisions(a: Dim, b: Dim, facts: Facts = NO_FACTS) -> tuple[tuple[Any, Any], ...] | None:
    """The divisions whose exactness makes ``a == b``, as ``(dividend, divisor)`` pairs.

    ``2*(h//2)`` equals ``h`` exactly when 2 divides ``h``: ``((h, 2),)``.  Every
    ``floor(p/q)`` in the difference is taken as exact (``Mod(p, q)`` as 0); when that
    makes the difference vanish, those divisions are a sufficient condition (with one
    division, also a necessary one: the difference is then a nonzero multiple of the
    remainder).  ``None`` when no such condition exists or the sides are not symbolic.
    """
    if isinstance(a, Unknown) or isinstance(b, Unknown) or (type(a) is int and type(b) is int):
        return None
    if facts:
        a, b = facts.simplify(a), facts.simplify(b)
    return _exact_divisions(to_sympy(a), to_sympy(b))


@replayed_cache(maxsize=4096)
def _exact_divisions(a: Any, b: Any) -> tuple[tuple[Any, Any], ...] | None:
    S = sp()
    diff = expand_bounded(a - b)
    if diff is None:
        return None
    conds: dict[tuple[Any, Any], None] = {}
    for _ in range(4):  # nested floors unwrap one level per round
        repl: dict[Any, Any] = {}
        for f in diff.atoms(S.floor):
            num, den = S.fraction(S.together(f.args[0]))
            if not den.is_Integer and not den.is_Symbol:
                return None
            repl[f] = f.args[0]
            conds[(S.expand(num), den)] = None
        for m in diff.atoms(S.Mod):
            repl[m] = S.Integer(0)
            conds[(m.args[0], m.args[1])] = None
        if not repl:
            break
        diff = S.expand(diff.xreplace(repl))
    if not conds or diff != 0:
        return None
    return tuple(conds)


def describe_condition(divisions: tuple[tuple[Any, Any], ...]) -> str:
    """``h`` must be even; ``h`` must be divisible by 4 (and ...)."""
    parts = []
    for num, den in divisions:
        what = f"`{render_dim(num)}`"
        parts.append(f"{what} must be even" if den == 2 else f"{what} must be divisible by {render_dim(den)}")
    return " and ".join(parts)


#: The hint of a ``size-condition`` warning.
CONDITION_HINT = "assert the condition (`assert h % 2 == 0`), or make the sizes agree for every size"


def condition_for(rel: Rel | None, a: Dim, b: Dim, facts: Facts = NO_FACTS) -> str | None:
    """For an equality (or broadcast) between dims that cannot be proven: the divisibility
    that makes it hold (``2*(h//2) == h`` when ``h`` is even), rendered; else ``None``."""
    if rel not in (Rel.EQ, Rel.BROADCAST, None):
        return None
    found = exact_divisions(a, b, facts)
    if found:
        return describe_condition(found)
    if isinstance(a, Unknown) or isinstance(b, Unknown) or (type(a) is int and type(b) is int):
        return None
    if facts:
        a, b = facts.simplify(a), facts.simplify(b)
    return _periodic(to_sympy(a), to_sympy(b))


@functools.lru_cache(maxsize=1024)
def _periodic(a: Any, b: Any) -> str | None:
    """A condition on the remainder of one size (``(h+15)//16`` and ``2*((h+31)//32)`` agree when
    ``h % 32`` is 0 or 17 to 31), found by evaluating both sides: see :func:`periodic_condition`."""
    found = periodic_condition(a, b)
    if found is None:
        return None
    h, period, residues = found
    if residues == (0,):
        return f"`{h}` must be divisible by {period}"
    runs: list[list[int]] = []
    for r in residues:
        if runs and runs[-1][1] == r - 1:
            runs[-1][1] = r
        else:
            runs.append([r, r])
    parts = [str(lo) if lo == hi else f"{lo} to {hi}" for lo, hi in runs]
    shown = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]
    return f"`{h} % {period}` must be {shown}"


def ne1(a: Dim, facts: Facts = NO_FACTS) -> Truth:
    """Is ``a != 1``?  Symbolic dims are assumed not to be 1 (torch's 0/1 specialisation)."""
    if type(a) is int:
        return Truth.TRUE if a != 1 else Truth.FALSE
    if isinstance(a, Unknown):
        return Truth.UNKNOWN
    t = eq3(a, 1, facts)
    if t is Truth.TRUE:
        return Truth.FALSE
    if t is Truth.FALSE:
        return Truth.TRUE
    return Truth.TRUE if all(is_rigid_symbol(s) for s in free_symbols(a)) else Truth.UNKNOWN


def free_symbols(d: Dim) -> frozenset[Any]:
    if isinstance(d, (int, Unknown)):
        return frozenset()
    return _free_symbols(d)


@functools.lru_cache(maxsize=1 << 13)
def _free_symbols(d: Any) -> frozenset[Any]:
    """The symbols of an expression (sympy walks it again on each call; verdicts ask for the same ones)."""
    return frozenset(d.free_symbols)


class Verdict(enum.Enum):
    OK = "ok"
    #: Definitely violated: an error.
    ERROR = "error"
    #: Undecided between annotated dims: a ``symbolic-mismatch`` error.
    UNPROVEN = "unproven"
    #: Undecided because something is unknown: a runtime obligation.
    OBLIGATION = "obligation"


def classify(t: Truth, *dims: Dim) -> Verdict:
    """Turn the truth of a requirement on ``dims`` into a verdict."""
    if t is Truth.TRUE:
        return Verdict.OK
    if t is Truth.FALSE:
        return Verdict.ERROR
    for d in dims:
        if isinstance(d, Unknown):
            return Verdict.OBLIGATION
        if any(not is_rigid_symbol(s) for s in free_symbols(d)):
            return Verdict.OBLIGATION
    return Verdict.UNPROVEN
