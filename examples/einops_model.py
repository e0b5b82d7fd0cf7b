"""A vision-transformer stem written with einops."""

import torch
import torch.nn as nn
from einops import rearrange, reduce
from einops.layers.torch import Rearrange
from jaxtyping import Float
from torch import Tensor


class PatchEmbed(nn.Module):
    def __init__(self, patch: int = 4, channels: int = 3, dim: int = 128):
        super().__init__()
        self.to_patches = Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=patch, p2=patch)
        self.proj = nn.Linear(patch * patch * channels, dim)

    def forward(self, img: Float[Tensor, "b 3 32 32"]) -> Float[Tensor, "b 64 128"]:
        return self.proj(self.to_patches(img))


def split_heads(x: Float[Tensor, "b n d"], heads: int) -> Tensor:
    return rearrange(x, "b n (h e) -> b h n e", h=heads)


def pool(x: Float[Tensor, "b n d"]) -> Float[Tensor, "b d"]:
    return reduce(x, "b n d -> b d", "mean")


def demo() -> None:
    emb = PatchEmbed()
    tokens = emb(torch.randn(2, 3, 32, 32))
    assert tokens.shape == (2, 64, 128)
    assert split_heads(tokens, 8).shape == (2, 8, 64, 16)
    assert pool(tokens).shape == (2, 128)


if __name__ == "__main__":
    demo()
