# exact-at-least: 4
"""An EfficientNet-B0-like network in the style of the torchvision / lukemelas code: MBConv
blocks (1x1 expansion, depthwise conv with "same"-style padding, squeeze-and-excitation
with a reduced width, 1x1 projection, stochastic depth on the residual), a stage table of
block arguments, width rounding by ``_make_divisible`` and an Optional expansion conv that
is ``None`` when the expansion ratio is 1."""

import math
from typing import List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


def _make_divisible(v: float, divisor: int = 8, min_value: Optional[int] = None) -> int:
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def drop_path(x, drop_prob: float = 0.0, training: bool = False):
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = keep_prob + torch.rand(shape, dtype=x.dtype, device=x.device)
    random_tensor.floor_()
    return x.div(keep_prob) * random_tensor


class ConvBNAct(nn.Sequential):
    def __init__(self, in_planes, out_planes, kernel_size=3, stride=1, groups=1, act=True):
        padding = (kernel_size - 1) // 2
        super().__init__(
            nn.Conv2d(in_planes, out_planes, kernel_size, stride, padding, groups=groups, bias=False),
            nn.BatchNorm2d(out_planes),
            nn.SiLU(inplace=True) if act else nn.Identity(),
        )


class SqueezeExcitation(nn.Module):
    def __init__(self, input_channels: int, squeeze_channels: int):
        super().__init__()
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)

    def forward(self, x):
        scale = F.adaptive_avg_pool2d(x, 1)
        scale = self.fc2(F.silu(self.fc1(scale)))
        reveal_shape(scale)
        return x * torch.sigmoid(scale)


class MBConv(nn.Module):
    def __init__(self, in_ch, out_ch, expand_ratio, kernel_size, stride, se_ratio=0.25, drop_rate=0.0):
        super().__init__()
        self.use_residual = stride == 1 and in_ch == out_ch
        self.drop_rate = drop_rate
        hidden = _make_divisible(in_ch * expand_ratio)
        self.expand: Optional[nn.Module] = None
        if expand_ratio != 1:
            self.expand = ConvBNAct(in_ch, hidden, kernel_size=1)
        self.depthwise = ConvBNAct(hidden, hidden, kernel_size, stride, groups=hidden)
        self.se = SqueezeExcitation(hidden, max(1, int(in_ch * se_ratio)))
        self.project = ConvBNAct(hidden, out_ch, kernel_size=1, act=False)

    def forward(self, x):
        out = x
        if self.expand is not None:
            out = self.expand(out)
        out = self.depthwise(out)
        out = self.se(out)
        out = self.project(out)
        if self.use_residual:
            out = drop_path(out, self.drop_rate, self.training) + x
        return out


# expand_ratio, kernel, stride, in, out, repeats
STAGES: List[List[int]] = [
    [1, 3, 1, 32, 16, 1],
    [6, 3, 2, 16, 24, 2],
    [6, 5, 2, 24, 40, 2],
    [6, 3, 2, 40, 80, 1],
]


class EfficientNet(nn.Module):
    def __init__(self, width_mult=1.0, num_classes=10, drop_connect_rate=0.2, dropout=0.2):
        super().__init__()
        stem = _make_divisible(32 * width_mult)
        self.stem = ConvBNAct(3, stem, 3, stride=2)
        total = sum(s[5] for s in STAGES)
        blocks = []
        idx = 0
        for expand, k, s, cin, cout, repeats in STAGES:
            cin, cout = _make_divisible(cin * width_mult), _make_divisible(cout * width_mult)
            for i in range(repeats):
                blocks.append(
                    MBConv(cin if i == 0 else cout, cout, expand, k, s if i == 0 else 1,
                           drop_rate=drop_connect_rate * idx / total)
                )
                idx += 1
        self.blocks = nn.Sequential(*blocks)
        last_in = _make_divisible(STAGES[-1][4] * width_mult)
        self.head = ConvBNAct(last_in, 4 * last_in, kernel_size=1)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(dropout), nn.Linear(4 * last_in, num_classes))

    def forward(self, x):
        x = self.stem(x)
        reveal_shape(x)
        x = self.blocks(x)
        reveal_shape(x)
        x = self.head(x)
        x = torch.flatten(self.avgpool(x), 1)
        reveal_shape(x)
        return self.classifier(x)


def main() -> None:
    torch.manual_seed(0)
    model = EfficientNet()
    images = torch.randn(2, 3, 64, 64)
    logits = model(images)
    reveal_shape(logits)
    loss = F.cross_entropy(logits, torch.tensor([1, 3]))
    loss.backward()
    print(loss.item(), math.prod(logits.shape))


if __name__ == "__main__":
    main()
