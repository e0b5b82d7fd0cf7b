"""A small CNN for 32x32 images: every size is known statically."""

import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class SmallCNN(nn.Module):
    def __init__(self, n_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, kernel_size=3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, kernel_size=3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(64 * 8 * 8, 128), nn.ReLU(), nn.Linear(128, n_classes))

    def forward(self, x: Float[Tensor, "b 3 32 32"]) -> Float[Tensor, "b classes"]:
        return self.head(self.features(x))


def demo() -> None:
    model = SmallCNN()
    out = model(torch.randn(4, 3, 32, 32))
    assert out.shape == (4, 10)


if __name__ == "__main__":
    demo()
