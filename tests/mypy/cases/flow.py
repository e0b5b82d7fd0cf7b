"""Shapes flow through assignments, attributes, returns and calls of annotated functions."""

import torch
from jaxtyping import Float
from tensorshape import reveal_shape
from torch import Tensor


def project(x: Float[Tensor, "b t d"], w: Float[Tensor, "d e"]) -> Float[Tensor, "b t e"]:
    y = x @ w
    reveal_shape(y)  # N: revealed shape: [b t e]; [2 5 3] (with a caller's sizes)
    return y


def pooled(x: Float[Tensor, "b t d"]) -> Float[Tensor, "b d"]:
    return x.mean(dim=1)


def caller() -> None:
    x = torch.randn(2, 5, 8)
    reveal_shape(x)  # N: revealed shape: [2 5 8]
    z = x
    out = project(z, torch.randn(8, 3))
    reveal_shape(out)  # N: revealed shape: [2 5 3]
    reveal_shape(pooled(out))  # N: revealed shape: [2 3]
    project(x, torch.randn(7, 3))  # E: TS101
    reveal_shape(x.shape[0] * 2)  # N: revealed shape: int 4


class Holder:
    def __init__(self) -> None:
        self.w = torch.zeros(4, 6)

    def use(self) -> Tensor:
        reveal_shape(self.w)  # N: revealed shape: [4 6]
        return self.w.t() @ torch.ones(5, 6)  # E: TS101


def unpack(x: Float[Tensor, "b h t e"]) -> Tensor:
    b, h, t, e = x.shape
    return x.transpose(1, 2).reshape(b, t, h * e + 1)  # E: TS106


def gradual(x, y: Tensor, flag: bool) -> Tensor:
    a = torch.randn(3, 4) if flag else torch.randn(3, 5)
    a @ torch.randn(4, 2)
    y @ torch.randn(4, 2)
    return x @ torch.randn(4, 2)
