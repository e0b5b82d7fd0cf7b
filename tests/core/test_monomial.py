"""Divisibility of products read off their exponents (issue 20): the answers sympy's quotient gives.

``unify.monomial`` decides ``m | n`` for two monomials without building ``n/m``; ``Facts.divisible``,
``floordiv`` and ``mod`` use it, and ``0 + x``, ``x - 0``, ``1 * x`` and an equality of one
expression with itself are answered without sympy.  Each is checked here against what sympy
itself answers (the code paths the fast ones replace, written out), on random dims.
"""

from __future__ import annotations

from typing import Any

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from tensorshape.model.dims import Unknown
from tensorshape.unify import arith, compare
from tensorshape.unify.compare import eq3
from tensorshape.unify.facts import NO_FACTS, Facts, _integer_quotient
from tensorshape.unify.monomial import Monomial, divides, monomial
from tensorshape.unify.symbols import opaque, rigid

a, b, c = rigid("a"), rigid("b"), rigid("c")
n, m = opaque("n"), opaque("m")
# The same name with other assumptions (a fact's positive form of ``n``): another symbol.
n_pos = sympy.Symbol("n", integer=True, positive=True)

_leaf = st.sampled_from([a, b, c, n, m, n_pos, 1, 2, 3, 4, 6, -2, 0])


def _product(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.builds(arith.mul, children, children)


#: Monomials (products of leaves) and, mixed in, dims sympy must still decide.
_monomials = st.recursive(_leaf, _product, max_leaves=5)


def _combine(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    ops = st.sampled_from([arith.add, arith.sub, arith.mul, arith.floordiv, arith.mod, arith.dmax])
    return st.builds(lambda op, x, y: op(x, y), ops, children, children)


_dims = st.one_of(_monomials, st.recursive(_leaf, _combine, max_leaves=5)).filter(lambda d: not isinstance(d, Unknown))


def _sympy_divides(divisor: Any, dividend: Any) -> bool:
    """sympy's answer: the quotient cancelled has no denominator."""
    q = sympy.cancel(arith.to_sympy(dividend) / arith.to_sympy(divisor))
    return bool(sympy.fraction(q)[1] == 1)


def _old_divide(a: Any, b: Any) -> tuple[Any, Any]:
    """``arith._divide`` for a symbolic divisor as it was, all in sympy."""
    S = sympy
    zero = S.Integer(0)
    q = a / b
    if S.fraction(q)[1] == 1:
        return q, zero
    whole, part = zero, zero
    for term in S.Add.make_args(S.expand(a)):
        t = term / b
        if S.fraction(t)[1] == 1 and t.is_integer:
            whole += t
        else:
            part += term
    return whole, part


@settings(max_examples=400, deadline=None)
@given(x=_dims)
def test_a_monomial_is_the_expression(x: Any) -> None:
    got = monomial(x)
    e = arith.to_sympy(x)
    if got is None:
        assert not (e.is_Integer or e.is_Symbol)
        return
    rebuilt = sympy.Integer(got.coeff) * sympy.Mul(*(s**k for s, k in got.powers))
    assert rebuilt == e
    assert all(k >= 1 for _, k in got.powers)


@settings(max_examples=600, deadline=None)
@given(x=_monomials, y=_monomials)
def test_divides_is_sympys_answer(x: Any, y: Any) -> None:
    mx, my = monomial(x), monomial(y)
    assert mx is not None and my is not None
    if my.coeff == 0:
        return  # a division by zero: the callers never ask
    assert divides(my, mx) == _sympy_divides(y, x)


@settings(max_examples=400, deadline=None)
@given(x=_dims, y=_dims)
def test_divisible_is_the_quotients_answer(x: Any, y: Any) -> None:
    if (type(x) is int and type(y) is int) or arith.is_int_value(y, 0):
        return
    want = True if _integer_quotient(arith.to_sympy(x) / arith.to_sympy(y), frozenset()) else None
    assert NO_FACTS.divisible(x, y) is want


@settings(max_examples=400, deadline=None)
@given(x=_dims, y=_dims)
def test_division_by_a_symbolic_dim_is_unchanged(x: Any, y: Any) -> None:
    if type(y) is int:
        return
    want = _old_divide(arith.to_sympy(x), y)
    assert arith._divide(arith.to_sympy(x), y) == want


@settings(max_examples=300, deadline=None)
@given(x=_dims)
def test_identities_are_what_sympy_builds(x: Any) -> None:
    e = arith.to_sympy(x)
    assert arith.mul(1, x) == arith.norm(sympy.Integer(1) * e) == arith.mul(x, 1)
    assert arith.add(0, x) == arith.norm(sympy.Integer(0) + e) == arith.add(x, 0)
    assert arith.sub(x, 0) == arith.norm(e - sympy.Integer(0))


@settings(max_examples=300, deadline=None)
@given(x=_dims, y=_dims)
def test_equality_with_facts_is_unchanged(x: Any, y: Any) -> None:
    facts = Facts(positive=frozenset({n}))
    want = compare._symbolic_eq.__wrapped__(
        facts.positive_form(arith.to_sympy(facts.simplify(x))), facts.positive_form(arith.to_sympy(facts.simplify(y)))
    )
    if type(x) is int and type(y) is int:
        return
    assert eq3(x, y, facts) is want


def test_divides_reads_exponents() -> None:
    assert divides(Monomial(1, ((a, 1),)), Monomial(3, ((a, 1), (b, 1))))
    assert not divides(Monomial(2, ((a, 1),)), Monomial(3, ((a, 1),)))
    assert not divides(Monomial(1, ((a, 2),)), Monomial(1, ((a, 1),)))
    assert not divides(Monomial(1, ((n_pos, 1),)), Monomial(1, ((n, 1),)))  # another symbol
    assert divides(Monomial(5, ((a, 1),)), Monomial(0, ()))


@pytest.mark.parametrize(
    "dividend, divisor, want",
    [
        (arith.mul(3, a), a, True),
        (arith.mul(arith.mul(b, c), a), a, True),
        (a, b, None),
        (arith.mul(2, a), arith.mul(4, a), None),
        (arith.add(a, b), a, None),  # a sum: sympy decides
    ],
)
def test_divisible_products(dividend: Any, divisor: Any, want: bool | None) -> None:
    assert NO_FACTS.divisible(dividend, divisor) is want
