"""A character-level LSTM language model configured with a SimpleNamespace, trained on
fixed-length windows of a text corpus with a Dataset that returns (input, target) pairs
shifted by one character. A random corpus stands in for the text."""

from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

config = SimpleNamespace(
    vocab_size=65,
    seq_len=32,
    embed_dim=48,
    hidden_size=96,
    num_layers=2,
    dropout=0.1,
    batch_size=8,
    lr=2e-3,
    steps=6,
)


class CharDataset(Dataset):
    def __init__(self, data, seq_len):
        self.data = data
        self.seq_len = seq_len

    def __len__(self):
        return len(self.data) - self.seq_len

    def __getitem__(self, i):
        chunk = self.data[i : i + self.seq_len + 1]
        return chunk[:-1], chunk[1:]


class CharRNN(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg.vocab_size, cfg.embed_dim)
        self.lstm = nn.LSTM(cfg.embed_dim, cfg.hidden_size, cfg.num_layers, dropout=cfg.dropout, batch_first=True)
        self.head = nn.Linear(cfg.hidden_size, cfg.vocab_size)

    def forward(self, idx, state=None):
        x = self.embed(idx)
        out, state = self.lstm(x, state)
        logits = self.head(out)
        return logits, state


@torch.no_grad()
def sample(model, start, length):
    model.eval()
    idx = torch.tensor([[start]])
    state = None
    chars = [start]
    for _ in range(length):
        logits, state = model(idx, state)
        probs = F.softmax(logits[:, -1, :], dim=-1)
        idx = torch.multinomial(probs, num_samples=1)
        chars.append(idx.item())
    return chars


def main(cfg):
    corpus = torch.randint(0, cfg.vocab_size, (400,))
    loader = DataLoader(CharDataset(corpus, cfg.seq_len), batch_size=cfg.batch_size, shuffle=True, drop_last=True)
    model = CharRNN(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    step = 0
    for x, y in loader:
        logits, _ = model(x)
        loss = F.cross_entropy(logits.view(-1, cfg.vocab_size), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        if step >= cfg.steps:
            break
    print(sample(model, 0, 20))


if __name__ == "__main__":
    main(config)
