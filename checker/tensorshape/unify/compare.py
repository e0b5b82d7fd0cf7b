"""Three-valued comparison of dims, and what an undecided answer means.

Gradual rule: a comparison that is definitely false is an error; one that
involves an unknown dim or an opaque symbol is a runtime obligation; one
between rigid (annotated) dims that cannot be proved is a ``symbolic-mismatch``.
"""

from __future__ import annotations

import enum
import functools
from typing import Any

from ..model.dims import Dim, Unknown
from .arith import to_sympy
from .facts import NO_FACTS, Facts
from .symbols import is_rigid_symbol, sp

__all__ = ["Truth", "eq3", "ne1", "Verdict", "classify", "free_symbols"]


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
    if a is b or a == b:
        return Truth.TRUE
    if facts:
        a, b = facts.simplify(a), facts.simplify(b)
        if type(a) is int and type(b) is int:
            return Truth.TRUE if a == b else Truth.FALSE
        if isinstance(a, Unknown) or isinstance(b, Unknown):
            return Truth.UNKNOWN
    return _symbolic_eq(a, b)


@functools.lru_cache(maxsize=8192)
def _symbolic_eq(a: Any, b: Any) -> Truth:
    """``a == b`` for two symbolic dims, by expanding the difference (cached: loops and
    re-analysed callees ask the same questions again)."""
    diff = sp().expand(to_sympy(a) - to_sympy(b))
    if diff == 0:
        return Truth.TRUE
    if diff.is_number:
        return Truth.FALSE
    z = diff.is_zero
    if z is True:
        return Truth.TRUE
    if z is False:
        return Truth.FALSE
    return Truth.UNKNOWN


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
