# exact-at-least: 7
"""T5-style self-attention with a relative position bias, as in the reference T5 code: the
bucketing of relative positions (exact buckets for small distances, log-spaced beyond, clamped with
``torch.min``/``torch.full_like``), an ``nn.Embedding`` of buckets per head, ``permute`` of the
bias to ``(1, heads, q, k)``, attention scores from ``matmul`` with the bias and a padding mask
added, and an encoder of layers in a ModuleList where only the first computes the bias."""

import math
from typing import Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


class T5Config:
    def __init__(self, d_model=32, d_kv=8, num_heads=4, d_ff=64, num_layers=2,
                 relative_attention_num_buckets=32, relative_attention_max_distance=128, vocab_size=100):
        self.d_model = d_model
        self.d_kv = d_kv
        self.num_heads = num_heads
        self.d_ff = d_ff
        self.num_layers = num_layers
        self.relative_attention_num_buckets = relative_attention_num_buckets
        self.relative_attention_max_distance = relative_attention_max_distance
        self.vocab_size = vocab_size


class T5Attention(nn.Module):
    def __init__(self, config, has_relative_attention_bias=False):
        super().__init__()
        self.has_relative_attention_bias = has_relative_attention_bias
        self.relative_attention_num_buckets = config.relative_attention_num_buckets
        self.relative_attention_max_distance = config.relative_attention_max_distance
        self.d_model = config.d_model
        self.key_value_proj_dim = config.d_kv
        self.n_heads = config.num_heads
        self.inner_dim = self.n_heads * self.key_value_proj_dim
        self.q = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.k = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.v = nn.Linear(self.d_model, self.inner_dim, bias=False)
        self.o = nn.Linear(self.inner_dim, self.d_model, bias=False)
        if self.has_relative_attention_bias:
            self.relative_attention_bias = nn.Embedding(self.relative_attention_num_buckets, self.n_heads)

    @staticmethod
    def _relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        relative_position_if_large = max_exact + (
            torch.log(relative_position.float() / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).to(torch.long)
        relative_position_if_large = torch.min(
            relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
        )
        relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
        return relative_buckets

    def compute_bias(self, query_length, key_length, device=None):
        context_position = torch.arange(query_length, dtype=torch.long, device=device)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long, device=device)[None, :]
        relative_position = memory_position - context_position
        relative_position_bucket = self._relative_position_bucket(
            relative_position,
            bidirectional=True,
            num_buckets=self.relative_attention_num_buckets,
            max_distance=self.relative_attention_max_distance,
        )
        reveal_shape(relative_position_bucket)
        values = self.relative_attention_bias(relative_position_bucket)
        values = values.permute([2, 0, 1]).unsqueeze(0)
        reveal_shape(values)
        return values

    def forward(self, hidden_states, mask=None, position_bias=None):
        batch_size, seq_length = hidden_states.shape[:2]

        def shape(states):
            return states.view(batch_size, -1, self.n_heads, self.key_value_proj_dim).transpose(1, 2)

        def unshape(states):
            return states.transpose(1, 2).contiguous().view(batch_size, -1, self.inner_dim)

        query_states = shape(self.q(hidden_states))
        key_states = shape(self.k(hidden_states))
        value_states = shape(self.v(hidden_states))
        scores = torch.matmul(query_states, key_states.transpose(3, 2))
        reveal_shape(scores)
        if position_bias is None:
            if not self.has_relative_attention_bias:
                position_bias = torch.zeros((1, self.n_heads, seq_length, seq_length), dtype=scores.dtype)
            else:
                position_bias = self.compute_bias(seq_length, seq_length, device=scores.device)
            if mask is not None:
                position_bias = position_bias + mask
        scores += position_bias
        attn_weights = F.softmax(scores.float(), dim=-1).type_as(scores)
        attn_output = unshape(torch.matmul(attn_weights, value_states))
        reveal_shape(attn_output)
        return self.o(attn_output), position_bias


class T5Layer(nn.Module):
    def __init__(self, config, has_relative_attention_bias=False):
        super().__init__()
        self.attn = T5Attention(config, has_relative_attention_bias)
        self.ln1 = nn.LayerNorm(config.d_model)
        self.ff = nn.Sequential(nn.Linear(config.d_model, config.d_ff), nn.ReLU(), nn.Linear(config.d_ff, config.d_model))
        self.ln2 = nn.LayerNorm(config.d_model)

    def forward(self, x, mask=None, position_bias=None):
        h, position_bias = self.attn(self.ln1(x), mask=mask, position_bias=position_bias)
        x = x + h
        x = x + self.ff(self.ln2(x))
        return x, position_bias


class T5Encoder(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed_tokens = nn.Embedding(config.vocab_size, config.d_model)
        self.block = nn.ModuleList([T5Layer(config, has_relative_attention_bias=bool(i == 0)) for i in range(config.num_layers)])
        self.final_layer_norm = nn.LayerNorm(config.d_model)

    def forward(self, input_ids, attention_mask: Optional[torch.Tensor] = None):
        x = self.embed_tokens(input_ids)
        mask = None
        if attention_mask is not None:
            mask = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
            reveal_shape(mask)
        position_bias = None
        for layer in self.block:
            x, position_bias = layer(x, mask=mask, position_bias=position_bias)
        reveal_shape(position_bias)
        return self.final_layer_norm(x)


def main():
    torch.manual_seed(0)
    config = T5Config()
    model = T5Encoder(config)
    input_ids = torch.randint(0, config.vocab_size, (2, 7))
    attention_mask = torch.ones(2, 7, dtype=torch.long)
    attention_mask[1, 5:] = 0
    out = model(input_ids, attention_mask=attention_mask)
    reveal_shape(out)
    out.sum().backward()
    print(out.shape)


if __name__ == "__main__":
    main()
