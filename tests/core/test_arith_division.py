"""Symbolic ``//`` and ``%``: cheap normal forms that stay exact (checked against Python ints)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from tensorshape.model.dims import Unknown
from tensorshape.unify import arith
from tensorshape.unify.symbols import rigid

d, h, w = (rigid(x) for x in "dhw")


def test_divisible_terms_leave_the_floor() -> None:
    assert arith.floordiv(arith.mul(2, d), 2) == d
    assert arith.floordiv(arith.add(arith.mul(2, d), 3), 2) == arith.add(d, 1)
    assert arith.mod(arith.add(arith.mul(2, d), 3), 2) == 1
    assert arith.mod(arith.mul(4, d), 2) == 0


def test_exact_symbolic_quotient() -> None:
    assert arith.floordiv(arith.mul(h, w), h) == w
    assert arith.mod(arith.mul(h, w), w) == 0


def test_what_stays_inside_is_an_unevaluated_floor() -> None:
    q = arith.floordiv(arith.sub(d, 1), 2)
    assert not isinstance(q, Unknown) and "floor" in str(q)
    r = arith.mod(d, h)
    assert not isinstance(r, Unknown) and "Mod" in str(r)


_ints = st.integers(min_value=-40, max_value=40)
_dims = st.integers(min_value=1, max_value=30)


@given(ca=_ints, cb=_ints, c0=_ints, divisor=st.integers(min_value=-9, max_value=9).filter(bool), dv=_dims, hv=_dims)
def test_division_agrees_with_python(ca: int, cb: int, c0: int, divisor: int, dv: int, hv: int) -> None:
    """``(ca*d + cb*d*h + c0) // divisor`` and ``% divisor``, substituted, equal Python's results."""
    expr = arith.add(arith.add(arith.mul(ca, d), arith.mul(cb, arith.mul(d, h))), c0)
    value = ca * dv + cb * dv * hv + c0
    for op, expected in ((arith.floordiv, value // divisor), (arith.mod, value % divisor)):
        got = op(expr, divisor)
        if isinstance(got, Unknown):
            continue
        concrete = arith.to_sympy(got).subs({d: dv, h: hv}) if not isinstance(got, int) else got
        assert int(concrete) == expected, (op.__name__, expr, divisor, got)


@given(dv=_dims, hv=_dims, k=_dims)
def test_symbolic_divisor_agrees_with_python(dv: int, hv: int, k: int) -> None:
    expr = arith.add(arith.mul(d, h), k)
    for op, expected in ((arith.floordiv, (dv * hv + k) // hv), (arith.mod, (dv * hv + k) % hv)):
        got = op(expr, h)
        concrete = arith.to_sympy(got).subs({d: dv, h: hv}) if not isinstance(got, int) else got
        assert int(concrete) == expected


def test_exact_quotients_render_as_floor_division() -> None:
    from tensorshape.lang.render import render_dim
    from tensorshape.unify.facts import Facts

    facts = Facts().assume_divides(h, d)
    exact = facts.simplify(arith.floordiv(d, h))
    assert render_dim(exact) == "d//h" == render_dim(arith.floordiv(d, h))
    assert render_dim(arith.floordiv(arith.mul(d, w), h)) == "(d*w)//h"


def test_a_negative_multiple_of_a_quotient_renders_as_python_reads_it() -> None:
    """``2*n - 2*floor(2*n/3) + 1`` (the passes of ``range(0, n, 3)`` times two, plus one) printed as
    ``2*n-2*(2*n)//3+1``, which Python reads as ``2*n - (4*n)//3 + 1``: 2, not 3, for ``n = 1``."""
    from tensorshape.lang.render import render_dim

    n = arith.add(d, 0)
    e = arith.add(arith.sub(arith.mul(2, n), arith.mul(2, arith.floordiv(arith.mul(2, n), 3))), 1)
    text = render_dim(e)
    assert text == "2*d-2*((2*d)//3)+1", text
    for v in range(12):
        assert eval(text, {"d": v}) == 2 * v - 2 * (2 * v // 3) + 1  # noqa: S307 - our own text
    assert render_dim(arith.sub(3, arith.floordiv(d, 2))) == "3-d//2"


def test_lower_bound_facts_decide_multiples() -> None:
    """``4*w == 2*w`` holds only for ``w == 0``: undecided for an opaque size, false once ``w >= 1``
    is a fact; the fact survives a join only where both paths have it, and renders nothing new."""
    from tensorshape.model.constraints import Rel
    from tensorshape.unify.compare import Truth, eq3, le3
    from tensorshape.unify.facts import NO_FACTS
    from tensorshape.unify.symbols import opaque

    w, n = opaque("w"), opaque("n")
    assert eq3(4 * w, 2 * w) is Truth.UNKNOWN
    facts = NO_FACTS.assume_positive(w)
    assert eq3(4 * w, 2 * w, facts) is Truth.FALSE
    assert eq3(2 * w, 2 * w, facts) is Truth.TRUE
    assert eq3(4 * n, 2 * n, facts) is Truth.UNKNOWN
    assert le3(w, 2 * w, facts) is Truth.TRUE
    assert le3(1, w, facts) is Truth.TRUE and le3(1, w) is Truth.UNKNOWN
    assert NO_FACTS.assume_positive(3 * w).positive == facts.positive  # a positive multiple of w
    assert NO_FACTS.assume_positive(w - n).positive == frozenset()  # not a size of its own
    assert NO_FACTS.assume_positive(rigid("b")).positive == frozenset()  # positive already
    assert facts.join(NO_FACTS).positive == frozenset()
    assert (Rel.LE, 1, w) in facts.relations()


def test_inequality_facts_bound_a_difference() -> None:
    """``0 <= i`` and ``i + 1 <= n - k`` (the index a loader passes below a dataset's ``__len__``)
    prove ``i + k <= n``: the window ``data[i : i + k]`` is in range; nothing more is proven."""
    from tensorshape.model.constraints import Rel
    from tensorshape.unify.compare import Truth, le3
    from tensorshape.unify.facts import NO_FACTS
    from tensorshape.unify.symbols import opaque

    i, n = opaque("i"), opaque("n")
    k = rigid("k")
    assert le3(i + k, n) is Truth.UNKNOWN
    facts = NO_FACTS.assume_le(0, i).assume_le(i + 1, n - k)
    assert le3(i + k, n, facts) is Truth.TRUE
    assert le3(i + k + 1, n, facts) is Truth.TRUE
    assert le3(i + k + 2, n, facts) is Truth.UNKNOWN  # only ``i + k + 1 <= n`` is known
    assert le3(0, i, facts) is Truth.TRUE
    assert NO_FACTS.assume_le(2, 3) == NO_FACTS  # decided already: nothing to keep
    assert (Rel.LE, 0, i) in facts.relations()
    assert facts.join(NO_FACTS.assume_le(0, i)).nonnegative == frozenset({i})
