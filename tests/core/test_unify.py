"""Symbolic dims, facts and unification."""

from __future__ import annotations

from tensorshape.lang.parse import parse_shape
from tensorshape.model.dims import Star, Unknown, UnknownSource
from tensorshape.model.shape import Shape
from tensorshape.unify import arith
from tensorshape.unify.compare import Truth, Verdict, classify, eq3
from tensorshape.unify.facts import Facts
from tensorshape.unify.match import Bindings, Operand, instantiate, match
from tensorshape.unify.symbols import SymbolTable, opaque, rigid

b, d, h, n, m, k = (rigid(x) for x in "bdhnmk")


def run(specs: list[str], shapes: list[Shape], ret: str) -> tuple[list[tuple[str, str]], Shape]:
    bind = Bindings()
    ops = [Operand(parse_shape(s), sh, f"a{i}") for i, (s, sh) in enumerate(zip(specs, shapes))]
    problems = match(ops, bind)
    return [(p.verdict.value, p.message) for p in problems], instantiate(parse_shape(ret), bind)


def test_ints_stay_ints() -> None:
    assert type(arith.mul(3, 4)) is int
    assert type(arith.add(arith.mul(d, 2), arith.neg(arith.mul(2, d)))) is int
    assert arith.floordiv(7, 2) == 3 and arith.mod(7, 2) == 1


def test_unknown_propagates() -> None:
    u = Unknown(UnknownSource.DATA_DEPENDENT)
    assert arith.add(u, 1) is u
    assert arith.mul(u, 0) == 0


def test_pathological_expression_degrades_to_unknown() -> None:
    e = d
    for i in range(60):
        e = arith.add(arith.mul(e, arith.add(h, i)), i)
        if isinstance(e, Unknown):
            break
    assert isinstance(e, Unknown) and e.source is UnknownSource.TOO_COMPLEX


def test_eq3() -> None:
    assert eq3(3, 3) is Truth.TRUE and eq3(3, 4) is Truth.FALSE
    assert eq3(d, arith.add(d, 1)) is Truth.FALSE, "d == d + 1 is a contradiction"
    assert eq3(n, arith.mul(2, n)) is Truth.FALSE, "rigid dims are positive"
    assert eq3(n, m) is Truth.UNKNOWN
    assert classify(eq3(n, m), n, m) is Verdict.UNPROVEN
    assert classify(eq3(n, opaque("heads")), n, opaque("heads")) is Verdict.OBLIGATION
    assert classify(eq3(n, Unknown()), n, Unknown()) is Verdict.OBLIGATION


def test_divisibility_fact_simplifies() -> None:
    e = arith.mul(h, arith.floordiv(d, h))
    assert eq3(e, d) is Truth.UNKNOWN
    facts = Facts().assume_divides(h, d)
    assert facts.simplify(e) == d
    assert eq3(e, d, facts) is Truth.TRUE
    assert facts.simplify(arith.mod(d, h)) == 0


def test_equality_fact() -> None:
    facts = Facts().assume_eq(n, 3)
    assert facts.simplify(arith.mul(n, m)) == arith.mul(3, m)
    both = facts.join(Facts().assume_eq(n, 3))
    assert both.simplify(n) == 3
    assert facts.join(Facts()).simplify(n) == n


def test_solve_products() -> None:
    assert run(["n*p", "p"], [Shape.of(100), Shape.of(5)], "n")[1] == Shape.of(20)
    assert run(["n*p*p", "p"], [Shape.of(100), Shape.of(5)], "n")[1] == Shape.of(4)
    assert run(["h*w", "w"], [Shape.of(75), Shape.of(3)], "h")[1] == Shape.of(25)
    assert run(["2*d"], [Shape.of(10)], "d")[1] == Shape.of(5)


def test_not_a_perfect_square() -> None:
    problems, _ = run(["x*x"], [Shape.of(10)], "x")
    assert problems and problems[0][0] == "error" and "not a perfect square" in problems[0][1]


def test_not_divisible() -> None:
    problems, _ = run(["3*n"], [Shape.of(10)], "n")
    assert problems and "not divisible" in problems[0][1]


def test_matmul_like_binding() -> None:
    problems, out = run(["*b n k", "*b k m"], [Shape.of(2, 3, 4), Shape.of(2, 4, 5)], "*b n m")
    assert not problems and out == Shape.of(2, 3, 5)
    problems, _ = run(["*b n k", "*b k m"], [Shape.of(2, 3, 4), Shape.of(2, 5, 5)], "*b n m")
    assert problems[0][0] == "error" and "k=4" in problems[0][1]


def test_broadcast_variadic() -> None:
    problems, out = run(["*#s", "*#s"], [Shape.of(2, 1, 4), Shape.of(3, 1)], "*s")
    assert not problems and out == Shape.of(2, 3, 4)
    problems, _ = run(["*#s", "*#s"], [Shape.of(2, 3, 4), Shape.of(5, 4)], "*s")
    assert problems[0][0] == "error" and "3 vs 5" in problems[0][1]


def test_unknown_is_an_obligation_not_an_error() -> None:
    problems, out = run(["b d", "b d"], [Shape.unknown(), Shape.of(3, 4)], "b d")
    assert problems and all(v == "obligation" for v, _ in problems)
    assert out == Shape.of(3, 4)


def test_rank_mismatch() -> None:
    problems, _ = run(["b d"], [Shape.of(3, 4, 5)], "b d")
    assert problems[0][0] == "error" and "expected 2 dims" in problems[0][1]


def test_distinct_rigid_names_are_unproven() -> None:
    problems, _ = run(["n k", "k m"], [Shape.of(n, k), Shape.of(m, 5)], "n m")
    assert problems[0][0] == "unproven"


def test_named_variadic_flows() -> None:
    _, out = run(["*b n"], [Shape((Star("batch"), n))], "*b 2*n")
    assert out == Shape((Star("batch"), arith.mul(2, n)))


def test_fresh_opaque_symbols_are_distinct() -> None:
    table = SymbolTable()
    table.reserve("b")
    x, y = table.fresh("b"), table.fresh("b")
    assert x != y and x != rigid("b")
