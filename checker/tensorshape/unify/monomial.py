"""Monomials read off sympy dims, to decide divisibility without building a quotient.

Most divisions of symbolic dims a model asks about are of one product by another (``3*n_embd``
by ``n_embd``, ``b*t*vocab_size`` by ``vocab_size``, ``c`` by ``n_head``).  sympy answers
"does ``m`` divide ``n``" by building ``n/m`` (a new expression, its flattening and its cache)
and reading the quotient's denominator.  For two monomials (an integer coefficient times
symbols to positive integer powers) the answer is in the exponents: ``m | n`` exactly when
``m``'s coefficient divides ``n``'s and no symbol has a higher power in ``m`` than in ``n`` —
what sympy's quotient says, since it keeps a product's powers of one symbol merged.

Anything else (a sum, a ``floor``, a fraction, a power of a sum) is not a monomial here, and the
callers ask sympy as before.  ``tests/core/test_monomial.py`` checks every answer against sympy's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from ..model.dims import Unknown

__all__ = ["Monomial", "monomial", "divides"]


@dataclass(frozen=True, slots=True)
class Monomial:
    """``coeff * s1**k1 * s2**k2 * ...`` with every ``k`` a positive int."""

    coeff: int
    #: Symbol -> exponent (at least 1); symbols are sympy's, equal when name and assumptions are.
    powers: tuple[tuple[Any, int], ...]


def monomial(e: Any) -> Monomial | None:
    """``e`` (an ``int`` or a sympy expression) as a monomial, or ``None`` when it is not one."""
    if type(e) is int:
        return Monomial(e, ())
    if isinstance(e, Unknown):
        return None
    return _monomial(e)


@functools.lru_cache(maxsize=1 << 13)
def _monomial(e: Any) -> Monomial | None:
    if e.is_Integer:
        return Monomial(int(e), ())
    if e.is_Symbol:
        return Monomial(1, ((e, 1),))
    if not (e.is_Mul or e.is_Pow):
        return None
    coeff = 1
    powers: dict[Any, int] = {}
    for x in e.args if e.is_Mul else (e,):
        if x.is_Integer:
            coeff *= int(x)
        elif x.is_Symbol:
            powers[x] = powers.get(x, 0) + 1
        elif x.is_Pow and x.args[0].is_Symbol and x.args[1].is_Integer and x.args[1] > 0:
            powers[x.args[0]] = powers.get(x.args[0], 0) + int(x.args[1])
        else:
            return None
    return Monomial(coeff, tuple(powers.items()))


def divides(m: Monomial, n: Monomial) -> bool:
    """Is ``n / m`` a polynomial (an integer coefficient, no symbol to a negative power)?"""
    if m.coeff == 0:
        return False
    if n.coeff == 0:
        return True
    if n.coeff % m.coeff:
        return False
    have = dict(n.powers)
    return all(have.get(s, 0) >= k for s, k in m.powers)
