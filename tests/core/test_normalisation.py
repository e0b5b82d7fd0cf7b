"""Symbolic normalisation without false errors (issue 15 item 6), checked against Python ints.

Every normal form here is a claim about all the sizes a symbol can take; hypothesis
substitutes sizes and compares with what Python computes.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from tensorshape.model.constraints import Rel
from tensorshape.model.dims import Unknown
from tensorshape.unify import arith
from tensorshape.unify.compare import Truth, condition_for, eq3, exact_divisions, le3
from tensorshape.unify.facts import NO_FACTS
from tensorshape.unify.symbols import opaque, rigid

h, w = rigid("h"), rigid("w")
n = opaque("n")

_sizes = st.integers(min_value=0, max_value=400)
_divisors = st.integers(min_value=1, max_value=9)
_offsets = st.integers(min_value=-5, max_value=5)


def _value(d: object, env: dict[object, int]) -> int:
    if type(d) is int:
        return d
    return int(arith.to_sympy(d).subs(env))


def test_stacked_downsampling_is_one_division() -> None:
    third = arith.floordiv(arith.floordiv(arith.floordiv(h, 2), 2), 2)
    assert third == arith.floordiv(h, 8)
    assert eq3(third, arith.floordiv(h, 8)) is Truth.TRUE


@given(hv=_sizes, divisors=st.lists(_divisors, min_size=1, max_size=4), offsets=st.lists(_offsets, max_size=4))
def test_nested_floor_division_agrees_with_python(hv: int, divisors: list[int], offsets: list[int]) -> None:
    """``((h + c1)//k1 + c2)//k2 ...``: the normal form gives Python's value for every ``h``."""
    d: object = h
    value = hv
    for i, k in enumerate(divisors):
        c = offsets[i] if i < len(offsets) else 0
        d = arith.floordiv(arith.add(d, c), k)  # type: ignore[arg-type]
        value = (value + c) // k
    assert not isinstance(d, Unknown)
    assert _value(d, {h: hv}) == value


@given(hv=_sizes, divisors=st.lists(_divisors, min_size=1, max_size=4))
def test_nested_ceil_division_agrees_with_python(hv: int, divisors: list[int]) -> None:
    d: object = h
    value = hv
    for k in divisors:
        d = arith.ceildiv(d, k)  # type: ignore[arg-type]
        value = -(-value // k)
    assert _value(d, {h: hv}) == value


def test_double_of_half_equals_only_for_even_sizes() -> None:
    back = arith.mul(2, arith.floordiv(h, 2))
    assert eq3(back, h) is Truth.UNKNOWN, "not provable for every h: never an error"
    assert exact_divisions(back, h) == ((h, 2),)
    assert condition_for(Rel.EQ, h, back) == "`h` must be even"
    assert condition_for(Rel.EQ, arith.mul(4, arith.floordiv(w, 4)), w) == "`w` must be divisible by 4"
    assert condition_for(Rel.EQ, h, w) is None, "two unrelated sizes have no divisibility condition"
    assert condition_for(Rel.LE, h, back) is None


@given(hv=_sizes, k=st.integers(min_value=2, max_value=9), c=_offsets)
def test_divisibility_condition_is_exactly_when_equal(hv: int, k: int, c: int) -> None:
    """With one division, the condition named holds exactly for the sizes where the dims are equal."""
    a = arith.add(h, c)
    b = arith.mul(k, arith.floordiv(a, k))
    found = exact_divisions(a, b)
    assert found is not None and len(found) == 1
    num, den = found[0]
    holds = _value(num, {h: hv}) % int(den) == 0
    assert holds == (hv + c == k * ((hv + c) // k))


def test_a_required_exact_division_becomes_a_fact() -> None:
    """``n_head * (n_embd // n_head) == n_embd`` holds only if the division is exact: later code knows it."""
    e, hd = opaque("n_embd"), opaque("n_head")
    facts = NO_FACTS.assume_eq(arith.mul(hd, arith.floordiv(e, hd)), e)
    assert facts.divisible(e, hd) is True
    assert eq3(arith.mul(hd, arith.floordiv(e, hd)), e, facts) is Truth.TRUE
    back = NO_FACTS.assume_eq(arith.mul(2, arith.floordiv(h, 2)), h)
    assert eq3(arith.mul(2, arith.floordiv(h, 2)), h, back) is Truth.TRUE


def test_min_max_facts() -> None:
    assert le3(arith.dmin(5, n), n) is Truth.TRUE
    assert le3(arith.dmin(5, n), 5) is Truth.TRUE
    assert le3(n, arith.dmax(n, 3)) is Truth.TRUE
    assert le3(arith.dmax(2, 3), 3) is Truth.TRUE
    assert le3(arith.dmax(5, n), n) is Truth.UNKNOWN
    assert le3(arith.dmin(n, h), arith.dmax(n, h)) is Truth.TRUE
    assert le3(arith.dmin(arith.dmax(1, n), n), n) is Truth.TRUE, "clamp(n, 1, n) <= n"
    assert le3(n, arith.sub(n, 1)) is Truth.FALSE


_exprs = st.sampled_from(["min5", "max3", "minh", "clamp", "n", "h", "nm1", "np2"])


def _build(name: str) -> object:
    return {
        "min5": arith.dmin(5, n),
        "max3": arith.dmax(3, n),
        "minh": arith.dmin(n, h),
        "clamp": arith.dmin(arith.dmax(n, 2), h),
        "n": n,
        "h": h,
        "nm1": arith.sub(n, 1),
        "np2": arith.add(n, 2),
    }[name]


@given(a=_exprs, b=_exprs, nv=_sizes, hv=st.integers(min_value=1, max_value=400))
def test_le3_never_contradicts_python(a: str, b: str, nv: int, hv: int) -> None:
    """A decided ``<=`` holds (or fails) for every substitution; undecided is always allowed."""
    t = le3(_build(a), _build(b))  # type: ignore[arg-type]
    if t is Truth.UNKNOWN:
        return
    env = {n: nv, h: hv}
    truth = _value(_build(a), env) <= _value(_build(b), env)
    assert truth == (t is Truth.TRUE), (a, b, nv, hv)


@given(
    hv=_sizes,
    pv=st.integers(min_value=1, max_value=12),
    a=st.integers(min_value=0, max_value=3),
    c=st.integers(min_value=-3, max_value=3),
    k=_offsets,
)
def test_terms_a_symbolic_divisor_divides_leave_the_floor(hv: int, pv: int, a: int, c: int, k: int) -> None:
    """``(a*h + c*p + k) // p`` (conv output sizes: ``(h - k)//s + 1``) agrees with Python."""
    p = opaque("p")
    expr = arith.add(arith.add(arith.mul(a, h), arith.mul(c, p)), k)
    for op, expected in (
        (arith.floordiv, (a * hv + c * pv + k) // pv),
        (arith.mod, (a * hv + c * pv + k) % pv),
    ):
        got = op(expr, p)
        if isinstance(got, Unknown):
            continue
        assert _value(got, {h: hv, p: pv}) == expected, (op.__name__, expr, got)
    assert arith.add(arith.floordiv(arith.sub(h, p), p), 1) == arith.floordiv(h, p)
