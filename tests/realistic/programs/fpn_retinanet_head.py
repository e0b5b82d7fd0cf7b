# exact-at-least: 9
"""A feature pyramid with a RetinaNet-style head, in the manner of the detection libraries: a
small backbone that returns an OrderedDict of stage outputs, an FPN whose lateral (1x1) and output
(3x3) convolutions are ModuleLists built from the list of backbone channels, a top-down pathway
that upsamples to the lateral's own size with F.interpolate, an optional extra block (a max pool
giving one more level), and classification/regression heads shared over levels whose outputs are
reshaped from (N, A*K, H, W) to (N, H*W*A, K) and concatenated.  jaxtyping on the forwards."""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import TYPE_CHECKING, List, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float

if TYPE_CHECKING:
    from torch import Tensor

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


def conv_bn_relu(in_ch: int, out_ch: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(in_ch, out_ch, kernel_size=3, stride=stride, padding=1, bias=False),
        nn.BatchNorm2d(out_ch),
        nn.ReLU(inplace=True),
    )


class TinyBackbone(nn.Module):
    """Stem at stride 4, then three stages at strides 8, 16, 32."""

    def __init__(self, widths: List[int] = [16, 32, 64, 128]):
        super().__init__()
        self.stem = nn.Sequential(conv_bn_relu(3, widths[0], 2), nn.MaxPool2d(3, stride=2, padding=1))
        self.stages = nn.ModuleList(
            [nn.Sequential(conv_bn_relu(widths[i], widths[i + 1], 2), conv_bn_relu(widths[i + 1], widths[i + 1])) for i in range(len(widths) - 1)]
        )
        self.out_channels = widths[1:]

    def forward(self, x: Float[Tensor, "b 3 h w"]) -> "OrderedDict[str, Tensor]":
        x = self.stem(x)
        reveal_shape(x)
        out: OrderedDict[str, Tensor] = OrderedDict()
        for idx, stage in enumerate(self.stages):
            x = stage(x)
            out[f"c{idx + 3}"] = x
        return out


class LastLevelMaxPool(nn.Module):
    def forward(self, results: List[Tensor], names: List[str]):
        names.append("pool")
        results.append(F.max_pool2d(results[-1], kernel_size=1, stride=2, padding=0))
        return results, names


class FeaturePyramidNetwork(nn.Module):
    def __init__(self, in_channels_list: List[int], out_channels: int, extra_block: Optional[nn.Module] = None):
        super().__init__()
        self.inner_blocks = nn.ModuleList()
        self.layer_blocks = nn.ModuleList()
        for in_channels in in_channels_list:
            if in_channels == 0:
                raise ValueError("in_channels=0 is currently not supported")
            self.inner_blocks.append(nn.Conv2d(in_channels, out_channels, 1))
            self.layer_blocks.append(nn.Conv2d(out_channels, out_channels, 3, padding=1))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_uniform_(m.weight, a=1)
                nn.init.constant_(m.bias, 0)
        self.extra_block = extra_block

    def forward(self, x: "OrderedDict[str, Tensor]") -> "OrderedDict[str, Tensor]":
        names = list(x.keys())
        feats = list(x.values())

        last_inner = self.inner_blocks[-1](feats[-1])
        reveal_shape(last_inner)
        results = [self.layer_blocks[-1](last_inner)]

        for idx in range(len(feats) - 2, -1, -1):
            inner_lateral = self.inner_blocks[idx](feats[idx])
            feat_shape = inner_lateral.shape[-2:]
            inner_top_down = F.interpolate(last_inner, size=feat_shape, mode="nearest")
            last_inner = inner_lateral + inner_top_down
            results.insert(0, self.layer_blocks[idx](last_inner))
        reveal_shape(results[0])

        if self.extra_block is not None:
            results, names = self.extra_block(results, names)
        reveal_shape(results[-1])

        return OrderedDict([(k, v) for k, v in zip(names, results)])


class RetinaNetClassificationHead(nn.Module):
    def __init__(self, in_channels: int, num_anchors: int, num_classes: int, prior_probability: float = 0.01):
        super().__init__()
        conv = []
        for _ in range(2):
            conv.append(nn.Conv2d(in_channels, in_channels, kernel_size=3, stride=1, padding=1))
            conv.append(nn.ReLU())
        self.conv = nn.Sequential(*conv)
        self.cls_logits = nn.Conv2d(in_channels, num_anchors * num_classes, kernel_size=3, stride=1, padding=1)
        nn.init.constant_(self.cls_logits.bias, -math.log((1 - prior_probability) / prior_probability))
        self.num_classes = num_classes
        self.num_anchors = num_anchors

    def forward(self, x: List[Tensor]) -> Tensor:
        all_cls_logits = []
        for features in x:
            cls_logits = self.cls_logits(self.conv(features))
            N, _, H, W = cls_logits.shape
            cls_logits = cls_logits.view(N, -1, self.num_classes, H, W)
            cls_logits = cls_logits.permute(0, 3, 4, 1, 2)
            cls_logits = cls_logits.reshape(N, -1, self.num_classes)
            all_cls_logits.append(cls_logits)
        return torch.cat(all_cls_logits, dim=1)


class RetinaNetRegressionHead(nn.Module):
    def __init__(self, in_channels: int, num_anchors: int):
        super().__init__()
        conv = []
        for _ in range(2):
            conv.append(nn.Conv2d(in_channels, in_channels, kernel_size=3, stride=1, padding=1))
            conv.append(nn.ReLU())
        self.conv = nn.Sequential(*conv)
        self.bbox_reg = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=3, stride=1, padding=1)

    def forward(self, x: List[Tensor]) -> Tensor:
        all_bbox_regression = []
        for features in x:
            bbox_regression = self.bbox_reg(self.conv(features))
            N, _, H, W = bbox_regression.shape
            bbox_regression = bbox_regression.view(N, -1, 4, H, W)
            bbox_regression = bbox_regression.permute(0, 3, 4, 1, 2)
            bbox_regression = bbox_regression.reshape(N, -1, 4)
            all_bbox_regression.append(bbox_regression)
        return torch.cat(all_bbox_regression, dim=1)


class RetinaNet(nn.Module):
    def __init__(self, num_classes: int = 5, fpn_channels: int = 32, num_anchors: int = 9, extra_level: bool = True):
        super().__init__()
        self.backbone = TinyBackbone()
        self.fpn = FeaturePyramidNetwork(
            self.backbone.out_channels, fpn_channels, extra_block=LastLevelMaxPool() if extra_level else None
        )
        self.classification_head = RetinaNetClassificationHead(fpn_channels, num_anchors, num_classes)
        self.regression_head = RetinaNetRegressionHead(fpn_channels, num_anchors)

    def forward(self, images: Float[Tensor, "b 3 h w"]):
        features = self.backbone(images)
        reveal_shape(features["c5"])
        pyramid = self.fpn(features)
        feature_list = list(pyramid.values())
        cls_logits = self.classification_head(feature_list)
        bbox_regression = self.regression_head(feature_list)
        reveal_shape(cls_logits)
        reveal_shape(bbox_regression)
        return cls_logits, bbox_regression


def sigmoid_focal_loss(inputs, targets, alpha: float = 0.25, gamma: float = 2.0):
    p = torch.sigmoid(inputs)
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
    return (alpha_t * loss).sum()


def main() -> None:
    torch.manual_seed(0)
    model = RetinaNet(num_classes=5, fpn_channels=32, num_anchors=9)
    images = torch.randn(2, 3, 80, 80)
    cls_logits, bbox_regression = model(images)
    reveal_shape(cls_logits)
    num_anchors_total = cls_logits.shape[1]
    labels = torch.randint(0, 5, (2, num_anchors_total))
    gt_classes_target = F.one_hot(labels, num_classes=5).float()
    reveal_shape(gt_classes_target)
    loss_cls = sigmoid_focal_loss(cls_logits, gt_classes_target)
    target_boxes = torch.randn_like(bbox_regression)
    loss_box = F.smooth_l1_loss(bbox_regression, target_boxes, beta=1.0 / 9, reduction="sum")
    (loss_cls + loss_box).backward()


if __name__ == "__main__":
    main()
