"""Solve one dim equation for one unknown, over the positive integers.

This is what turns ``n*p == 100, p == 5`` into ``n == 4`` and reports that
``x*x == 10`` has no solution ("10 is not a perfect square").  Integers are
solved with integer arithmetic first; sympy only handles symbolic right-hand
sides and higher-degree polynomials.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model.dims import Dim, Unknown
from .arith import expand_bounded, norm, to_sympy
from .facts import NO_FACTS, Facts
from .symbols import sp

__all__ = ["Solution", "solve_for"]


@dataclass(frozen=True, slots=True)
class Solution:
    #: The value of the unknown, when found.
    value: Dim | None = None
    #: Why there is no solution (an error), when there is none.
    error: str | None = None
    #: A divisibility the solution relies on but that is not known: ``(dividend, divisor)``.
    requires_divisible: tuple[Dim, Dim] | None = None


def _iroot(v: int, k: int) -> int | None:
    """The integer k-th root of v, if v is a perfect k-th power."""
    if v < 0:
        return None
    r = round(v ** (1.0 / k))
    for c in (r - 1, r, r + 1):
        if c >= 0 and c**k == v:
            return int(c)
    return None


_POWER_NAMES = {2: "perfect square", 3: "perfect cube"}


def solve_for(lhs: Any, x: Any, rhs: Dim, facts: Facts = NO_FACTS, shown: str | None = None) -> Solution:
    """Solve ``lhs(x) == rhs`` for the symbol ``x`` (a positive integer).

    ``lhs`` is a sympy expression in which ``x`` is the only unknown.
    """
    if isinstance(rhs, Unknown):
        return Solution(value=rhs)
    sympy = sp()
    eq = expand_bounded(lhs - to_sympy(rhs))
    if eq is None:
        return Solution()
    try:
        poly = sympy.Poly(eq, x)
    except sympy.PolynomialError:
        return Solution()
    deg = poly.degree()
    coeffs = poly.all_coeffs()
    if shown is None:
        shown = f"{sympy.sstr(lhs)} = {rhs}"
    if deg == 1:
        a, c = coeffs
        a, c = norm(a), norm(-c)
        if type(a) is int and type(c) is int:
            if a == 0:
                return Solution()
            if c % a:
                return Solution(error=f"{c} is not divisible by {a} ({shown})")
            v = c // a
            if v <= 0:
                return Solution(error=f"no positive size solves {shown}")
            return Solution(value=v)
        if facts.divisible(c, a) is True:
            return Solution(value=norm(to_sympy(c) / to_sympy(a)))
        return Solution(value=norm(sympy.floor(to_sympy(c) / to_sympy(a))), requires_divisible=(c, a))
    if deg >= 2 and all(cf == 0 for cf in coeffs[1:-1]):
        # a*x**k + c == 0
        a, c = norm(coeffs[0]), norm(-coeffs[-1])
        if type(a) is int and type(c) is int and a:
            if c % a:
                return Solution(error=f"{c} is not divisible by {a} ({shown})")
            q = c // a
            r = _iroot(q, deg)
            if r is None:
                kind = _POWER_NAMES.get(deg, f"perfect {deg}th power")
                return Solution(error=f"{q} is not a {kind} ({shown})")
            if r == 0:
                return Solution(error=f"no positive size solves {shown}")
            return Solution(value=r)
        return Solution()
    if deg >= 2 and all(type(norm(cf)) is int for cf in coeffs):
        roots = [r for r in sympy.roots(poly, filter="Z") if r > 0]
        if len(roots) == 1:
            return Solution(value=int(roots[0]))
        if not roots:
            return Solution(error=f"no positive integer solves {shown}")
    return Solution()
