"""``@shapecheck`` reads annotations without evaluating them and wraps every kind of function right (issue 17, item 8)."""

from __future__ import annotations

import asyncio
from typing import Annotated

import pytest
from tensorshape.runtime import ShapeCheckError, shapecheck
from tensorshape.runtime.annotations import spec_in_text, spec_of

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

from jaxtyping import Float  # noqa: E402
from torch import Tensor  # noqa: E402

CALLS: list[str] = []


def boom() -> type:
    CALLS.append("evaluated")
    return int


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ('Float[Tensor, "b d"]', "b d"),
        ("jaxtyping.Int32[torch.Tensor, '']", ""),
        ("'Float[Tensor, \"n\"]'", "n"),
        ('Annotated[Tensor, "b d"]', None),  # not a jaxtyping dtype: not a spec
        ('Float[Tensor, "b d"] | None', None),
        ("boom()", None),
        ("Float[Tensor, SPEC]", None),
        ("Float[Tensor, 'b", None),
        ("(" * 500, None),
    ],
)
def test_specs_are_read_from_text(text: str, spec: str | None) -> None:
    assert spec_in_text(text) == spec
    assert CALLS == []


def test_string_annotations_are_not_evaluated() -> None:
    def f(x: Float[Tensor, "b d"], n: boom()) -> Float[Tensor, " b"]:  # type: ignore[valid-type]  # noqa: F821
        return x.sum(-1)

    g = shapecheck(f)
    assert g(torch.ones(2, 3), 1).shape == (2,)
    with pytest.raises(ShapeCheckError):
        g(torch.ones(2), 1)
    assert CALLS == []  # with `from __future__ import annotations` here, every annotation is a string


def test_annotated_metadata_is_not_a_spec() -> None:
    @shapecheck
    def f(x: Annotated[int, "b d"]) -> int:
        return x

    assert f(3) == 3


def test_evaluated_annotation_objects_still_work() -> None:
    assert spec_of(Float[Tensor, "b d"]) == "b d" and spec_of(int) is None


def test_keyword_only_parameters_are_not_taken_from_star_args() -> None:
    @shapecheck
    def f(x: Float[Tensor, "b d"], *rest: object, w: Float[Tensor, "d k"]) -> Float[Tensor, "b k"]:
        return x @ w

    # rest[0] is a 1-d tensor: the old wrapper took it for `w` (positional index 2).
    assert f(torch.ones(2, 3), torch.ones(7), w=torch.ones(3, 4)).shape == (2, 4)
    with pytest.raises(ShapeCheckError):
        f(torch.ones(2, 3), w=torch.ones(5, 4))


async def _fast(x: Float[Tensor, "b d"], ok: bool) -> Float[Tensor, " b"]:
    await asyncio.sleep(0)
    return torch.ones(x.shape[0]) if ok else x


async def _generic(x: Float[Tensor, "b d"], ok: bool) -> Float[Tensor, " 2*b"]:
    await asyncio.sleep(0)
    return torch.ones(2 * x.shape[0]) if ok else x


@pytest.mark.parametrize("fn", [_fast, _generic], ids=["fast", "generic"])
def test_coroutine_results_are_checked_after_await(fn: object) -> None:
    f = shapecheck(fn)  # type: ignore[type-var]
    assert asyncio.iscoroutinefunction(f)
    assert asyncio.run(f(torch.ones(3, 2), True)).ndim == 1
    with pytest.raises(ShapeCheckError):
        asyncio.run(f(torch.ones(3, 2), False))
    with pytest.raises(ShapeCheckError):
        asyncio.run(f(torch.ones(3), True))


def test_generator_return_is_not_checked() -> None:
    @shapecheck
    def gen(x: Float[Tensor, "b d"]) -> Float[Tensor, " b"]:
        yield x.sum(-1)

    assert [t.shape for t in gen(torch.ones(2, 3))] == [(2,)]
    with pytest.raises(ShapeCheckError):
        gen(torch.ones(2))


def test_malformed_spec_names_the_annotation() -> None:
    def f(x: Float[Tensor, "b (d"]) -> None:  # type: ignore[name-defined]
        return None

    with pytest.raises(ValueError, match=r"the spec 'b \(d' of `x` does not parse"):
        shapecheck(f)
