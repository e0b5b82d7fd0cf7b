# exact-at-least: 1
"""A YOLOv5-style detection head in the form of the ultralytics ``Detect`` module: one 1x1
conv per feature level to ``na * (nc + 5)`` channels, the output viewed as
``(bs, na, no, ny, nx)`` and permuted to put the outputs last, a grid from
``torch.meshgrid`` and anchor grids cached per level, and the decoded boxes of all levels
concatenated for inference. A small backbone gives the three strides; an anchor list
from a config dict."""

from typing import List

import torch
import torch.nn as nn

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


CONFIG = {
    "nc": 20,
    "anchors": [[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119], [116, 90, 156, 198, 373, 326]],
    "width": 16,
}


def conv_bn(c1, c2, k=3, s=1):
    return nn.Sequential(nn.Conv2d(c1, c2, k, s, k // 2, bias=False), nn.BatchNorm2d(c2), nn.SiLU())


class Backbone(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.stem = nn.Sequential(conv_bn(3, width, 3, 2), conv_bn(width, width, 3, 2), conv_bn(width, width * 2, 3, 2))
        self.stage4 = conv_bn(width * 2, width * 4, 3, 2)
        self.stage5 = conv_bn(width * 4, width * 8, 3, 2)

    def forward(self, x):
        p3 = self.stem(x)
        p4 = self.stage4(p3)
        p5 = self.stage5(p4)
        return [p3, p4, p5]


class Detect(nn.Module):
    stride = None

    def __init__(self, nc=80, anchors=(), ch=()):
        super().__init__()
        self.nc = nc
        self.no = nc + 5
        self.nl = len(anchors)
        self.na = len(anchors[0]) // 2
        self.grid = [torch.empty(0) for _ in range(self.nl)]
        self.anchor_grid = [torch.empty(0) for _ in range(self.nl)]
        self.register_buffer("anchors", torch.tensor(anchors).float().view(self.nl, -1, 2))
        self.m = nn.ModuleList(nn.Conv2d(x, self.no * self.na, 1) for x in ch)

    def forward(self, x: List[torch.Tensor]):
        z = []
        for i in range(self.nl):
            x[i] = self.m[i](x[i])
            bs, _, ny, nx = x[i].shape
            x[i] = x[i].view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
            reveal_shape(x[i])
            if not self.training:
                self.grid[i], self.anchor_grid[i] = self._make_grid(nx, ny, i)
                xy, wh, conf = x[i].sigmoid().split((2, 2, self.nc + 1), 4)
                xy = (xy * 2 + self.grid[i]) * self.stride[i]
                wh = (wh * 2) ** 2 * self.anchor_grid[i]
                y = torch.cat((xy, wh, conf), 4)
                z.append(y.view(bs, self.na * nx * ny, self.no))
        return x if self.training else (torch.cat(z, 1), x)

    def _make_grid(self, nx=20, ny=20, i=0):
        d = self.anchors[i].device
        t = self.anchors[i].dtype
        shape = 1, self.na, ny, nx, 2
        y, x = torch.arange(ny, device=d, dtype=t), torch.arange(nx, device=d, dtype=t)
        yv, xv = torch.meshgrid(y, x, indexing="ij")
        grid = torch.stack((xv, yv), 2).expand(shape) - 0.5
        reveal_shape(grid)
        anchor_grid = (self.anchors[i] * self.stride[i]).view((1, self.na, 1, 1, 2)).expand(shape)
        return grid, anchor_grid


class Model(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        w = cfg["width"]
        self.backbone = Backbone(w)
        self.detect = Detect(cfg["nc"], cfg["anchors"], ch=(w * 2, w * 4, w * 8))
        self.detect.stride = torch.tensor([8.0, 16.0, 32.0])
        self.detect.anchors /= self.detect.stride.view(-1, 1, 1)

    def forward(self, x):
        return self.detect(self.backbone(x))


def main() -> None:
    torch.manual_seed(0)
    model = Model(CONFIG)
    images = torch.randn(2, 3, 128, 96)
    model.train()
    train_out = model(images)
    reveal_shape(train_out[1])
    model.eval()
    with torch.no_grad():
        pred, _ = model(images)
    reveal_shape(pred)
    conf = pred[..., 4]
    keep = conf > 0.25
    reveal_shape(keep)
    print(pred.shape, int(keep.sum()))


if __name__ == "__main__":
    main()
