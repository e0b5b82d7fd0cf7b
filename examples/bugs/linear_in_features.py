"""Bug: the second layer expects 128 features, the first produces 256."""

import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        return self.fc2(h)  # E: TS101


def demo():
    Classifier()(torch.randn(8, 784))
