import torch
from jaxtyping import Float
from torch import Tensor


def proj(x: Float[Tensor, "b 16"]) -> Float[Tensor, "b 4"]:
    return x @ torch.randn(16, 4)


def caller(x):
    return proj(x)


y = torch.zeros(2, 3) @ torch.zeros(4, 5)
