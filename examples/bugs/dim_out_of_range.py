"""Bug: pooling over dim 3 of a 3-dim tensor."""

import torch


def demo():
    tokens = torch.randn(4, 50, 64)
    return tokens.mean(dim=3)  # E: TS105
