"""An encoder-decoder transformer for translation (token ids in, logits out)."""

from __future__ import annotations

import math

import torch
import torch.nn as nn
from jaxtyping import Bool, Float, Int
from torch import Tensor


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, max_len: int = 5000):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x: Float[Tensor, "s b d"]) -> Float[Tensor, "s b d"]:
        return x + self.pe[: x.size(0)]


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        assert d_model % n_heads == 0
        self.h = n_heads
        self.d_k = d_model // n_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)

    def forward(
        self,
        query: Float[Tensor, "b tq d"],
        key: Float[Tensor, "b tk d"],
        value: Float[Tensor, "b tk d"],
        mask: Bool[Tensor, "#b tq tk"] | None = None,
    ) -> Float[Tensor, "b tq d"]:
        b = query.size(0)
        q = self.w_q(query).view(b, -1, self.h, self.d_k).transpose(1, 2)
        k = self.w_k(key).view(b, -1, self.h, self.d_k).transpose(1, 2)
        v = self.w_v(value).view(b, -1, self.h, self.d_k).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d_k)
        if mask is not None:
            scores = scores.masked_fill(mask.unsqueeze(1) == 0, -1e9)
        p_attn = scores.softmax(dim=-1)
        x = torch.matmul(p_attn, v)
        x = x.transpose(1, 2).contiguous().view(b, -1, self.h * self.d_k)
        return self.w_o(x)


class FeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.1):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Float[Tensor, "b t d"]) -> Float[Tensor, "b t d"]:
        return self.w_2(self.dropout(self.w_1(x).relu()))


class EncoderLayer(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_ff: int):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_heads)
        self.ff = FeedForward(d_model, d_ff)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)

    def forward(self, x: Float[Tensor, "b t d"], mask: Bool[Tensor, "#b t t"] | None = None) -> Float[Tensor, "b t d"]:
        h = self.norm1(x)
        x = x + self.self_attn(h, h, h, mask)
        return x + self.ff(self.norm2(x))


class DecoderLayer(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_ff: int):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, n_heads)
        self.src_attn = MultiHeadAttention(d_model, n_heads)
        self.ff = FeedForward(d_model, d_ff)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)

    def forward(
        self,
        x: Float[Tensor, "b t d"],
        memory: Float[Tensor, "b s d"],
        tgt_mask: Bool[Tensor, "#b t t"] | None = None,
    ) -> Float[Tensor, "b t d"]:
        h = self.norm1(x)
        x = x + self.self_attn(h, h, h, tgt_mask)
        h = self.norm2(x)
        x = x + self.src_attn(h, memory, memory)
        return x + self.ff(self.norm3(x))


class Transformer(nn.Module):
    def __init__(self, src_vocab: int, tgt_vocab: int, d_model: int = 512, n_heads: int = 8, n_layers: int = 6):
        super().__init__()
        self.src_embed = nn.Embedding(src_vocab, d_model)
        self.tgt_embed = nn.Embedding(tgt_vocab, d_model)
        self.encoder = nn.ModuleList([EncoderLayer(d_model, n_heads, 4 * d_model) for _ in range(n_layers)])
        self.decoder = nn.ModuleList([DecoderLayer(d_model, n_heads, 4 * d_model) for _ in range(n_layers)])
        self.generator = nn.Linear(d_model, tgt_vocab)
        self.scale = math.sqrt(d_model)

    def encode(self, src: Int[Tensor, "b s"]) -> Float[Tensor, "b s d"]:
        x = self.src_embed(src) * self.scale
        for layer in self.encoder:
            x = layer(x)
        return x

    def decode(self, memory: Float[Tensor, "b s d"], tgt: Int[Tensor, "b t"]) -> Float[Tensor, "b t d"]:
        t = tgt.size(1)
        causal = torch.tril(torch.ones(t, t, dtype=torch.bool)).unsqueeze(0)
        x = self.tgt_embed(tgt) * self.scale
        for layer in self.decoder:
            x = layer(x, memory, causal)
        return x

    def forward(self, src: Int[Tensor, "b s"], tgt: Int[Tensor, "b t"]) -> Float[Tensor, "b t v"]:
        memory = self.encode(src)
        return self.generator(self.decode(memory, tgt))
