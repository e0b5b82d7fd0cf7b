"""Dim arithmetic: ints stay ints, unknowns propagate, sympy only when symbolic.

Every result is normalised: a sympy integer becomes an ``int``, and an
expression larger than :data:`MAX_OPS` operations becomes
``Unknown(TOO_COMPLEX)``, so a pathological program degrades instead of hanging.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..model.dims import Dim, Unknown, UnknownSource
from .symbols import sp

__all__ = [
    "MAX_OPS",
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
]

#: Expressions with more operations than this give up (become unknown).
MAX_OPS = 40


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
    if not e.is_integer and e.is_integer is not None:
        # A non-integer rational (``d/2`` with nothing saying 2 | d) is not a dim.
        return Unknown(UnknownSource.TOO_COMPLEX)
    if len(e.args) > 2 or any(not a.is_Atom for a in e.args):
        if sp().count_ops(e) > MAX_OPS:
            return Unknown(UnknownSource.TOO_COMPLEX)
    return e


def _unknown(*ds: Dim) -> Unknown | None:
    for d in ds:
        if isinstance(d, Unknown):
            return d
    return None


def add(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return a + b
    return _unknown(a, b) or norm(to_sympy(a) + to_sympy(b))


def sub(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return a - b
    return _unknown(a, b) or norm(to_sympy(a) - to_sympy(b))


def mul(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return a * b
    if a == 0 or b == 0:
        return 0
    return _unknown(a, b) or norm(to_sympy(a) * to_sympy(b))


def neg(a: Dim) -> Dim:
    if isinstance(a, int):
        return -a
    return _unknown(a) or norm(-a)  # type: ignore[operator]


def floordiv(a: Dim, b: Dim) -> Dim:
    """``a // b``; unknown when ``b`` is zero."""
    if type(a) is int and type(b) is int:
        return a // b if b else Unknown(UnknownSource.ERROR)
    u = _unknown(a, b)
    if u:
        return u
    if b == 1:
        return a
    if b == 0:
        return Unknown(UnknownSource.ERROR)
    return norm(sp().floor(to_sympy(a) / to_sympy(b)))


def ceildiv(a: Dim, b: Dim) -> Dim:
    """``ceil(a / b)`` for positive ``b``, as ``-(-a // b)``."""
    return neg(floordiv(neg(a), b))


def mod(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return a % b if b else Unknown(UnknownSource.ERROR)
    u = _unknown(a, b)
    if u:
        return u
    if b == 1:
        return 0
    return norm(sp().Mod(to_sympy(a), to_sympy(b)))


def dpow(a: Dim, b: Dim) -> Dim:
    if type(a) is int and type(b) is int:
        return a**b if b >= 0 else Unknown(UnknownSource.UNSUPPORTED)
    u = _unknown(a, b)
    if u:
        return u
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
