# exact-at-least: 7
"""A CIFAR-style ResNet training script: argparse options, a BasicBlock with an optional
downsample, layers built with _make_layer, a training loop over a DataLoader of random data."""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


def conv3x3(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super(BasicBlock, self).__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x

        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)

        out = self.conv2(out)
        out = self.bn2(out)

        if self.downsample is not None:
            identity = self.downsample(x)

        out += identity
        out = self.relu(out)
        reveal_shape(out)
        return out


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=10, width=16):
        super(ResNet, self).__init__()
        self.inplanes = width
        self.conv1 = nn.Conv2d(3, width, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = self._make_layer(block, width, layers[0])
        self.layer2 = self._make_layer(block, width * 2, layers[1], stride=2)
        self.layer3 = self._make_layer(block, width * 4, layers[2], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(width * 4 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2d(self.inplanes, planes * block.expansion, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(planes * block.expansion),
            )

        layers = []
        layers.append(block(self.inplanes, planes, stride, downsample))
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes))

        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.conv1(x)
        x = self.bn1(x)
        x = self.relu(x)
        reveal_shape(x)

        x = self.layer1(x)
        reveal_shape(x)
        x = self.layer2(x)
        reveal_shape(x)
        x = self.layer3(x)
        reveal_shape(x)

        x = self.avgpool(x)
        x = torch.flatten(x, 1)
        reveal_shape(x)
        x = self.fc(x)
        return x


def train(model, loader, optimizer, epochs):
    model.train()
    for epoch in range(epochs):
        for batch_idx, (data, target) in enumerate(loader):
            optimizer.zero_grad()
            output = model(data)
            reveal_shape(output)
            loss = F.cross_entropy(output, target)
            loss.backward()
            optimizer.step()


def main():
    parser = argparse.ArgumentParser(description="CIFAR ResNet")
    parser.add_argument("--batch-size", type=int, default=8, metavar="N")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--width", type=int, default=8)
    args = parser.parse_args()

    images = torch.randn(20, 3, 32, 32)
    labels = torch.randint(0, 10, (20,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=args.batch_size, shuffle=True)

    model = ResNet(BasicBlock, [1, 1, 1], num_classes=10, width=args.width)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    train(model, loader, optimizer, args.epochs)


if __name__ == "__main__":
    main()
