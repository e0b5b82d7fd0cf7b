"""Bug: batched matmul of batches of 4 and 5."""

import torch


def demo():
    a = torch.randn(4, 3, 8)
    b = torch.randn(5, 8, 2)
    return torch.bmm(a, b)  # E: TS101
