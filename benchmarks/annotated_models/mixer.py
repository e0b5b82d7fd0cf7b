"""MLP-Mixer: token-mixing and channel-mixing MLPs over image patches."""

from __future__ import annotations

import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class MlpBlock(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: Float[Tensor, "*batch d"]) -> Float[Tensor, "*batch d"]:
        return self.fc2(self.act(self.fc1(x)))


class MixerLayer(nn.Module):
    def __init__(self, num_patches: int, dim: int, token_hidden: int, channel_hidden: int):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.token_mix = MlpBlock(num_patches, token_hidden)
        self.norm2 = nn.LayerNorm(dim)
        self.channel_mix = MlpBlock(dim, channel_hidden)

    def forward(self, x: Float[Tensor, "b p d"]) -> Float[Tensor, "b p d"]:
        y = self.norm1(x).transpose(1, 2)
        y = self.token_mix(y).transpose(1, 2)
        x = x + y
        return x + self.channel_mix(self.norm2(x))


class MlpMixer(nn.Module):
    def __init__(self, num_classes: int = 1000, patch: int = 16, dim: int = 512, depth: int = 8):
        super().__init__()
        num_patches = (224 // patch) ** 2
        self.stem = nn.Conv2d(3, dim, kernel_size=patch, stride=patch)
        self.layers = nn.ModuleList([MixerLayer(num_patches, dim, 256, 2048) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, images: Float[Tensor, "b 3 224 224"]) -> Float[Tensor, "b 1000"]:
        x = self.stem(images)
        x = x.flatten(2).transpose(1, 2)
        for layer in self.layers:
            x = layer(x)
        x = self.norm(x)
        return self.head(x.mean(dim=1))
