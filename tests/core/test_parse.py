"""The shape language: jaxtyping's grammar, our marks, and errors with offsets."""

from __future__ import annotations

import pytest
from tensorshape.lang.parse import ShapeSyntaxError, parse_shape, try_parse_shape
from tensorshape.model.spec import DimKind, EBin, ECall, EName, ERef


def kinds(text: str) -> list[DimKind]:
    return [d.kind for d in parse_shape(text).dims]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("b c h w", [DimKind.NAMED] * 4),
        ("3 4", [DimKind.FIXED, DimKind.FIXED]),
        ("*batch d", [DimKind.VARIADIC, DimKind.NAMED]),
        ("... d", [DimKind.ANON_VARIADIC, DimKind.NAMED]),
        ("*_ d", [DimKind.ANON_VARIADIC, DimKind.NAMED]),
        ("_ _n", [DimKind.ANON, DimKind.ANON]),
        ("#b 1", [DimKind.NAMED, DimKind.FIXED]),
        ("rows=3 cols=4", [DimKind.FIXED, DimKind.FIXED]),
        ("d-1 2*d h*w d//2", [DimKind.EXPR] * 4),
        ("min(a,b)", [DimKind.EXPR]),
        ("", []),
        ("?x", [DimKind.NAMED]),
        ("{self.dim}", [DimKind.EXPR]),
        ("{n}+1", [DimKind.EXPR]),
        ("*#batch", [DimKind.VARIADIC]),
    ],
)
def test_grammar(text: str, expected: list[DimKind]) -> None:
    assert kinds(text) == expected


def test_details() -> None:
    s = parse_shape("#b rows=3 *batch 2*d min(a,b) {self.x}")
    b, rows, batch, e, m, ref = s.dims
    assert b.broadcastable and b.name == "b"
    assert rows.size == 3 and rows.label == "rows"
    assert batch.name == "batch" and s.variadic_index == 2
    assert isinstance(e.expr, EBin) and e.expr.op == "*" and e.expr.right == EName("d")
    assert isinstance(m.expr, ECall) and m.expr.func == "min"
    assert ref.expr == ERef("self.x")
    assert s.names() == {"b", "batch", "d", "a"}


def test_marks() -> None:
    s = parse_shape("b data=d")
    assert s.dims[1].data and s.dims[1].name == "d" and s.data_index == 1
    j = parse_shape("jagged=n d")
    assert j.dims[0].jagged and j.dims[0].name == "n"
    seed = parse_shape("b d!")
    assert seed.dims[1].data and seed.notes, "the seed notation parses, with a compatibility note"


def test_cached() -> None:
    assert parse_shape("b c") is parse_shape("b c")


@pytest.mark.parametrize(
    ("text", "offset", "fragment"),
    [
        ("b,c", 1, "commas"),
        ("b (h w)", 2, "parenthesis"),
        ("d#", 1, "before"),
        ("**x", 1, "twice"),
        ("_4", 0, "anonymous"),
        ("*4", 0, "variadic"),
        ("a ... *b", 6, "one variadic"),
        ("b d/2", 2, "//"),
        ("b __x", 3, "twice"),
        ("#_", 0, "broadcastable"),
        ("data=a data=b", 7, "data dimension"),
        ("b x+", 2, "dim expression"),
        ("b foo(x)", 2, "not a dim expression"),
    ],
)
def test_errors_point_at_offending_character(text: str, offset: int, fragment: str) -> None:
    err = try_parse_shape(text)
    assert isinstance(err, ShapeSyntaxError)
    assert err.offset == offset, (err.offset, str(err))
    assert fragment in err.message or fragment in (err.hint or "")
    with pytest.raises(ShapeSyntaxError):
        parse_shape(text)


def test_error_renders_caret() -> None:
    err = try_parse_shape("b,c")
    assert isinstance(err, ShapeSyntaxError)
    assert "^" in str(err)
