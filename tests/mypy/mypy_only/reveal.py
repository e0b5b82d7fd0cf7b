"""``reveal_type`` shows carried shapes in mypy's own note (docs/mypy.md)."""

import torch
from jaxtyping import Float
from torch import Tensor


def annotated(x: Float[Tensor, "b 3"], s: Float[Tensor, ""]) -> None:
    reveal_type(x)
    reveal_type(s)


def computed(x: Float[Tensor, "b 3"], w: Float[Tensor, "3 e"]) -> tuple[Tensor, int]:
    y = x @ w
    reveal_type(y)
    reveal_type([y])
    reveal_type((y, 1))
    reveal_type(torch.randn(2, 5))
    z: Tensor = y
    reveal_type(z)
    reveal_type(torch.cat([z, z]))
    return y, 1
