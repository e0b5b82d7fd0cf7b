"""No shape annotations: mypy sees exactly what it sees without the plugin."""

import torch
import torch.nn as nn
from torch import Tensor


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc(x).relu()


def f(x: Tensor, n: int) -> None:
    y = x.view(n, -1) @ x
    reveal_type(y)
    reveal_type(x.shape)
    reveal_type(Net().fc)
    reveal_type(Net()(x))
    reveal_type(torch.cat([x, y]))
    s: str = x.sum()
