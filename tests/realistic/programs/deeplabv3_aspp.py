# exact-at-least: 6
"""DeepLabV3 as the reference segmentation code writes it: ``nn.Sequential`` subclasses for the
atrous convolution and the image-pooling branch (whose ``forward`` iterates over ``self`` and
upsamples back to ``x.shape[-2:]``), an ASPP module whose branches are collected in a list
(``modules.append``, one per atrous rate) then a ModuleList, concatenated and projected; a
``DeepLabHead(nn.Sequential)``; a small strided backbone returning a dict of features, an
optional auxiliary classifier, and the logits upsampled to the input size in an ``OrderedDict``."""

from collections import OrderedDict
from typing import Dict, List, Optional

import torch
from torch import Tensor, nn
from torch.nn import functional as F

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


class ASPPConv(nn.Sequential):
    def __init__(self, in_channels: int, out_channels: int, dilation: int) -> None:
        modules = [
            nn.Conv2d(in_channels, out_channels, 3, padding=dilation, dilation=dilation, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
        ]
        super().__init__(*modules)


class ASPPPooling(nn.Sequential):
    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__(
            nn.AdaptiveAvgPool2d(1),
            nn.Conv2d(in_channels, out_channels, 1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        size = x.shape[-2:]
        for mod in self:
            x = mod(x)
        reveal_shape(x)
        return F.interpolate(x, size=size, mode="bilinear", align_corners=False)


class ASPP(nn.Module):
    def __init__(self, in_channels: int, atrous_rates: List[int], out_channels: int = 32) -> None:
        super().__init__()
        modules = []
        modules.append(
            nn.Sequential(nn.Conv2d(in_channels, out_channels, 1, bias=False), nn.BatchNorm2d(out_channels), nn.ReLU())
        )

        rates = tuple(atrous_rates)
        for rate in rates:
            modules.append(ASPPConv(in_channels, out_channels, rate))

        modules.append(ASPPPooling(in_channels, out_channels))

        self.convs = nn.ModuleList(modules)

        self.project = nn.Sequential(
            nn.Conv2d(len(self.convs) * out_channels, out_channels, 1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
            nn.Dropout(0.5),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _res = []
        for conv in self.convs:
            _res.append(conv(x))
        res = torch.cat(_res, dim=1)
        reveal_shape(res)
        return self.project(res)


class DeepLabHead(nn.Sequential):
    def __init__(self, in_channels: int, num_classes: int, atrous_rates=(2, 4, 6)) -> None:
        super().__init__(
            ASPP(in_channels, list(atrous_rates)),
            nn.Conv2d(32, 32, 3, padding=1, bias=False),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.Conv2d(32, num_classes, 1),
        )


class FCNHead(nn.Sequential):
    def __init__(self, in_channels: int, channels: int) -> None:
        inter_channels = in_channels // 4
        layers = [
            nn.Conv2d(in_channels, inter_channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(inter_channels),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Conv2d(inter_channels, channels, 1),
        ]
        super().__init__(*layers)


def conv_bn_relu(in_channels, out_channels, stride):
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, 3, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(out_channels),
        nn.ReLU(inplace=True),
    )


class Backbone(nn.Module):
    """Output stride 8: the features for the auxiliary head at stride 8 too (as a dilated ResNet)."""

    def __init__(self, in_channels=3, widths=(16, 32, 64)):
        super().__init__()
        self.stem = conv_bn_relu(in_channels, widths[0], 2)
        self.layer1 = conv_bn_relu(widths[0], widths[1], 2)
        self.layer2 = conv_bn_relu(widths[1], widths[2], 2)
        self.layer3 = nn.Sequential(
            nn.Conv2d(widths[2], widths[2] * 2, 3, padding=2, dilation=2, bias=False),
            nn.BatchNorm2d(widths[2] * 2),
            nn.ReLU(inplace=True),
        )

    def forward(self, x: Tensor) -> Dict[str, Tensor]:
        out = OrderedDict()
        x = self.stem(x)
        x = self.layer1(x)
        x = self.layer2(x)
        out["aux"] = x
        x = self.layer3(x)
        out["out"] = x
        return out


class DeepLabV3(nn.Module):
    def __init__(self, backbone: nn.Module, classifier: nn.Module, aux_classifier: Optional[nn.Module] = None) -> None:
        super().__init__()
        self.backbone = backbone
        self.classifier = classifier
        self.aux_classifier = aux_classifier

    def forward(self, x: Tensor) -> Dict[str, Tensor]:
        input_shape = x.shape[-2:]
        features = self.backbone(x)

        result = OrderedDict()
        x = features["out"]
        reveal_shape(x)
        x = self.classifier(x)
        reveal_shape(x)
        x = F.interpolate(x, size=input_shape, mode="bilinear", align_corners=False)
        result["out"] = x

        if self.aux_classifier is not None:
            x = features["aux"]
            x = self.aux_classifier(x)
            x = F.interpolate(x, size=input_shape, mode="bilinear", align_corners=False)
            result["aux"] = x

        return result


def deeplabv3(num_classes=5, aux_loss=True):
    backbone = Backbone()
    aux_classifier = FCNHead(64, num_classes) if aux_loss else None
    classifier = DeepLabHead(128, num_classes)
    return DeepLabV3(backbone, classifier, aux_classifier)


def main():
    torch.manual_seed(0)
    model = deeplabv3()
    images = torch.randn(2, 3, 48, 64)
    target = torch.randint(0, 5, (2, 48, 64))
    out = model(images)
    reveal_shape(out["out"])
    reveal_shape(out["aux"])
    loss = F.cross_entropy(out["out"], target) + 0.5 * F.cross_entropy(out["aux"], target)
    loss.backward()
    print(out["out"].shape, loss.item())


if __name__ == "__main__":
    main()
