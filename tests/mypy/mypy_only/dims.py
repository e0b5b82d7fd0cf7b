"""First-class dims: mypy itself has nothing to say (functorch's imports are ignored as untyped)."""

import torch
from functorch.dim import dims
from jaxtyping import Float
from torch import Tensor


def mm(A: Float[Tensor, "n k"], B: Float[Tensor, "k m"]) -> Float[Tensor, "n m"]:
    i, j, k = dims(3)
    r = (A[i, k] * B[k, j]).sum(k)
    return r.order(i, j)


def bmm(A: Float[Tensor, "b n k"], B: Float[Tensor, "b k m"]) -> Float[Tensor, "b n m"]:
    i = dims(1)
    return mm(A[i], B[i]).order(i)


def triu_of(A: Float[Tensor, "n m"]) -> Float[Tensor, "n m"]:
    i, j = dims()
    return torch.where(i <= j, A[i, j], 0).order(i, j)
