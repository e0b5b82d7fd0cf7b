"""No call in the module: the plugin never sees the checker, the declared type is used."""

from jaxtyping import Float
from torch import Tensor


def f(x: Float[Tensor, "b t 4"]) -> None:
    reveal_type(x)
