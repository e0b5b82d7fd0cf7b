"""Returned values are checked against the return annotation, however they are returned."""

import torch
import torch.nn as nn
from jaxtyping import Float
from tensorshape import reveal_shape
from torch import Tensor


def same(x: Float[Tensor, "b 3"]) -> Float[Tensor, "b 3"]:
    return x


def wrong_name(x: Float[Tensor, "b 3"]) -> Float[Tensor, "b 4"]:
    return x  # E: TS101


def wrong_local(x: Float[Tensor, "b 3"], w: Float[Tensor, "3 5"]) -> Float[Tensor, "b 4"]:
    y = x @ w
    return y  # E: TS101


def wrong_rank(x: Float[Tensor, "b 3"]) -> Float[Tensor, "b 3"]:
    y = x.sum(dim=1)
    return y  # E: TS103


def symbolic(x: Float[Tensor, "b 3"]) -> Float[Tensor, "c 3"]:
    return x  # E: TS104


def pair(x: Float[Tensor, "b 3"], w: Float[Tensor, "3 5"]) -> tuple[Float[Tensor, "b 5"], Float[Tensor, "b 3"]]:
    y = x @ w
    return y, y  # E: TS101


def branches(x: Float[Tensor, "b 3"], flag: bool) -> Float[Tensor, "b 3"]:
    if flag:
        z = x * 2
        return z
    z2 = x[:, :2]
    return z2  # E: TS101


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 8)

    def forward(self, x: Float[Tensor, "b 3"]) -> Float[Tensor, "b 8"]:
        h = self.fc(x)
        return h


def gradual(x: Tensor) -> Float[Tensor, "b 3"]:
    y = x
    return y


def use() -> None:
    reveal_shape(same(torch.randn(2, 3)))  # N: revealed shape: [2 3]
