"""Sample points that decide "undecided" without sympy (issue 20): the same answers as sympy's.

``sampling.undecided(a, b)`` claims that sympy can neither prove nor refute ``a == b``; every
claim is checked here against sympy's own answer (the difference expanded, then ``is_zero``),
on the dims the rules build and on random expressions of them.
"""

from __future__ import annotations

from typing import Any

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from tensorshape.model.dims import Unknown
from tensorshape.unify import arith, compare
from tensorshape.unify.compare import Truth, eq3
from tensorshape.unify.sampling import _Unusable, _value, undecided
from tensorshape.unify.symbols import opaque, rigid

a, b, c = rigid("a"), rigid("b"), rigid("c")
n, m = opaque("n"), opaque("m")
free = sympy.Symbol("z", integer=True)  # no sign: never sampled


def _sympy_truth(x: Any, y: Any) -> Truth:
    """What sympy says about ``x == y`` (the path ``_symbolic_eq`` takes without sampling)."""
    diff = sympy.expand(arith.to_sympy(x) - arith.to_sympy(y))
    if diff == 0:
        return Truth.TRUE
    if diff.is_number:
        return Truth.FALSE
    return compare._truth(diff.is_zero)


# The questions a model's analysis asks most: a size against another, against a literal, a
# head split against its product.
COMMON = [
    (a, b),
    (a, n),
    (n, 1),
    (a, 1),
    (4096, arith.mul(4, a)),
    (56, n),
    (arith.mul(arith.mul(b, c), a), arith.mul(arith.mul(b, n), arith.floordiv(a, n))),
    (arith.mul(197, arith.floordiv(a, b)), arith.floordiv(a, b)),
    (arith.sub(a, arith.floordiv(arith.add(a, 1), 2)), 1),
]


@pytest.mark.parametrize("x, y", COMMON, ids=[f"{x}=={y}" for x, y in COMMON])
def test_common_questions_are_decided_by_samples_as_sympy_decides_them(x: Any, y: Any) -> None:
    assert undecided(x, y)
    assert _sympy_truth(x, y) is Truth.UNKNOWN


@pytest.mark.parametrize(
    "x, y",
    [
        (a, a),  # equal: no point makes them differ
        (arith.mul(2, a), arith.add(a, a)),
        (a, 0),  # a rigid size is at least 1: never 0
        (n, -1),  # an opaque size is at least 0
        (arith.add(a, 1), a),
        (a, free),  # a symbol with no sign is never sampled
        (arith.mul(2, a), arith.add(arith.mul(2, b), 1)),  # even against odd: no point found
    ],
)
def test_no_claim_where_sympy_may_decide(x: Any, y: Any) -> None:
    assert not undecided(x, y)


def test_undecided_equality_does_not_expand(monkeypatch: pytest.MonkeyPatch) -> None:
    """``c == ndim`` is answered without sympy's expansion (what made it cost milliseconds)."""
    x, y = rigid("c_sampled"), rigid("ndim_sampled")

    def refuse(e: Any) -> Any:
        raise AssertionError("sympy asked")

    monkeypatch.setattr(compare, "expand_bounded", refuse)
    assert eq3(x, y) is Truth.UNKNOWN
    assert eq3(arith.mul(3, x), 12) is Truth.UNKNOWN


_leaf = st.sampled_from([a, b, n, m, 1, 2, 3, 4, 7, 16])


def _combine(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    ops = st.sampled_from([arith.add, arith.sub, arith.mul, arith.floordiv, arith.mod, arith.dmin, arith.dmax])
    return st.builds(lambda op, x, y: op(x, y), ops, children, children)


_dims = st.recursive(_leaf, _combine, max_leaves=6).filter(lambda d: not isinstance(d, Unknown))


@settings(max_examples=300, deadline=None)
@given(x=_dims, y=_dims)
def test_a_claim_is_what_sympy_answers(x: Any, y: Any) -> None:
    if undecided(x, y):
        assert _sympy_truth(x, y) is Truth.UNKNOWN


@settings(max_examples=200, deadline=None)
@given(x=_dims, av=st.integers(1, 40), bv=st.integers(1, 40), nv=st.integers(0, 40), mv=st.integers(0, 40))
def test_evaluation_is_sympys_value(x: Any, av: int, bv: int, nv: int, mv: int) -> None:
    env = {a: av, b: bv, n: nv, m: mv}
    try:
        got = _value(x, env)
    except (ZeroDivisionError, _Unusable):  # no value at this point (a division by zero)
        return
    want = arith.to_sympy(x).subs(env)
    assert want == got
