"""Bug: reshaping 4 heads of 16 into a width of 60."""

import torch


def merge_heads(x):
    b, h, t, e = x.shape
    return x.transpose(1, 2).reshape(b, t, 60)  # E: TS106


def demo():
    x = torch.randn(2, 4, 10, 16)
    merge_heads(x)
