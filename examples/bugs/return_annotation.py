"""Bug: the annotation promises [b d] but the function keeps the time dim."""

import torch
from jaxtyping import Float
from torch import Tensor


def pool(x: Float[Tensor, "b t d"]) -> Float[Tensor, "b d"]:
    return x.mean(dim=-1)  # E: TS104


def demo():
    out = pool(torch.randn(2, 5, 7))
    assert out.shape == (2, 7), f"expected [2 7], got {list(out.shape)}"
