# exact-at-least: 6
"""A minimal DETR in the style of the paper's demo model: a small CNN backbone, a 1x1 input
projection, learned row/column positional embeddings concatenated and flattened to
(HW, 1, hidden), nn.Transformer fed with h.flatten(2).permute(2, 0, 1) (sequence first) and
learned object queries, class and box heads, and a matching-free loss on the first targets."""

from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


class Backbone(nn.Module):
    def __init__(self, out_channels=128):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 32, 3, stride=2, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(inplace=True),
            nn.Conv2d(32, 64, 3, stride=2, padding=1),
            nn.BatchNorm2d(64),
            nn.ReLU(inplace=True),
            nn.Conv2d(64, out_channels, 3, stride=2, padding=1),
        )
        self.num_channels = out_channels

    def forward(self, x):
        return self.body(x)


class DETRdemo(nn.Module):
    def __init__(self, num_classes, hidden_dim=64, nheads=4, num_encoder_layers=2, num_decoder_layers=2, num_queries=10):
        super().__init__()
        self.backbone = Backbone()
        self.conv = nn.Conv2d(self.backbone.num_channels, hidden_dim, 1)
        self.transformer = nn.Transformer(hidden_dim, nheads, num_encoder_layers, num_decoder_layers, dim_feedforward=128)
        self.linear_class = nn.Linear(hidden_dim, num_classes + 1)
        self.linear_bbox = nn.Linear(hidden_dim, 4)
        self.query_pos = nn.Parameter(torch.rand(num_queries, hidden_dim))
        self.row_embed = nn.Parameter(torch.rand(50, hidden_dim // 2))
        self.col_embed = nn.Parameter(torch.rand(50, hidden_dim // 2))

    def forward(self, inputs, mask: Optional[torch.Tensor] = None):
        x = self.backbone(inputs)
        h = self.conv(x)
        reveal_shape(h)

        H, W = h.shape[-2:]
        pos = torch.cat(
            [
                self.col_embed[:W].unsqueeze(0).repeat(H, 1, 1),
                self.row_embed[:H].unsqueeze(1).repeat(1, W, 1),
            ],
            dim=-1,
        ).flatten(0, 1).unsqueeze(1)
        reveal_shape(pos)

        src = pos + 0.1 * h.flatten(2).permute(2, 0, 1)
        reveal_shape(src)
        tgt = self.query_pos.unsqueeze(1).repeat(1, inputs.shape[0], 1)
        h = self.transformer(src, tgt).transpose(0, 1)
        reveal_shape(h)
        return {"pred_logits": self.linear_class(h), "pred_boxes": self.linear_bbox(h).sigmoid()}


def main() -> None:
    torch.manual_seed(0)
    model = DETRdemo(num_classes=7)
    images = torch.randn(2, 3, 64, 96)
    out = model(images)
    logits, boxes = out["pred_logits"], out["pred_boxes"]
    reveal_shape(logits)
    reveal_shape(boxes)
    # a stand-in for Hungarian matching: every query is "no object" but the first
    labels = torch.full(logits.shape[:2], 7, dtype=torch.long)
    labels[:, 0] = torch.randint(0, 7, (2,))
    loss_ce = F.cross_entropy(logits.transpose(1, 2), labels)
    loss_bbox = F.l1_loss(boxes[:, 0], torch.rand(2, 4))
    (loss_ce + loss_bbox).backward()


if __name__ == "__main__":
    main()
