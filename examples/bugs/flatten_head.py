"""Bug: the classifier head assumes 16x16 feature maps, but two 2x2 poolings leave 8x8."""

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(32 * 16 * 16, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        return self.fc(x)  # E: TS101


def demo():
    net = Net()
    net(torch.randn(4, 3, 32, 32))


if __name__ == "__main__":
    demo()
