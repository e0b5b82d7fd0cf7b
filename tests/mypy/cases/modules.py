"""nn modules built in __init__ and called in forward."""

import torch
import torch.nn as nn
from jaxtyping import Float
from tensorshape import reveal_shape
from torch import Tensor


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, 10)
        self.bad = nn.Linear(32 * 4, 10)

    def forward(self, x: Float[Tensor, "b 784"]) -> Float[Tensor, "b 10"]:
        h = torch.relu(self.fc1(x))
        reveal_shape(h)  # N: revealed shape: [b 256]; [3 256] (with a caller's sizes)
        reveal_shape(self.fc1.weight)  # N: revealed shape: [256 784]
        self.bad(h)  # E: TS101
        return self.fc2(h)


def build() -> None:
    net = Net()
    net(torch.randn(3, 784))
    net(torch.randn(3, 785))  # E: TS101
    lin = nn.Linear(4, 2)
    reveal_shape(lin(torch.randn(7, 4)))  # N: revealed shape: [7 2]
