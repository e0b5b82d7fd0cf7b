"""The facts' answers are remembered (issue 20): the same answers, and the same bound counts.

An analysis asks its facts the same questions thousands of times (25k simplifications of 253
distinct dims on the annotated models); they are remembered per (facts, question).  A remembered
answer must count the bounds its first computation hit again, and a fact that changes nothing
must still give back the very facts it was asked of.
"""

from __future__ import annotations

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from tensorshape.unify import arith, bounds
from tensorshape.unify.facts import NO_FACTS, Facts, _monomial_whole
from tensorshape.unify.symbols import opaque, rigid

h, w, c = rigid("h"), rigid("w"), rigid("c")
n = opaque("n")


def _hits(fn) -> int:  # type: ignore[no-untyped-def]
    with bounds.recording() as counts:
        fn()
    return counts[bounds.EXPANSION]


def test_a_remembered_simplification_counts_its_bound_again() -> None:
    facts = NO_FACTS.assume_divides(c, h)
    huge = sympy.floor((h + w) ** 9 / c, evaluate=False)  # too big to put over a common denominator
    assert _hits(lambda: facts.simplify(huge)) == 1
    assert _hits(lambda: facts.simplify(huge)) == 1  # remembered: counted again
    assert facts.simplify(huge) == huge


def test_divisibility_facts_simplify_the_same_twice() -> None:
    facts = NO_FACTS.assume_divides(c, h)
    per_head = arith.floordiv(h, c)
    assert facts.simplify(arith.mul(c, per_head)) == h
    assert facts.simplify(arith.mul(c, per_head)) == h
    assert facts.divisible(h, c) is True
    assert facts.divisible(h, c) is True
    assert facts.divisible(w, c) is None


def test_a_fact_that_changes_nothing_gives_back_the_same_facts() -> None:
    facts = NO_FACTS.assume_eq(n, 4)
    again = Facts(facts.subst)  # equal by value, another object
    assert again.assume_eq(n, 4) is again
    assert facts.assume_eq(n, 4) is facts
    assert facts.assume_eq(h, w) == again.assume_eq(h, w)
    assert facts.simplify(arith.add(n, 1)) == 5


def test_positive_form_is_per_set_of_positive_symbols() -> None:
    facts = NO_FACTS.assume_positive(n)
    e = arith.add(n, h)
    twin = facts.positive_form(e)
    assert twin != e and str(twin) == str(e)
    assert facts.positive_form(e) is twin
    assert NO_FACTS.positive_form(e) is e


_factor = st.sampled_from([h, w, c, n, sympy.Integer(2), sympy.Integer(3), sympy.Rational(1, 2), sympy.Integer(-1)])


@settings(max_examples=300, deadline=None)
@given(top=st.lists(_factor, max_size=4), bottom=st.lists(_factor, max_size=3))
def test_a_monomial_is_whole_as_cancel_says(top: list, bottom: list) -> None:  # type: ignore[type-arg]
    """Without ``cancel`` (a polynomial GCD per question): a product of powers of symbols."""
    e = sympy.Mul(*top) / sympy.Mul(*bottom)
    assert _monomial_whole(e) == (sympy.fraction(sympy.cancel(e))[1] == 1)


def test_a_sum_is_left_to_cancel() -> None:
    assert _monomial_whole((h + w) / c) is None
    assert NO_FACTS.divisible(arith.add(arith.mul(2, h), arith.mul(2, w)), 2) is True
    assert NO_FACTS.assume_divides(c, h).divisible(arith.mul(w, h), c) is True
    assert NO_FACTS.divisible(arith.mul(w, h), c) is None
