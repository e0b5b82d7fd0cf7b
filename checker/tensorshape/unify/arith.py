"""Dim arithmetic: ints stay ints, unknowns propagate, sympy only when symbolic.

Every result is normalised: a sympy integer becomes an ``int``, and an
expression larger than :data:`MAX_NODES` nodes becomes
``Unknown(TOO_COMPLEX)``, so a pathological program degrades instead of hanging.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from math import comb
from typing import Any

from ..model.dims import Dim, Unknown, UnknownSource
from . import bounds
from .bounds import replayed_cache
from .monomial import divides, monomial
from .symbols import sp

__all__ = [
    "MAX_NODES",
    "MAX_EXPANDED_TERMS",
    "expand_bounded",
    "expansion_terms",
    "to_sympy",
    "norm",
    "add",
    "sub",
    "mul",
    "neg",
    "floordiv",
    "ceildiv",
    "mod",
    "dmin",
    "dmax",
    "dpow",
    "prod",
    "dsum",
    "as_int",
    "is_int_value",
    "bounded",
    "MAX_INT_BITS",
]

#: Expressions with more nodes (operations and operands) than this give up (become unknown).
MAX_NODES = 80
#: Ints longer than this many bits become unknown (torch sizes are 64-bit; ``10**10**10`` must not
#: be computed at all).
MAX_INT_BITS = 256


def bounded(n: int) -> Dim:
    """``n``, or ``Unknown(TOO_COMPLEX)`` when it is longer than :data:`MAX_INT_BITS`."""
    return n if n.bit_length() <= MAX_INT_BITS else _TOO_COMPLEX


#: An expression whose expansion may have more terms than this is not expanded (issue 17 item 4:
#: ``(a+b+...+h)**30`` has over ten million); what asked for it gets no answer (unknown).
MAX_EXPANDED_TERMS = 2000


def expansion_terms(e: Any) -> int:
    """An upper bound on the number of terms of ``sympy.expand(e)`` (capped just above the bound)."""
    cap = MAX_EXPANDED_TERMS + 1
    if not getattr(e, "args", ()):
        return 1
    if e.is_Add:
        return min(cap, sum(expansion_terms(x) for x in e.args))
    if e.is_Mul:
        n = 1
        for x in e.args:
            n = min(cap, n * expansion_terms(x))
        return n
    if e.is_Pow:
        base, k = expansion_terms(e.args[0]), e.args[1]
        if base > 1 and k.is_Integer and k > 1:
            return min(cap, comb(int(k) + base - 1, base - 1)) if k < cap else cap
        return base
    return min(cap, sum(expansion_terms(x) for x in e.args))


def expand_bounded(e: Any) -> Any | None:
    """``sympy.expand(e)``, or None when its expansion may pass :data:`MAX_EXPANDED_TERMS` terms
    (counted: :data:`bounds.EXPANSION` in the analysis' statistics)."""
    if expansion_terms(e) > MAX_EXPANDED_TERMS:
        bounds.hit(bounds.EXPANSION)
        return None
    return sp().expand(e)


def to_sympy(d: int | Any) -> Any:
    return sp().Integer(d) if type(d) is int else d


def norm(e: Any) -> Dim:
    """Normalise a sympy result: ints become ``int``; huge expressions become unknown."""
    if type(e) is int or isinstance(e, Unknown):
        return e
    if e.is_Integer:
        return int(e)
    if e.is_Atom:
        return e
    return _norm_compound(e)


@lru_cache(maxsize=1 << 15)
def _norm_compound(e: Any) -> Dim:
    """The checks of :func:`norm` for a compound expression (the same ones recur: cached).

    Size is counted in nodes with an early exit (sympy's ``count_ops`` walks the whole
    expression); the integrality query runs only where a fraction appears outside
    ``floor``/``ceiling``/``Mod`` (whose values are integers)."""
    S = sp()
    integral = (S.floor, S.ceiling, S.Mod)
    nodes = 0
    fraction = False
    stack = [(e, False)]
    while stack:
        x, inside = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            return _TOO_COMPLEX
        if not inside and x.is_Rational and not x.is_Integer:
            fraction = True
        inside = inside or isinstance(x, integral)
        stack.extend((a, inside) for a in x.args)
    if fraction and e.is_integer is False:
        # A non-integer rational (``d/2`` with nothing saying 2 | d) is not a dim.
        return _TOO_COMPLEX
    return e


_TOO_COMPLEX = Unknown(UnknownSource.TOO_COMPLEX)


def is_int_value(d: Any, k: int) -> bool:
    """``d == k`` for a dim ``d``, without sympy's comparison of an expression with an int (which
    looks for a converter of ``int`` on every call, to answer False: only a sympy number can be equal)."""
    if type(d) is int:
        return d == k
    return bool(getattr(d, "is_Number", False)) and bool(d == k)


def _unknown(*ds: Dim) -> Unknown | None:
    for d in ds:
        if isinstance(d, Unknown):
            return d
    return None


# The symbolic operations are memoised: an analysis asks the same few of them thousands of times (the
# products of a model's widths and heads), and sympy builds and normalises each result anew.


def add(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return bounded(a + b)
    # ``0 + x`` is ``x`` (sympy returns the other operand itself): no sum built.
    if type(a) is int and a == 0:
        return _unknown(b) or norm(b)
    if type(b) is int and b == 0:
        return _unknown(a) or norm(a)
    return _unknown(a, b) or _add(a, b)


@lru_cache(maxsize=1 << 14, typed=True)
def _add(a: Any, b: Any) -> Dim:
    return norm(to_sympy(a) + to_sympy(b))


def sub(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return bounded(a - b)
    if type(b) is int and b == 0:
        return _unknown(a) or norm(a)
    return _unknown(a, b) or _sub(a, b)


@lru_cache(maxsize=1 << 14, typed=True)
def _sub(a: Any, b: Any) -> Dim:
    return norm(to_sympy(a) - to_sympy(b))


def mul(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return bounded(a * b)
    if is_int_value(a, 0) or is_int_value(b, 0):
        return 0
    # ``1 * x`` is ``x`` (sympy returns the other operand itself): no product built.
    if type(a) is int and a == 1:
        return _unknown(b) or norm(b)
    if type(b) is int and b == 1:
        return _unknown(a) or norm(a)
    return _unknown(a, b) or _mul(a, b)


@lru_cache(maxsize=1 << 14, typed=True)
def _mul(a: Any, b: Any) -> Dim:
    return norm(to_sympy(a) * to_sympy(b))


def neg(a: Dim) -> Dim:
    if isinstance(a, int):
        return -a
    return _unknown(a) or norm(-a)  # type: ignore[operator]


def floordiv(a: Dim, b: Dim) -> Dim:
    """``a // b``; unknown when ``b`` is zero.

    Symbolic quotients are normalised cheaply, without sympy's ``floor`` evaluation
    (assumption queries that dominated whole analyses): terms whose coefficients ``b``
    divides come out of the floor, the rest stays inside an unevaluated ``floor``."""
    if type(a) is int and type(b) is int:
        return a // b if b else Unknown(UnknownSource.ERROR)
    u = _unknown(a, b)
    if u:
        return u
    if is_int_value(b, 1):
        return a
    if is_int_value(b, 0):
        return Unknown(UnknownSource.ERROR)
    return _floordiv(a, b)


@lru_cache(maxsize=1 << 14, typed=True)
def _floordiv(a: Any, b: Any) -> Dim:
    whole, part = _divide(to_sympy(a), b)
    if part == 0:
        return norm(whole)
    if part.is_Integer:
        return norm(whole + int(part) // b)
    if type(b) is int and b > 0:
        part = _unnest_floor(part)
    return norm(whole + sp().floor(part / to_sympy(b), evaluate=False))


def _unnest_floor(part: Any) -> Any:
    """``floor(y) + z`` as ``y + z`` inside an outer floor by a positive int ``n``.

    For an integer ``z``, ``floor(y) + z == floor(y + z)``, and ``floor(floor(x) / n)
    == floor(x / n)`` for every real ``x`` and positive integer ``n``: so
    ``((h//2)//2)//2`` is ``h//8`` and stacked downsamplings compare equal to one.
    ``part`` is returned unchanged unless it has exactly one floor with coefficient 1
    and every other term is an integer."""
    S = sp()
    inner = None
    rest: Any = S.Integer(0)
    for term, coeff in part.as_coefficients_dict().items():
        if isinstance(term, S.floor) and coeff == 1 and inner is None:
            inner = term.args[0]
        elif coeff.is_Integer and term.is_integer:
            rest += coeff * term
        else:
            return part
    return part if inner is None else inner + rest


def _divide(a: Any, b: Dim) -> tuple[Any, Any]:
    """``(q, r)`` with ``a == b*q + r``, where ``q`` takes every term whose coefficient ``b`` divides
    (``b`` an int) or the exact quotient (``b`` symbolic); ``r`` is what ``b`` does not divide."""
    S = sp()
    zero = S.Integer(0)
    if type(b) is int and b > 0:
        whole: Any = zero
        part: Any = zero
        for term, coeff in a.as_coefficients_dict().items():
            if not coeff.is_Integer:
                return zero, a
            q, r = divmod(int(coeff), b)
            whole += q * term
            part += r * term
        return whole, part
    if type(b) is not int:
        n, m = monomial(a), monomial(b)
        if n is not None and m is not None:
            # A product by a product: exact, or nothing ``b`` divides (see :mod:`.monomial`).
            return (a / b, zero) if divides(m, n) else (zero, a)
        q = a / b
        if S.fraction(q)[1] == 1:
            return q, zero
        # Terms that ``b`` divides leave the floor: ``(h - p) // p`` is ``h//p - 1``.
        whole, part = zero, zero
        expanded = expand_bounded(a)
        if expanded is None:
            return zero, a
        for term in S.Add.make_args(expanded):
            t = term / b
            if S.fraction(t)[1] == 1 and t.is_integer:
                whole += t
            else:
                part += term
        return whole, part
    return zero, a


def ceildiv(a: Dim, b: Dim) -> Dim:
    """``ceil(a / b)`` for positive ``b``, as ``-(-a // b)``."""
    return neg(floordiv(neg(a), b))


def mod(a: Dim, b: Dim) -> Dim:
    """``a % b``: zero when ``b`` divides ``a``, else an unevaluated ``Mod`` of what remains."""
    if type(a) is int and type(b) is int:
        return a % b if b else Unknown(UnknownSource.ERROR)
    u = _unknown(a, b)
    if u:
        return u
    if is_int_value(b, 1):
        return 0
    if is_int_value(b, 0):
        return Unknown(UnknownSource.ERROR)
    return _mod(a, b)


@replayed_cache(maxsize=1 << 13)
def _mod(a: Any, b: Any) -> Dim:
    _, part = _divide(to_sympy(a), b)
    if part == 0:
        return 0
    if part.is_Integer and type(b) is int:
        return int(part) % b
    return norm(sp().Mod(part, to_sympy(b), evaluate=False))


def dpow(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        if b < 0:
            return Unknown(UnknownSource.UNSUPPORTED)
        if a in (0, 1) or b <= 1:
            return a**b
        if a == -1:
            return 1 if b % 2 == 0 else -1
        if b > MAX_INT_BITS:  # |a| >= 2: the result has more bits than the bound; never computed
            return _TOO_COMPLEX
        return bounded(a**b)
    u = _unknown(a, b)
    if u:
        return u
    if type(b) is int and abs(b) > MAX_INT_BITS or type(a) is int and a.bit_length() * 4 > MAX_INT_BITS:
        return _TOO_COMPLEX  # sympy would expand a huge power
    return norm(to_sympy(a) ** to_sympy(b))


def dmin(*ds: Dim) -> Dim:
    if all(type(d) is int for d in ds):
        return min(ds)  # type: ignore[type-var]
    return _unknown(*ds) or norm(sp().Min(*[to_sympy(d) for d in ds]))


def dmax(*ds: Dim) -> Dim:
    if all(type(d) is int for d in ds):
        return max(ds)  # type: ignore[type-var]
    return _unknown(*ds) or norm(sp().Max(*[to_sympy(d) for d in ds]))


def prod(ds: Iterable[Dim]) -> Dim:
    out: Dim = 1
    for d in ds:
        out = mul(out, d)
    return out


def dsum(ds: Iterable[Dim]) -> Dim:
    out: Dim = 0
    for d in ds:
        out = add(out, d)
    return out


def as_int(d: Dim) -> int | None:
    return d if type(d) is int else None
