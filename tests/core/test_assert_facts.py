"""What an ``assert`` between values tells about dims (shared by the front ends)."""

from __future__ import annotations

from tensorshape.model.values import IntV, SeqKind, TupleV
from tensorshape.rules.asserts import assume_divisible, assume_equal
from tensorshape.unify.compare import Truth, eq3
from tensorshape.unify.facts import NO_FACTS
from tensorshape.unify.symbols import rigid


def test_sizes_and_shapes_are_equal_dim_by_dim() -> None:
    b, n, m = rigid("b"), rigid("n"), rigid("m")
    f = assume_equal(NO_FACTS, IntV(n), IntV(m))
    assert eq3(n, m, f) is Truth.TRUE
    f = assume_equal(NO_FACTS, TupleV((IntV(b), IntV(n)), SeqKind.SIZE), TupleV((IntV(b), IntV(3))))
    assert eq3(n, 3, f) is Truth.TRUE
    # Different lengths say nothing.
    assert assume_equal(NO_FACTS, TupleV((IntV(n),)), TupleV((IntV(m), IntV(3)))) is NO_FACTS


def test_divisibility() -> None:
    d, h = rigid("d"), rigid("h")
    f = assume_divisible(NO_FACTS, IntV(d), IntV(h))
    assert f.divisible(d, h) is True
    assert NO_FACTS.divisible(d, h) is None
