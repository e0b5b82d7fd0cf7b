"""A bidirectional GRU part-of-speech tagger over variable-length sentences: a Dataset of
(token ids, tag ids) pairs, a collate_fn that pads them with pad_sequence, a per-token
classifier and a loss that ignores the padding. Random sentences stand in for the corpus."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset

PAD = 0
VOCAB, TAGS = 300, 12


class Sentences(Dataset):
    def __init__(self, n, min_len=3, max_len=15):
        g = torch.Generator().manual_seed(0)
        lengths = torch.randint(min_len, max_len + 1, (n,), generator=g)
        self.items = [
            (torch.randint(1, VOCAB, (int(l),), generator=g), torch.randint(0, TAGS, (int(l),), generator=g))
            for l in lengths
        ]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    tokens, tags = zip(*batch)
    tokens = pad_sequence(tokens, batch_first=True, padding_value=PAD)
    tags = pad_sequence(tags, batch_first=True, padding_value=-100)
    return tokens, tags


class Tagger(nn.Module):
    def __init__(self, vocab_size, num_tags, emb_dim=32, hidden=48):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, emb_dim, padding_idx=PAD)
        self.rnn = nn.GRU(emb_dim, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, num_tags)

    def forward(self, tokens):
        h, _ = self.rnn(self.emb(tokens))
        return self.out(h)


def train(model, loader, epochs=1):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(epochs):
        for tokens, tags in loader:
            logits = model(tokens)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tags.reshape(-1), ignore_index=-100)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return loss.item()


if __name__ == "__main__":
    loader = DataLoader(Sentences(40), batch_size=8, shuffle=True, collate_fn=collate)
    model = Tagger(VOCAB, TAGS)
    print(train(model, loader))
