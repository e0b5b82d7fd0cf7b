"""Our marks must not break jaxtyping's own runtime checking (with beartype)."""

from __future__ import annotations

import pytest

jaxtyping = pytest.importorskip("jaxtyping")
beartype = pytest.importorskip("beartype")
torch = pytest.importorskip("torch")

from jaxtyping import Float, jaxtyped  # noqa: E402
from tensorshape.lang.parse import parse_shape  # noqa: E402
from torch import Tensor  # noqa: E402


@jaxtyped(typechecker=beartype.beartype)
def project(x: Float[Tensor, "b data=d"], w: Float[Tensor, "d k"]) -> Float[Tensor, "b data=k"]:
    return x @ w


@jaxtyped(typechecker=beartype.beartype)
def ragged(x: Float[Tensor, "jagged=n d"]) -> Float[Tensor, "jagged=n d"]:
    return x * 2


def test_data_mark_checks_and_binds_at_runtime() -> None:
    assert project(torch.zeros(2, 3), torch.zeros(3, 4)).shape == (2, 4)
    with pytest.raises(Exception, match="(?i)type-check|shape|dim"):
        project(torch.zeros(2, 3), torch.zeros(5, 4))  # d bound to 3 by x, 5 in w


def test_jagged_mark_checks_at_runtime() -> None:
    assert ragged(torch.zeros(5, 3)).shape == (5, 3)
    assert parse_shape("jagged=n d").dims[0].jagged


def test_seed_notation_breaks_jaxtyping() -> None:
    """Why we spell the mark ``data=d``: jaxtyping evaluates ``d!`` and fails."""

    @jaxtyped(typechecker=beartype.beartype)
    def f(x: Float[Tensor, "b d!"]) -> None:
        pass

    with pytest.raises(jaxtyping.TypeCheckError):
        f(torch.zeros(2, 3))
