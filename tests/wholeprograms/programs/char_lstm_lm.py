"""A character-level LSTM language model: a text corpus turned into ids, a Dataset of
(input, next-character target) windows, a two-layer LSTM trained with truncated windows,
then text sampled from it one character at a time with `torch.multinomial`. A generated
string stands in for the corpus (tiny-shakespeare in the original)."""

import argparse
import random

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class CharDataset(Dataset):
    def __init__(self, text, seq_len):
        chars = sorted(set(text))
        self.stoi = {ch: i for i, ch in enumerate(chars)}
        self.itos = {i: ch for ch, i in self.stoi.items()}
        self.vocab_size = len(chars)
        self.seq_len = seq_len
        self.data = torch.tensor([self.stoi[c] for c in text], dtype=torch.long)

    def __len__(self):
        return len(self.data) - self.seq_len - 1

    def __getitem__(self, idx):
        chunk = self.data[idx : idx + self.seq_len + 1]
        return chunk[:-1], chunk[1:]


class CharLSTM(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_size, num_layers, dropout=0.1):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.embed = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_size, num_layers, batch_first=True, dropout=dropout)
        self.head = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, state=None):
        out, state = self.lstm(self.embed(x), state)
        return self.head(out), state

    def init_state(self, batch_size):
        h = torch.zeros(self.num_layers, batch_size, self.hidden_size)
        c = torch.zeros(self.num_layers, batch_size, self.hidden_size)
        return h, c


@torch.no_grad()
def sample(model, dataset, prompt, length, temperature=1.0):
    model.eval()
    ids = torch.tensor([[dataset.stoi[c] for c in prompt]], dtype=torch.long)
    state = model.init_state(1)
    logits, state = model(ids, state)
    out = list(prompt)
    for _ in range(length):
        probs = torch.softmax(logits[:, -1, :] / temperature, dim=-1)
        next_id = torch.multinomial(probs, num_samples=1)
        out.append(dataset.itos[next_id.item()])
        logits, state = model(next_id, state)
    return "".join(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seq-len", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--embed-dim", type=int, default=24)
    parser.add_argument("--hidden-size", type=int, default=48)
    parser.add_argument("--num-layers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()

    random.seed(0)
    text = "".join(random.choice("abcdefgh ijklmnop\n") for _ in range(400))
    dataset = CharDataset(text, args.seq_len)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, drop_last=True)
    model = CharLSTM(dataset.vocab_size, args.embed_dim, args.hidden_size, args.num_layers)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    criterion = nn.CrossEntropyLoss()

    model.train()
    for step, (x, y) in enumerate(loader):
        logits, _ = model(x)
        loss = criterion(logits.view(-1, dataset.vocab_size), y.view(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        if step + 1 == args.steps:
            break
    print(f"loss {loss.item():.3f}")
    print(sample(model, dataset, "abc", 20))


if __name__ == "__main__":
    main()
