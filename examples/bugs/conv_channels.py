"""Bug: an RGB image fed to a conv layer built for grayscale."""

import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 16, kernel_size=3)

    def forward(self, img: Float[Tensor, "b 3 h w"]):
        return self.conv(img)  # E: TS101


def demo():
    Encoder()(torch.randn(2, 3, 28, 28))
