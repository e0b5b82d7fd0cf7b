"""Layouts the Vollo compiler rejects: `tensorshape check --vollo examples/vollo`.

Each model runs fine in PyTorch (`python problems.py`); each fails to compile
for Vollo.  The fixed versions are in `fixed.py`.  A model input's data
dimension is its last axis, written `d!` below.
"""

import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class TokenPooling(nn.Module):
    """Averages features: reducing the data dim drops it."""

    def __init__(self, d: int = 64):
        super().__init__()
        self.proj = nn.Linear(d, d)

    def forward(self, x: Float[Tensor, "t 64"]) -> Float[Tensor, " t"]:
        return self.proj(x).sum(dim=-1)  # E: TS305


class SelfAttentionScores(nn.Module):
    """[t d!] transposed to [d! t], then @ [t d!]: activation x activation with no data dim contracted."""

    def __init__(self, d: int = 32):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)

    def forward(self, x: Float[Tensor, "t 32"]) -> Float[Tensor, "32 32"]:
        q, k = self.q(x), self.k(x)
        return q.transpose(0, 1) @ k  # E: TS302


class TimeMixing(nn.Module):
    """A Linear across time: its input's data dim is not the contracted axis."""

    def __init__(self, t: int = 8):
        super().__init__()
        self.mix = nn.Linear(t, t)

    def forward(self, x: Float[Tensor, "8 64"]) -> Float[Tensor, "8 64"]:
        return self.mix(x.transpose(0, 1)).transpose(0, 1)  # E: TS303


class FirstFeature(nn.Module):
    """Integer-indexing the data dim removes it."""

    def forward(self, x: Float[Tensor, "t 16"]) -> Float[Tensor, " t"]:
        return x[:, 0]  # E: TS306


class ChannelsFirstOutput(nn.Module):
    """The output's data dim must be its last axis."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x: Float[Tensor, "t 16"]) -> Float[Tensor, "16 t"]:
        return self.fc(x).transpose(0, 1)  # E: TS309


class TimeNorm(nn.Module):
    """LayerNorm over time, not over the data dim."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(8)

    def forward(self, x: Float[Tensor, "8 16"]) -> Float[Tensor, "8 16"]:
        return self.norm(x.transpose(0, 1)).transpose(0, 1)  # E: TS307


class Flattener(nn.Module):
    """Flattening [t! d] (after a transpose) into one axis changes the data dim's stride."""

    def forward(self, x: Float[Tensor, "4 16"]) -> Float[Tensor, "1 64"]:
        return x.transpose(0, 1).reshape(64).unsqueeze(0)  # E: TS304


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
