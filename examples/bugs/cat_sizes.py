"""Bug: concatenating features along dim 1 while their lengths (dim 2) differ."""

import torch


def demo():
    a = torch.randn(2, 8, 100)
    b = torch.randn(2, 8, 99)
    return torch.cat([a, b], dim=1)  # E: TS101
