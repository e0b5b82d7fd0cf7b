"""A pre-norm transformer block: multi-head attention with symbolic dims.

`d_model // n_heads` becomes a symbolic dim; the `assert` tells the checker
that it divides exactly, so reshaping back to `d_model` is proven.
"""

import math

import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        assert d_model % n_heads == 0
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x: Float[Tensor, "b t d"]) -> Float[Tensor, "b t d"]:
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, t, self.n_heads, self.d_head).transpose(1, 2)
        k = k.view(b, t, self.n_heads, self.d_head).transpose(1, 2)
        v = v.view(b, t, self.n_heads, self.d_head).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        mask = torch.ones(t, t).tril().bool()
        scores = scores.masked_fill(~mask, float("-inf"))
        out = scores.softmax(dim=-1) @ v
        out = out.transpose(1, 2).reshape(b, t, d)
        return self.proj(out)


class Block(nn.Module):
    def __init__(self, d_model: int = 256, n_heads: int = 8, d_ff: int = 1024):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, n_heads)
        self.ln2 = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model))

    def forward(self, x: Float[Tensor, "b t d"]) -> Float[Tensor, "b t d"]:
        x = x + self.attn(self.ln1(x))
        return x + self.ff(self.ln2(x))


def demo() -> None:
    block = Block()
    x = torch.randn(2, 16, 256)
    assert block(x).shape == (2, 16, 256)


if __name__ == "__main__":
    demo()
