"""Deciding sympy's undecided equalities without sympy: exact evaluation at sample points.

Most equalities the analysis asks about symbolic dims have no answer (``c == ndim``,
``n_head == 1``, ``b*n_embd*t == b*n_head*t*(n_embd//n_head)``: true for some sizes, false for
others), and sympy takes milliseconds to say so: it builds the difference, expands it and runs
its assumption queries.  Two sample points decide the same thing exactly, in integers: one
where both sides have the same value (so no proof of ``a != b`` can exist) and one where they
differ (so no proof of ``a == b`` can exist).  With both found, sympy's answer can only be
"unknown"; :func:`undecided` says so and sympy is not asked.  When either is missing,
:func:`undecided` returns ``False`` and the caller asks sympy as before: the answers are the
same either way.

A sample point gives every symbol a value its assumptions allow (``integer`` and ``positive``:
at least 1; ``integer`` and ``nonnegative``: at least 0); other symbols are never sampled.
Expressions are evaluated with Python integers and fractions: sums, products, integer powers,
``floor``, ``ceiling``, ``Mod``, ``Min`` and ``Max``; anything else (or a division by zero at
that point) makes the point unusable.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

__all__ = ["periodic_condition", "undecided"]

#: Exponents beyond this are not evaluated (the point is not used).
_MAX_EXPONENT = 64
#: Values the symbols take together at the first points tried.
_COMMON_VALUES = (1, 2, 3, 5, 0)
#: A pair with more distinct symbols than this is left to sympy.
_MAX_SYMBOLS = 8

Value = int | Fraction


class _Unusable(Exception):
    """The expression has no value here (a division by zero) or cannot be evaluated."""


def _lowest(s: Any) -> int | None:
    """The least value the assumptions of symbol ``s`` allow, or ``None`` when it is not an integer
    bounded below by 0 or 1."""
    if s.is_integer is not True:
        return None
    if s.is_positive:
        return 1
    if s.is_nonnegative:
        return 0
    return None


def _symbols(e: Any, out: dict[Any, int]) -> bool:
    """Add the symbols of ``e`` (with their least values) to ``out``; ``False`` when one cannot be sampled."""
    if type(e) is int:
        return True
    if e.is_Symbol:
        if e not in out:
            low = _lowest(e)
            if low is None:
                return False
            out[e] = low
        return True
    return all(_symbols(x, out) for x in e.args)


def _value(e: Any, env: dict[Any, int]) -> Value:
    """``e`` at the point ``env`` (exact)."""
    if type(e) is int:
        return e
    if e.is_Symbol:
        return env[e]
    if e.is_Integer:
        return int(e)
    if e.is_Rational:
        return Fraction(int(e.p), int(e.q))
    if e.is_Add:
        total: Value = 0
        for x in e.args:
            total += _value(x, env)
        return total
    if e.is_Mul:
        product: Value = 1
        for x in e.args:
            product *= _value(x, env)
        return product
    if e.is_Pow:
        k = e.args[1]
        if not k.is_Integer or abs(int(k)) > _MAX_EXPONENT:
            raise _Unusable
        base = _value(e.args[0], env)
        if base == 0 and k < 0:
            raise _Unusable
        return Fraction(base) ** int(k) if k < 0 else base ** int(k)
    name = type(e).__name__
    if name == "floor":
        return math.floor(_value(e.args[0], env))
    if name == "ceiling":
        return math.ceil(_value(e.args[0], env))
    if name == "Mod":
        p, q = _value(e.args[0], env), _value(e.args[1], env)
        if q == 0:
            raise _Unusable
        return p - q * math.floor(Fraction(p) / q)
    if name == "Min":
        return min(_value(x, env) for x in e.args)
    if name == "Max":
        return max(_value(x, env) for x in e.args)
    raise _Unusable


def _difference(a: Any, b: Any, env: dict[Any, int]) -> Value | None:
    """``a - b`` at ``env``, or ``None`` where either has no value."""
    try:
        return _value(a, env) - _value(b, env)
    except (_Unusable, ZeroDivisionError):
        return None


def undecided(a: Any, b: Any) -> bool:
    """True when ``a == b`` is neither provable nor refutable for the sizes the symbols' assumptions
    allow: a sample point makes the two sides equal and another makes them differ.  ``False``
    means "not shown" (the question may still be undecided)."""
    lows: dict[Any, int] = {}
    if not (_symbols(a, lows) and _symbols(b, lows)) or not lows or len(lows) > _MAX_SYMBOLS:
        return False
    syms = sorted(lows, key=str)
    equal = differ = False
    # All symbols at one value (``c == ndim``, ``b*n_embd*t == b*n_head*t*(n_embd//n_head)``), then
    # increasing and decreasing in name order (``197*(a//b) == a//b`` at ``a < b``).
    points = [{s: max(v, lows[s]) for s in syms} for v in _COMMON_VALUES]
    if len(syms) > 1:
        points.append({s: max(i + 1, lows[s]) for i, s in enumerate(syms)})
        points.append({s: max(len(syms) - i, lows[s]) for i, s in enumerate(syms)})
    for env in points:
        d = _difference(a, b, env)
        if d is not None:
            equal = equal or d == 0
            differ = differ or d != 0
            if equal and differ:
                return True
    # One symbol free, the others at one value: the difference's root in it, when that root is an
    # integer the symbol may take, verified exactly (``4096 == 4*planes`` at ``planes = 1024``).
    for v in (1, 2):
        for s in syms:
            env = {t: max(v, lows[t]) for t in syms}
            x0, x1 = lows[s] + 2, lows[s] + 3
            env[s] = x0
            d0 = _difference(a, b, env)
            env[s] = x1
            d1 = _difference(a, b, env)
            if d0 is None or d1 is None:
                continue
            differ = differ or d0 != 0 or d1 != 0
            if d0 != d1 and not equal:
                root = x0 - Fraction(d0) / (d1 - d0)
                if root.denominator == 1 and root >= lows[s]:
                    env[s] = int(root)
                    equal = _difference(a, b, env) == 0
            if equal and differ:
                return True
    return False


#: The periods :func:`periodic_condition` tries (a stride-2 network's sizes repeat every power of 2).
_PERIODS = (2, 3, 4, 8, 16, 32, 64)
#: Sizes below this are not sampled: a symbolic size is taken as not 0 or 1 (torch's specialisation).
_LEAST_SIZE = 2


def periodic_condition(a: Any, b: Any) -> tuple[Any, int, tuple[int, ...]] | None:
    """For ``a == b`` over one integer symbol ``h`` whose difference repeats with a period (sums of
    floors of ``h`` over constants, as a convolution stack's sizes): ``(h, period, residues)`` with
    the residues of ``h`` modulo the period for which it holds, when it holds for some sizes and not
    for others (``(h+15)//16 == 2*((h+31)//32)``: ``h % 32`` in 0 or 17 to 31).  Checked at every
    size from 2 over four periods; ``None`` when no tried period fits, or it always or never holds."""
    lows: dict[Any, int] = {}
    if not (_symbols(a, lows) and _symbols(b, lows)) or len(lows) != 1:
        return None
    (h,) = lows
    start = max(lows[h], _LEAST_SIZE)
    holds: list[bool] = []
    for v in range(start, start + 4 * _PERIODS[-1]):
        d = _difference(a, b, {h: v})
        if d is None:
            return None
        # Equal sizes of 0 or 1 do not count: the symbolic dims are assumed to be neither.
        holds.append(d == 0 and _value(a, {h: v}) >= _LEAST_SIZE)
    if all(holds) or not any(holds):
        return None
    for period in _PERIODS:
        if all(holds[i] == holds[i + period] for i in range(len(holds) - period)):
            residues = sorted({(start + i) % period for i, ok in enumerate(holds) if ok})
            return h, period, tuple(residues)
    return None
