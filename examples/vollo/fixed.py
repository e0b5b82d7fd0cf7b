"""The models of `problems.py`, changed as tensorshape's hints suggest: each compiles for Vollo.

`tensorshape check --vollo --allow-dynamic-weights examples/vollo/fixed.py` is clean;
`SelfAttentionScores` needs the compiler's allow_dynamic_weights (activation x activation).
"""

import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class TokenPooling(nn.Module):
    """keepdim=True keeps a width-1 data dim."""

    def __init__(self, d: int = 64):
        super().__init__()
        self.proj = nn.Linear(d, d)

    def forward(self, x: Float[Tensor, "t 64"]) -> Float[Tensor, "t 1"]:
        return self.proj(x).sum(dim=-1, keepdim=True)


class SelfAttentionScores(nn.Module):
    """Contract over the data dim: q @ k.T is [t d!] @ [d! t] (dynamic weights)."""

    def __init__(self, d: int = 32):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)

    def forward(self, x: Float[Tensor, "t 32"]) -> Float[Tensor, "t t"]:
        q, k = self.q(x), self.k(x)
        return q @ k.transpose(0, 1)


class TimeMixing(nn.Module):
    """A constant matrix applied from the left keeps the data dim where it is (t*t <= 512 entries)."""

    def __init__(self) -> None:
        super().__init__()
        self.mix = nn.Parameter(torch.randn(8, 8))

    def forward(self, x: Float[Tensor, "8 64"]) -> Float[Tensor, "8 64"]:
        return self.mix @ x


class FirstFeature(nn.Module):
    """A width-1 slice keeps the data dim."""

    def forward(self, x: Float[Tensor, "t 16"]) -> Float[Tensor, "t 1"]:
        return x[:, 0:1]


class ChannelsFirstOutput(nn.Module):
    """Return the data dim last; transpose on the consumer's side."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x: Float[Tensor, "t 16"]) -> Float[Tensor, "t 16"]:
        return self.fc(x)


class TimeNorm(nn.Module):
    """Normalise over the data dim."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(16)

    def forward(self, x: Float[Tensor, "8 16"]) -> Float[Tensor, "8 16"]:
        return self.norm(x)


class Flattener(nn.Module):
    """Flatten without transposing first: the data dim keeps stride 1 (it becomes the 64 axis)."""

    def forward(self, x: Float[Tensor, "4 16"]) -> Float[Tensor, "1 64"]:
        return x.reshape(1, 64)


MODELS = [
    (TokenPooling, (10, 64)),
    (SelfAttentionScores, (10, 32)),
    (TimeMixing, (8, 64)),
    (FirstFeature, (10, 16)),
    (ChannelsFirstOutput, (10, 16)),
    (TimeNorm, (8, 16)),
    (Flattener, (4, 16)),
]


def demo() -> None:
    for cls, shape in MODELS:
        cls()(torch.randn(*shape))


if __name__ == "__main__":
    demo()
