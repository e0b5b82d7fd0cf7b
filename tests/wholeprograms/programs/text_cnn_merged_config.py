"""A TextCNN sentence classifier (Kim, 2014): embeddings, parallel 1-d convolutions with
several window sizes, max-over-time pooling, concatenation and a linear head. The
configuration is a base dict merged with per-experiment overrides. Random token ids stand
in for the corpus."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

BASE = {
    "vocab_size": 500,
    "embed_dim": 50,
    "num_filters": 16,
    "kernel_sizes": (3, 4, 5),
    "num_classes": 2,
    "dropout": 0.5,
    "max_len": 30,
    "batch_size": 10,
}
EXPERIMENT = {"num_filters": 24, "num_classes": 4}


class TextCNN(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_filters, kernel_sizes, num_classes, dropout, **kwargs):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.convs = nn.ModuleList([nn.Conv1d(embed_dim, num_filters, k) for k in kernel_sizes])
        self.dropout = nn.Dropout(dropout)
        self.fc = nn.Linear(num_filters * len(kernel_sizes), num_classes)

    def forward(self, tokens):
        emb = self.embedding(tokens)
        emb = emb.permute(0, 2, 1)
        pooled = []
        for conv in self.convs:
            h = F.relu(conv(emb))
            pooled.append(F.max_pool1d(h, h.size(2)).squeeze(2))
        features = torch.cat(pooled, dim=1)
        return self.fc(self.dropout(features))


def build(overrides):
    cfg = dict(BASE, **overrides)
    model = TextCNN(**cfg)
    data = TensorDataset(
        torch.randint(0, cfg["vocab_size"], (60, cfg["max_len"])), torch.randint(0, cfg["num_classes"], (60,))
    )
    return cfg, model, DataLoader(data, batch_size=cfg["batch_size"], shuffle=True)


def main():
    cfg, model, loader = build(EXPERIMENT)
    optimizer = torch.optim.Adadelta(model.parameters())
    for tokens, labels in loader:
        logits = model(tokens)
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    acc = (logits.argmax(1) == labels).float().mean()
    print(f"last batch accuracy {acc:.2f}")


if __name__ == "__main__":
    main()
