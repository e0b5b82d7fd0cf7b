# exact-at-least: 8
"""A Conformer encoder block in the style of the speech-recognition re-implementations: a
convolutional subsampling front end (two stride-2 convs over the spectrogram, flattened to
d_model), then blocks of macaron feed-forward halves around multi-head self-attention with
learned relative-position bias, and a convolution module (pointwise conv to 2*d, GLU,
depthwise conv with "same" padding, BatchNorm, Swish, pointwise conv)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

if TYPE_CHECKING:
    from torch import Tensor

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


@dataclass
class ConformerConfig:
    n_mels: int = 40
    d_model: int = 64
    num_heads: int = 4
    ff_expansion: int = 4
    conv_kernel_size: int = 15
    num_blocks: int = 2
    max_rel_pos: int = 32
    dropout: float = 0.1
    num_classes: int = 29


class Conv2dSubsampling(nn.Module):
    def __init__(self, in_channels: int, d_model: int, n_mels: int):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(in_channels, d_model, kernel_size=3, stride=2),
            nn.ReLU(),
            nn.Conv2d(d_model, d_model, kernel_size=3, stride=2),
            nn.ReLU(),
        )
        freq = ((n_mels - 1) // 2 - 1) // 2
        self.out = nn.Linear(d_model * freq, d_model)

    def forward(self, x: Tensor) -> Tensor:
        # x: (batch, time, n_mels)
        x = self.conv(x.unsqueeze(1))
        reveal_shape(x)
        b, c, t, f = x.size()
        x = self.out(x.transpose(1, 2).contiguous().view(b, t, c * f))
        return x


class FeedForwardModule(nn.Module):
    def __init__(self, d_model: int, expansion: int, dropout: float):
        super().__init__()
        self.net = nn.Sequential(
            nn.LayerNorm(d_model),
            nn.Linear(d_model, d_model * expansion),
            nn.SiLU(),
            nn.Dropout(dropout),
            nn.Linear(d_model * expansion, d_model),
            nn.Dropout(dropout),
        )

    def forward(self, x):
        return self.net(x)


class RelativeMultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, num_heads: int, max_rel_pos: int, dropout: float = 0.0):
        super().__init__()
        assert d_model % num_heads == 0
        self.d_head = d_model // num_heads
        self.num_heads = num_heads
        self.max_rel_pos = max_rel_pos
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.rel_bias = nn.Embedding(2 * max_rel_pos + 1, num_heads)
        self.proj = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, mask: Optional[Tensor] = None):
        B, T, C = x.shape
        qkv = self.qkv(x).reshape(B, T, 3, self.num_heads, self.d_head).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        reveal_shape(q)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        pos = torch.arange(T, device=x.device)
        rel = (pos[None, :] - pos[:, None]).clamp(-self.max_rel_pos, self.max_rel_pos) + self.max_rel_pos
        bias = self.rel_bias(rel).permute(2, 0, 1)
        reveal_shape(bias)
        scores = scores + bias.unsqueeze(0)
        if mask is not None:
            scores = scores.masked_fill(~mask[:, None, None, :], float("-inf"))
        attn = self.dropout(scores.softmax(dim=-1))
        out = (attn @ v).transpose(1, 2).reshape(B, T, C)
        return self.proj(out)


class ConvolutionModule(nn.Module):
    def __init__(self, d_model: int, kernel_size: int, dropout: float):
        super().__init__()
        self.layer_norm = nn.LayerNorm(d_model)
        self.pointwise_conv1 = nn.Conv1d(d_model, 2 * d_model, kernel_size=1)
        self.depthwise_conv = nn.Conv1d(
            d_model, d_model, kernel_size, padding=(kernel_size - 1) // 2, groups=d_model
        )
        self.batch_norm = nn.BatchNorm1d(d_model)
        self.pointwise_conv2 = nn.Conv1d(d_model, d_model, kernel_size=1)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = self.layer_norm(x).transpose(1, 2)
        x = self.pointwise_conv1(x)
        x = F.glu(x, dim=1)
        reveal_shape(x)
        x = self.depthwise_conv(x)
        x = F.silu(self.batch_norm(x))
        x = self.dropout(self.pointwise_conv2(x))
        return x.transpose(1, 2)


class ConformerBlock(nn.Module):
    def __init__(self, cfg: ConformerConfig):
        super().__init__()
        self.ff1 = FeedForwardModule(cfg.d_model, cfg.ff_expansion, cfg.dropout)
        self.attn_norm = nn.LayerNorm(cfg.d_model)
        self.attn = RelativeMultiHeadAttention(cfg.d_model, cfg.num_heads, cfg.max_rel_pos, cfg.dropout)
        self.conv = ConvolutionModule(cfg.d_model, cfg.conv_kernel_size, cfg.dropout)
        self.ff2 = FeedForwardModule(cfg.d_model, cfg.ff_expansion, cfg.dropout)
        self.final_norm = nn.LayerNorm(cfg.d_model)

    def forward(self, x, mask=None):
        x = x + 0.5 * self.ff1(x)
        x = x + self.attn(self.attn_norm(x), mask)
        x = x + self.conv(x)
        x = x + 0.5 * self.ff2(x)
        return self.final_norm(x)


class ConformerEncoder(nn.Module):
    def __init__(self, cfg: ConformerConfig):
        super().__init__()
        self.subsampling = Conv2dSubsampling(1, cfg.d_model, cfg.n_mels)
        self.blocks = nn.ModuleList([ConformerBlock(cfg) for _ in range(cfg.num_blocks)])
        self.classifier = nn.Linear(cfg.d_model, cfg.num_classes)

    def forward(self, features, lengths):
        x = self.subsampling(features)
        reveal_shape(x)
        lengths = ((lengths - 1) // 2 - 1) // 2
        mask = torch.arange(x.size(1))[None, :] < lengths[:, None]
        reveal_shape(mask)
        for block in self.blocks:
            x = block(x, mask)
        reveal_shape(x)
        return self.classifier(x).log_softmax(dim=-1), lengths


def main() -> None:
    torch.manual_seed(0)
    cfg = ConformerConfig()
    model = ConformerEncoder(cfg).eval()
    features = torch.randn(3, 101, cfg.n_mels)
    lengths = torch.tensor([101, 90, 77])
    log_probs, out_lengths = model(features, lengths)
    reveal_shape(log_probs)
    targets = torch.randint(1, cfg.num_classes, (3, 10))
    loss = F.ctc_loss(
        log_probs.transpose(0, 1), targets, out_lengths, torch.full((3,), 10, dtype=torch.long)
    )
    print(loss.item())


if __name__ == "__main__":
    main()
