# exact-at-least: 13
"""A LLaMA-style decoder in the manner of the open reference implementations: a dataclass of model
arguments with an optional number of key/value heads (grouped-query attention when it is smaller
than the number of heads), RMSNorm, rotary position embeddings precomputed as cos/sin buffers and
applied with rotate_half, key/value heads repeated by expand + reshape, a causal mask from
torch.full(...).triu(1), a SwiGLU feed-forward whose hidden size is rounded up to a multiple, and an
output projection tied to the token embedding.  Annotations at the boundaries only (jaxtyping on
the model's forward)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int

if TYPE_CHECKING:
    from torch import Tensor

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


@dataclass
class ModelArgs:
    dim: int = 64
    n_layers: int = 2
    n_heads: int = 4
    n_kv_heads: Optional[int] = 2
    vocab_size: int = 100
    multiple_of: int = 32
    ffn_dim_multiplier: Optional[float] = None
    norm_eps: float = 1e-5
    max_seq_len: int = 32
    rope_theta: float = 10000.0


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        output = self._norm(x.float()).type_as(x)
        return output * self.weight


def precompute_rope(head_dim: int, end: int, theta: float = 10000.0):
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2).float() / head_dim))
    t = torch.arange(end, dtype=torch.float32)
    freqs = torch.outer(t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_emb(q, k, cos, sin):
    # cos/sin: (seqlen, head_dim) -> broadcast over batch and heads of (bs, n_heads, seqlen, head_dim)
    cos = cos[None, None, :, :]
    sin = sin[None, None, :, :]
    q_embed = (q * cos) + (rotate_half(q) * sin)
    k_embed = (k * cos) + (rotate_half(k) * sin)
    return q_embed, k_embed


def repeat_kv(x, n_rep: int):
    """(bs, n_kv_heads, slen, head_dim) -> (bs, n_kv_heads * n_rep, slen, head_dim)"""
    bs, n_kv_heads, slen, head_dim = x.shape
    if n_rep == 1:
        return x
    return x[:, :, None, :, :].expand(bs, n_kv_heads, n_rep, slen, head_dim).reshape(bs, n_kv_heads * n_rep, slen, head_dim)


class Attention(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.n_kv_heads = args.n_heads if args.n_kv_heads is None else args.n_kv_heads
        self.n_heads = args.n_heads
        self.n_rep = self.n_heads // self.n_kv_heads
        self.head_dim = args.dim // args.n_heads

        self.wq = nn.Linear(args.dim, args.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(args.n_heads * self.head_dim, args.dim, bias=False)

    def forward(self, x, cos, sin, mask: Optional[torch.Tensor]):
        bsz, seqlen, _ = x.shape
        xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
        xq = xq.view(bsz, seqlen, self.n_heads, self.head_dim).transpose(1, 2)
        xk = xk.view(bsz, seqlen, self.n_kv_heads, self.head_dim).transpose(1, 2)
        xv = xv.view(bsz, seqlen, self.n_kv_heads, self.head_dim).transpose(1, 2)
        reveal_shape(xk)

        xq, xk = apply_rotary_emb(xq, xk, cos, sin)
        reveal_shape(xq)

        keys = repeat_kv(xk, self.n_rep)
        values = repeat_kv(xv, self.n_rep)
        reveal_shape(keys)

        scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(self.head_dim)
        if mask is not None:
            scores = scores + mask
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        reveal_shape(scores)
        output = torch.matmul(scores, values)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        reveal_shape(output)
        return self.wo(output)


class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden_dim: int, multiple_of: int, ffn_dim_multiplier: Optional[float]):
        super().__init__()
        hidden_dim = int(2 * hidden_dim / 3)
        if ffn_dim_multiplier is not None:
            hidden_dim = int(ffn_dim_multiplier * hidden_dim)
        hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)

        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x):
        h = F.silu(self.w1(x)) * self.w3(x)
        reveal_shape(h)
        return self.w2(h)


class TransformerBlock(nn.Module):
    def __init__(self, layer_id: int, args: ModelArgs):
        super().__init__()
        self.layer_id = layer_id
        self.attention = Attention(args)
        self.feed_forward = FeedForward(
            dim=args.dim,
            hidden_dim=4 * args.dim,
            multiple_of=args.multiple_of,
            ffn_dim_multiplier=args.ffn_dim_multiplier,
        )
        self.attention_norm = RMSNorm(args.dim, eps=args.norm_eps)
        self.ffn_norm = RMSNorm(args.dim, eps=args.norm_eps)

    def forward(self, x, cos, sin, mask):
        h = x + self.attention(self.attention_norm(x), cos, sin, mask)
        out = h + self.feed_forward(self.ffn_norm(h))
        return out


class Transformer(nn.Module):
    def __init__(self, params: ModelArgs):
        super().__init__()
        self.params = params
        self.vocab_size = params.vocab_size
        self.n_layers = params.n_layers

        self.tok_embeddings = nn.Embedding(params.vocab_size, params.dim)
        self.layers = nn.ModuleList()
        for layer_id in range(params.n_layers):
            self.layers.append(TransformerBlock(layer_id, params))
        self.norm = RMSNorm(params.dim, eps=params.norm_eps)
        self.output = nn.Linear(params.dim, params.vocab_size, bias=False)
        self.output.weight = self.tok_embeddings.weight

        cos, sin = precompute_rope(params.dim // params.n_heads, params.max_seq_len * 2, params.rope_theta)
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)

    def forward(self, tokens: Int[Tensor, "bsz seqlen"]) -> Float[Tensor, "bsz seqlen vocab"]:
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        reveal_shape(h)
        cos = self.rope_cos[:seqlen]
        sin = self.rope_sin[:seqlen]
        reveal_shape(cos)

        mask = None
        if seqlen > 1:
            mask = torch.full((seqlen, seqlen), float("-inf"), device=tokens.device)
            mask = torch.triu(mask, diagonal=1).type_as(h)
            reveal_shape(mask)

        for layer in self.layers:
            h = layer(h, cos, sin, mask)
        reveal_shape(h)
        h = self.norm(h)
        output = self.output(h).float()
        return output


def main() -> None:
    torch.manual_seed(0)
    args = ModelArgs()
    model = Transformer(args)
    tokens = torch.randint(0, args.vocab_size, (2, 12))
    logits = model(tokens)
    reveal_shape(logits)
    targets = torch.randint(0, args.vocab_size, (2, 12))
    loss = F.cross_entropy(logits[:, :-1].reshape(-1, args.vocab_size), targets[:, 1:].reshape(-1))
    loss.backward()
    next_token = torch.argmax(logits[:, -1], dim=-1, keepdim=True)
    reveal_shape(next_token)
    tokens = torch.cat([tokens, next_token], dim=1)
    reveal_shape(tokens)


if __name__ == "__main__":
    main()
