# exact-at-least: 10
"""A Vision Transformer in the style of the popular from-scratch ViT implementations: patch
embedding by a strided convolution, a class token and learned position embeddings, blocks in
a ModuleList, the head size computed as int(dim / heads), and a final norm that is a module
or None depending on a constructor flag (pre-norm models skip it for the pooled token)."""

from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor

from tensorshape import reveal_shape


class PatchEmbed(nn.Module):
    def __init__(self, img_size: int = 32, patch_size: int = 4, in_chans: int = 3, embed_dim: int = 64):
        super().__init__()
        self.num_patches = (img_size // patch_size) * (img_size // patch_size)
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        x = self.proj(x)  # B, C, H/p, W/p
        x = x.flatten(2).transpose(1, 2)  # B, N, C
        return x


class Attention(nn.Module):
    def __init__(self, dim: int, num_heads: int = 8, qkv_bias: bool = False, attn_drop: float = 0.0):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = int(dim / num_heads)
        self.scale = self.head_dim**-0.5
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: Float[Tensor, "b n d"]):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        reveal_shape(q)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        attn = self.attn_drop(attn)
        reveal_shape(attn)
        x = (attn @ v).transpose(1, 2).reshape(B, N, C)
        reveal_shape(x)
        return self.proj(x)


class Mlp(nn.Module):
    def __init__(self, in_features: int, hidden_features: Optional[int] = None, drop: float = 0.0):
        super().__init__()
        hidden_features = hidden_features or in_features
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden_features, in_features)
        self.drop = nn.Dropout(drop)

    def forward(self, x):
        return self.drop(self.fc2(self.drop(self.act(self.fc1(x)))))


class Block(nn.Module):
    def __init__(self, dim: int, num_heads: int, mlp_ratio: int = 4):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, num_heads=num_heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, dim * mlp_ratio)

    def forward(self, x: Float[Tensor, "b n d"]):
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        return x


class VisionTransformer(nn.Module):
    def __init__(
        self,
        img_size: int = 32,
        patch_size: int = 4,
        num_classes: int = 10,
        embed_dim: int = 64,
        depth: int = 4,
        num_heads: int = 4,
        final_norm: bool = True,
    ):
        super().__init__()
        self.patch_embed = PatchEmbed(img_size, patch_size, 3, embed_dim)
        num_patches = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, num_patches + 1, embed_dim))
        self.blocks = nn.ModuleList([Block(embed_dim, num_heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(embed_dim) if final_norm else None
        self.head = nn.Linear(embed_dim, num_classes)

    def forward_features(self, x: Float[Tensor, "b 3 h w"]):
        x = self.patch_embed(x)
        reveal_shape(x)
        cls_tokens = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls_tokens, x), dim=1)
        reveal_shape(x)
        x = x + self.pos_embed
        for blk in self.blocks:
            x = blk(x)
        reveal_shape(x)
        if self.norm is not None:
            x = self.norm(x)
        reveal_shape(x)
        return x[:, 0]

    def forward(self, x: Float[Tensor, "b 3 h w"]):
        x = self.forward_features(x)
        reveal_shape(x)
        x = self.head(x)
        reveal_shape(x)
        return x


def main() -> None:
    model = VisionTransformer(final_norm=False)
    images = torch.randn(2, 3, 32, 32)
    logits = model(images)
    reveal_shape(logits)
    loss = F.cross_entropy(logits, torch.randint(0, 10, (2,)))
    loss.backward()


if __name__ == "__main__":
    main()
