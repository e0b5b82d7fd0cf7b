# exact-at-least: 5
"""A CIFAR ResNet written for a typed code base: postponed annotations, the typing-only imports
(Tensor, jaxtyping) under `if TYPE_CHECKING:`, an Optional downsample, a factory function with
defaults, and jaxtyping shapes on the model's boundary only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import torch
import torch.nn as nn

from tensorshape import reveal_shape

if TYPE_CHECKING:
    from jaxtyping import Float
    from torch import Tensor


def conv3x3(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    expansion: int = 1

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: Optional[nn.Module] = None) -> None:
        super().__init__()
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x: Tensor) -> Tensor:
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu(out)


class ResNet(nn.Module):
    def __init__(self, layers: list[int], num_classes: int = 10, width: int = 16) -> None:
        super().__init__()
        self.inplanes = width
        self.stem = nn.Sequential(
            nn.Conv2d(3, width, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(width),
            nn.ReLU(inplace=True),
        )
        self.layer1 = self._make_layer(width, layers[0])
        self.layer2 = self._make_layer(width * 2, layers[1], stride=2)
        self.layer3 = self._make_layer(width * 4, layers[2], stride=2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(width * 4 * BasicBlock.expansion, num_classes)

    def _make_layer(self, planes: int, blocks: int, stride: int = 1) -> nn.Sequential:
        downsample: Optional[nn.Module] = None
        if stride != 1 or self.inplanes != planes * BasicBlock.expansion:
            downsample = nn.Sequential(
                nn.Conv2d(self.inplanes, planes * BasicBlock.expansion, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(planes * BasicBlock.expansion),
            )
        layers = [BasicBlock(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * BasicBlock.expansion
        for _ in range(1, blocks):
            layers.append(BasicBlock(self.inplanes, planes))
        return nn.Sequential(*layers)

    def features(self, x: Float[Tensor, "b 3 h w"]) -> Float[Tensor, "b c h2 w2"]:
        x = self.stem(x)
        reveal_shape(x)
        x = self.layer1(x)
        x = self.layer2(x)
        x = self.layer3(x)
        reveal_shape(x)
        return x

    def forward(self, x: Float[Tensor, "b 3 h w"]) -> Float[Tensor, "b classes"]:
        x = self.features(x)
        reveal_shape(x)
        x = torch.flatten(self.pool(x), 1)
        reveal_shape(x)
        return self.fc(x)


def resnet8(num_classes: int = 10) -> ResNet:
    return ResNet([1, 1, 1], num_classes=num_classes)


def main() -> None:
    model = resnet8()
    model.eval()
    images = torch.randn(4, 3, 32, 32)
    with torch.no_grad():
        feats = model.features(images)
        reveal_shape(feats)
        logits = model(images)
    reveal_shape(logits)
    print(logits.argmax(dim=1).tolist())


if __name__ == "__main__":
    main()
