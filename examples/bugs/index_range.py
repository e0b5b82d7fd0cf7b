"""Bug: reading channel 3 of an RGB image."""

import torch


def demo():
    img = torch.randn(3, 32, 32)
    return img[3]  # E: TS107
