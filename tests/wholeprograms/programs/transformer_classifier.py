"""A Transformer encoder for sequence classification with a plain config class (class-level
defaults, overridable in __init__), learned positions, a [CLS]-free mean pooling head, and a
padding mask built from the token ids. Random token sequences stand in for the data."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Config:
    vocab_size = 1000
    max_len = 64
    d_model = 64
    n_heads = 4
    n_layers = 2
    ff_mult = 4
    num_classes = 5
    dropout = 0.1
    pad_id = 0

    def __init__(self, **overrides):
        for k, v in overrides.items():
            setattr(self, k, v)
        self.head_dim = self.d_model // self.n_heads


class TextClassifier(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.tok_emb = nn.Embedding(config.vocab_size, config.d_model, padding_idx=config.pad_id)
        self.pos_emb = nn.Parameter(torch.zeros(1, config.max_len, config.d_model))
        layer = nn.TransformerEncoderLayer(
            d_model=config.d_model,
            nhead=config.n_heads,
            dim_feedforward=config.ff_mult * config.d_model,
            dropout=config.dropout,
            batch_first=True,
        )
        self.encoder = nn.TransformerEncoder(layer, num_layers=config.n_layers)
        self.norm = nn.LayerNorm(config.d_model)
        self.head = nn.Linear(config.d_model, config.num_classes)

    def forward(self, ids):
        B, T = ids.shape
        pad_mask = ids == self.config.pad_id
        x = self.tok_emb(ids) * math.sqrt(self.config.d_model)
        x = x + self.pos_emb[:, :T, :]
        x = self.encoder(x, src_key_padding_mask=pad_mask)
        x = self.norm(x)
        keep = (~pad_mask).unsqueeze(-1).float()
        pooled = (x * keep).sum(dim=1) / keep.sum(dim=1).clamp(min=1.0)
        return self.head(pooled)


def make_data(config, n, seq_len):
    ids = torch.randint(1, config.vocab_size, (n, seq_len))
    lengths = torch.randint(seq_len // 2, seq_len + 1, (n,))
    ids[torch.arange(seq_len)[None, :] >= lengths[:, None]] = config.pad_id
    labels = torch.randint(0, config.num_classes, (n,))
    return TensorDataset(ids, labels)


def train_epoch(model, loader, optimizer):
    model.train()
    total = 0.0
    for ids, labels in loader:
        logits = model(ids)
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * ids.size(0)
    return total / len(loader.dataset)


if __name__ == "__main__":
    config = Config(n_layers=1)
    model = TextClassifier(config)
    loader = DataLoader(make_data(config, 48, 40), batch_size=16, shuffle=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    print(train_epoch(model, loader, optimizer))
