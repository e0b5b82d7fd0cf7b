"""No call, operator or tensor attribute in the module: returns are still checked."""

from jaxtyping import Float
from torch import Tensor


def ok(x: Float[Tensor, "b 3"]) -> Float[Tensor, "b 3"]:
    return x


def wrong(x: Float[Tensor, "b 3"]) -> Float[Tensor, "b 4"]:
    return x  # E: TS101
