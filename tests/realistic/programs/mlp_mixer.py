# exact-at-least: 6
"""An MLP-Mixer in the style of the from-scratch PyTorch versions: a strided-conv patch stem
flattened to (B, patches, C), mixer layers whose token-mixing MLP runs on the transposed
tensor (an nn.Linear over the patch axis) and whose channel-mixing MLP runs on the channels,
a config read from argparse with defaults, global average pooling and a linear head."""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


class MlpBlock(nn.Module):
    def __init__(self, dim, hidden_dim, dropout=0.0):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden_dim)
        self.fc2 = nn.Linear(hidden_dim, dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.fc2(self.dropout(F.gelu(self.fc1(x)))))


class MixerBlock(nn.Module):
    def __init__(self, dim, num_patches, tokens_mlp_dim, channels_mlp_dim, dropout=0.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.token_mix = MlpBlock(num_patches, tokens_mlp_dim, dropout)
        self.norm2 = nn.LayerNorm(dim)
        self.channel_mix = MlpBlock(dim, channels_mlp_dim, dropout)

    def forward(self, x):
        y = self.norm1(x).transpose(1, 2)
        y = self.token_mix(y)
        reveal_shape(y)
        x = x + y.transpose(1, 2)
        x = x + self.channel_mix(self.norm2(x))
        return x


class MlpMixer(nn.Module):
    def __init__(self, num_classes, num_blocks, patch_size, hidden_dim, tokens_mlp_dim, channels_mlp_dim, image_size=32):
        super().__init__()
        num_patches = (image_size // patch_size) ** 2
        self.stem = nn.Conv2d(3, hidden_dim, kernel_size=patch_size, stride=patch_size)
        self.blocks = nn.Sequential(
            *[MixerBlock(hidden_dim, num_patches, tokens_mlp_dim, channels_mlp_dim) for _ in range(num_blocks)]
        )
        self.pre_head_norm = nn.LayerNorm(hidden_dim)
        self.head = nn.Linear(hidden_dim, num_classes)

    def forward(self, x: Float[Tensor, "batch 3 height width"]) -> Float[Tensor, "batch classes"]:
        x = self.stem(x)
        reveal_shape(x)
        x = x.flatten(2).transpose(1, 2)
        reveal_shape(x)
        x = self.blocks(x)
        reveal_shape(x)
        x = self.pre_head_norm(x)
        x = x.mean(dim=1)
        reveal_shape(x)
        return self.head(x)


def get_args():
    parser = argparse.ArgumentParser(description="MLP-Mixer on random CIFAR-sized images")
    parser.add_argument("--num-classes", type=int, default=10)
    parser.add_argument("--num-blocks", type=int, default=2)
    parser.add_argument("--patch-size", type=int, default=4)
    parser.add_argument("--hidden-dim", type=int, default=48)
    parser.add_argument("--tokens-mlp-dim", type=int, default=32)
    parser.add_argument("--channels-mlp-dim", type=int, default=96)
    parser.add_argument("--batch-size", type=int, default=4)
    return parser.parse_args()


def main() -> None:
    args = get_args()
    model = MlpMixer(
        args.num_classes,
        args.num_blocks,
        args.patch_size,
        args.hidden_dim,
        args.tokens_mlp_dim,
        args.channels_mlp_dim,
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    images = torch.randn(args.batch_size, 3, 32, 32)
    labels = torch.randint(0, args.num_classes, (args.batch_size,))
    logits = model(images)
    reveal_shape(logits)
    loss = F.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


if __name__ == "__main__":
    main()
