# exact-at-least: 5
"""A GPT in the style of the minimal character-level GPT tutorials: a plain config class,
attention heads as separate modules in a ModuleList, the head size as int(n_embd / n_head),
blocks in an nn.Sequential built from a list, and a LayerNorm that exists only when the
config asks for it."""

import torch
import torch.nn as nn
from jaxtyping import Int
from torch import Tensor
from torch.nn import functional as F

from tensorshape import reveal_shape


class Config:
    block_size = 32
    vocab_size = 65
    n_embd = 48
    n_head = 6
    n_layer = 3
    dropout = 0.0
    final_norm = True


class Head(nn.Module):
    """one head of self-attention"""

    def __init__(self, config, head_size):
        super().__init__()
        self.key = nn.Linear(config.n_embd, head_size, bias=False)
        self.query = nn.Linear(config.n_embd, head_size, bias=False)
        self.value = nn.Linear(config.n_embd, head_size, bias=False)
        self.register_buffer("tril", torch.tril(torch.ones(config.block_size, config.block_size)))
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        B, T, C = x.shape
        k = self.key(x)  # (B,T,hs)
        q = self.query(x)  # (B,T,hs)
        wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5  # (B, T, T)
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        wei = F.softmax(wei, dim=-1)
        wei = self.dropout(wei)
        v = self.value(x)
        out = wei @ v  # (B, T, hs)
        return out


class MultiHeadAttention(nn.Module):
    """multiple heads of self-attention in parallel"""

    def __init__(self, config):
        super().__init__()
        head_size = int(config.n_embd / config.n_head)
        self.heads = nn.ModuleList([Head(config, head_size) for _ in range(config.n_head)])
        self.proj = nn.Linear(head_size * config.n_head, config.n_embd)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        out = torch.cat([h(x) for h in self.heads], dim=-1)
        out = self.dropout(self.proj(out))
        return out


class FeedFoward(nn.Module):
    def __init__(self, n_embd, dropout):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_embd, 4 * n_embd),
            nn.ReLU(),
            nn.Linear(4 * n_embd, n_embd),
            nn.Dropout(dropout),
        )

    def forward(self, x):
        return self.net(x)


class Block(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.sa = MultiHeadAttention(config)
        self.ffwd = FeedFoward(config.n_embd, config.dropout)
        self.ln1 = nn.LayerNorm(config.n_embd)
        self.ln2 = nn.LayerNorm(config.n_embd)

    def forward(self, x):
        x = x + self.sa(self.ln1(x))
        x = x + self.ffwd(self.ln2(x))
        return x


class GPTLanguageModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.token_embedding_table = nn.Embedding(config.vocab_size, config.n_embd)
        self.position_embedding_table = nn.Embedding(config.block_size, config.n_embd)
        self.blocks = nn.Sequential(*[Block(config) for _ in range(config.n_layer)])
        self.ln_f = nn.LayerNorm(config.n_embd) if config.final_norm else None
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size)

    def forward(self, idx: Int[Tensor, "b t"], targets=None):
        B, T = idx.shape
        tok_emb = self.token_embedding_table(idx)  # (B,T,C)
        reveal_shape(tok_emb)
        pos_emb = self.position_embedding_table(torch.arange(T))  # (T,C)
        x = tok_emb + pos_emb  # (B,T,C)
        x = self.blocks(x)  # (B,T,C)
        reveal_shape(x)
        if self.ln_f is not None:
            x = self.ln_f(x)
        logits = self.lm_head(x)  # (B,T,vocab_size)
        reveal_shape(logits)
        if targets is None:
            loss = None
        else:
            B, T, C = logits.shape
            logits = logits.view(B * T, C)
            reveal_shape(logits)
            targets = targets.view(B * T)
            loss = F.cross_entropy(logits, targets)
        return logits, loss


def main() -> None:
    config = Config()
    model = GPTLanguageModel(config)
    idx = torch.randint(0, config.vocab_size, (4, 16))
    logits, loss = model(idx, idx)
    reveal_shape(logits)


if __name__ == "__main__":
    main()
