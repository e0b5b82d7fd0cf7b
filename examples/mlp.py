"""A multilayer perceptron with jaxtyping annotations."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor


class MLP(nn.Module):
    def __init__(self, d_in: int = 784, hidden: int = 256, n_classes: int = 10):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, n_classes)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x: Float[Tensor, "batch features"]) -> Float[Tensor, "batch classes"]:
        h = F.relu(self.fc1(x))
        h = self.dropout(F.relu(self.fc2(h)))
        return self.out(h)


def loss(model: MLP, x: Float[Tensor, "b 784"], y: Int[Tensor, " b"]) -> Float[Tensor, ""]:
    return F.cross_entropy(model(x), y)


def demo() -> None:
    model = MLP()
    x = torch.randn(32, 784)
    logits = model(x)
    assert logits.shape == (32, 10)
    loss(model, x, torch.randint(0, 10, (32,))).backward()


if __name__ == "__main__":
    demo()
