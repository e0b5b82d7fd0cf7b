"""A CIFAR-10 classifier as tutorials write it; the first linear layer's size is computed for 28x28 inputs."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 4 * 4, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))  # E: TS101
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def train_step(net, optimizer, criterion):
    inputs = torch.randn(4, 3, 32, 32)
    labels = torch.randint(0, 10, (4,))
    optimizer.zero_grad()
    outputs = net(inputs)
    loss = criterion(outputs, labels)
    loss.backward()
    optimizer.step()
    return loss.item()


if __name__ == "__main__":
    net = Net()
    print(train_step(net, torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.9), nn.CrossEntropyLoss()))
