"""Bug: attention scores computed as q @ k instead of q @ k^T."""

import torch
from jaxtyping import Float
from torch import Tensor


def scores(q: Float[Tensor, "b h t e"], k: Float[Tensor, "b h s e"]) -> Float[Tensor, "b h t s"]:
    return q @ k  # E: TS104


def demo():
    scores(torch.randn(2, 4, 10, 16), torch.randn(2, 4, 12, 16))
