# exact-at-least: 1
"""A small Vision Transformer in the style of the popular single-file ViT implementations:
einops imported optionally, patch embedding by a strided convolution, a class token and
learned positions, pre-norm blocks in an nn.ModuleList, sizes from __init__ defaults and
the model built as ViT() in the script."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    from einops import rearrange
except ImportError:  # einops is optional: fall back to plain torch
    rearrange = None

try:
    from tensorshape import reveal_shape
except ImportError:

    def reveal_shape(x):
        return x


class Attention(nn.Module):
    def __init__(self, dim, heads=8, dim_head=64, dropout=0.0):
        super().__init__()
        inner_dim = dim_head * heads
        self.heads = heads
        self.scale = dim_head**-0.5
        self.norm = nn.LayerNorm(dim)
        self.to_qkv = nn.Linear(dim, inner_dim * 3, bias=False)
        self.to_out = nn.Sequential(nn.Linear(inner_dim, dim), nn.Dropout(dropout))

    def forward(self, x):
        x = self.norm(x)
        qkv = self.to_qkv(x).chunk(3, dim=-1)
        b, n, _ = x.shape
        q, k, v = (t.reshape(b, n, self.heads, -1).transpose(1, 2) for t in qkv)
        dots = torch.matmul(q, k.transpose(-1, -2)) * self.scale
        reveal_shape(dots)
        attn = dots.softmax(dim=-1)
        out = torch.matmul(attn, v)
        out = out.transpose(1, 2).reshape(b, n, -1)
        reveal_shape(out)
        return self.to_out(out)


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim, dropout=0.0):
        super().__init__()
        self.net = nn.Sequential(
            nn.LayerNorm(dim),
            nn.Linear(dim, hidden_dim),
            nn.GELU(),
            nn.Dropout(dropout),
            nn.Linear(hidden_dim, dim),
            nn.Dropout(dropout),
        )

    def forward(self, x):
        return self.net(x)


class Transformer(nn.Module):
    def __init__(self, dim, depth, heads, dim_head, mlp_dim, dropout=0.0):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.layers = nn.ModuleList([])
        for _ in range(depth):
            self.layers.append(
                nn.ModuleList(
                    [
                        Attention(dim, heads=heads, dim_head=dim_head, dropout=dropout),
                        FeedForward(dim, mlp_dim, dropout=dropout),
                    ]
                )
            )

    def forward(self, x):
        for attn, ff in self.layers:
            x = attn(x) + x
            x = ff(x) + x
        return self.norm(x)


class ViT(nn.Module):
    def __init__(
        self,
        image_size: int = 32,
        patch_size: int = 4,
        num_classes: int = 10,
        dim: int = 64,
        depth: int = 2,
        heads: int = 4,
        mlp_dim: int = 128,
        channels: int = 3,
        dim_head: int = 16,
        dropout: float = 0.0,
    ):
        super().__init__()
        assert image_size % patch_size == 0, "image dimensions must be divisible by the patch size"
        num_patches = (image_size // patch_size) ** 2
        self.patch_size = patch_size
        self.to_patch_embedding = nn.Conv2d(channels, dim, kernel_size=patch_size, stride=patch_size)
        self.pos_embedding = nn.Parameter(torch.randn(1, num_patches + 1, dim))
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.dropout = nn.Dropout(dropout)
        self.transformer = Transformer(dim, depth, heads, dim_head, mlp_dim, dropout)
        self.mlp_head = nn.Linear(dim, num_classes)

    def forward(self, img):
        x = self.to_patch_embedding(img)
        reveal_shape(x)
        if rearrange is not None:
            x = rearrange(x, "b d h w -> b (h w) d")
        else:
            x = x.flatten(2).transpose(1, 2)
        reveal_shape(x)
        b, n, _ = x.shape
        cls_tokens = self.cls_token.expand(b, -1, -1)
        x = torch.cat((cls_tokens, x), dim=1)
        reveal_shape(x)
        x = x + self.pos_embedding[:, : (n + 1)]
        x = self.dropout(x)
        x = self.transformer(x)
        reveal_shape(x)
        x = x[:, 0]
        reveal_shape(x)
        return self.mlp_head(x)


def main():
    model = ViT()
    images = torch.randn(2, 3, 32, 32)
    logits = model(images)
    reveal_shape(logits)
    loss = F.cross_entropy(logits, torch.randint(0, 10, (2,)))
    loss.backward()
    print(f"loss {loss.item():.3f}, {math.fsum(p.numel() for p in model.parameters())} parameters")


if __name__ == "__main__":
    main()
