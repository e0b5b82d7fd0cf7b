"""Bug: a per-token bias of shape [b d] added to [b t d] (the batch dim meets the time dim)."""

import torch
from jaxtyping import Float
from torch import Tensor


def add_bias(x: Float[Tensor, "8 16 32"], bias: Float[Tensor, "8 32"]) -> Tensor:
    return x + bias  # E: TS102


def demo():
    add_bias(torch.randn(8, 16, 32), torch.randn(8, 32))
