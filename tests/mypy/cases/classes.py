"""User modules built by their constructor, and nn.Sequential chains."""

import torch
import torch.nn as nn
from jaxtyping import Float
from tensorshape import reveal_shape
from torch import Tensor


class Head(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.fc = nn.Linear(d, 4)

    def forward(self, x: Float[Tensor, "b 8"]) -> Float[Tensor, "b 4"]:
        return self.fc(x)


class Encoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))

    def forward(self, x: Float[Tensor, "b 8"]) -> Float[Tensor, "b 8"]:
        h = self.body(x)
        reveal_shape(h)  # N: revealed shape: [b 8]; [3 8] (with a caller's sizes)
        return h


def use() -> None:
    m = Head(8)
    reveal_shape(m(torch.randn(2, 8)))  # N: revealed shape: [2 4]
    m(torch.randn(2, 9))  # E: TS101
    seq = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    reveal_shape(seq(torch.randn(5, 8)))  # N: revealed shape: [5 3]
    seq(torch.randn(5, 7))  # E: TS101
    bad = nn.Sequential(nn.Linear(8, 16), nn.Linear(15, 3))
    bad(torch.randn(5, 8))  # E: TS101
    enc = Encoder()
    reveal_shape(enc(torch.randn(3, 8)))  # N: revealed shape: [3 8]
