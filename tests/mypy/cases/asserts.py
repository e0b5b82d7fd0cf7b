"""Asserts relate dims for the operations after them in the same function."""

from jaxtyping import Float
from tensorshape import reveal_shape
from torch import Tensor


def dim_eq(x: Float[Tensor, "b n"], w: Float[Tensor, "m k"]) -> Tensor:
    assert x.shape[1] == w.shape[0]
    return x @ w


def names_eq(x: Float[Tensor, "b n"], w: Float[Tensor, "m k"]) -> Tensor:
    n, m = x.shape[1], w.shape[0]
    assert n == m
    return x @ w


def shapes_eq(x: Float[Tensor, "b n"], y: Float[Tensor, "b m"]) -> Tensor:
    assert x.shape == y.shape
    return y + x


def shape_is(x: Float[Tensor, "b n"], w: Float[Tensor, "m 3"]) -> Tensor:
    b = x.shape[0]
    assert x.shape == (b, 3)
    return x @ w.t()


def heads(x: Float[Tensor, "b t d"], k: Float[Tensor, " h"]) -> Tensor:
    b, t, d = x.shape
    h = k.shape[0]
    assert d % h == 0
    y = x.view(b, t, h, d // h)
    reveal_shape(y)  # N: revealed shape: [b t h d//h]
    return y.view(b, t, d)


def unasserted(x: Float[Tensor, "b n"], w: Float[Tensor, "m k"]) -> Tensor:
    return x @ w  # E: TS104


def before(x: Float[Tensor, "b n"], w: Float[Tensor, "m k"]) -> Tensor:
    y = x @ w  # E: TS104
    assert x.shape[1] == w.shape[0]
    return y


def returned(x: Float[Tensor, "b n"], y: Float[Tensor, "b m"]) -> Float[Tensor, "b n"]:
    assert x.shape == y.shape
    return y


def in_block(x: Float[Tensor, "b n"], w: Float[Tensor, "m k"], flag: bool) -> Tensor:
    if flag:
        assert x.shape[1] == w.shape[0]
        return x @ w
    return x @ w  # E: TS104
