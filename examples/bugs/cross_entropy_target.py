"""Bug: a one-hot-like target of shape [b 1] passed where class indices [b] are expected."""

import torch
import torch.nn.functional as F


def demo():
    logits = torch.randn(16, 10)
    target = torch.randint(0, 10, (16, 1))
    return F.cross_entropy(logits, target)  # E: TS103
