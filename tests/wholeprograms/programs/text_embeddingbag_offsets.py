"""A news-headline classifier in the style of the torchtext AG_NEWS tutorial: a vocabulary
built from the training text, a collate_fn that concatenates each batch's token ids into one
flat tensor with the offsets where each text starts, an `nn.EmbeddingBag` that averages each
text's embeddings, and a linear head.  Random headlines stand in for the corpus."""

import argparse
import random
from collections import Counter

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, random_split

WORDS = "stocks rally market falls team wins cup election vote new phone launch storm hits coast".split()
CLASSES = ["world", "sports", "business", "scitech"]


def make_corpus(n, seed=0):
    rng = random.Random(seed)
    return [(rng.randrange(len(CLASSES)), " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))) for _ in range(n)]


def tokenize(text):
    return text.lower().split()


class Vocab:
    def __init__(self, texts, min_freq=1, specials=("<unk>",)):
        counts = Counter(tok for t in texts for tok in tokenize(t))
        self.itos = list(specials) + sorted(w for w, c in counts.items() if c >= min_freq)
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def __call__(self, tokens):
        return [self.stoi.get(t, 0) for t in tokens]


class Headlines(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


def make_collate(vocab):
    def collate(batch):
        labels, ids, offsets = [], [], [0]
        for label, text in batch:
            labels.append(label)
            tokens = torch.tensor(vocab(tokenize(text)), dtype=torch.int64)
            ids.append(tokens)
            offsets.append(tokens.size(0))
        labels = torch.tensor(labels, dtype=torch.int64)
        offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
        ids = torch.cat(ids)
        return labels, ids, offsets

    return collate


class TextClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, mode="mean")
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for labels, ids, offsets in loader:
            logits = model(ids, offsets)
            correct += (logits.argmax(1) == labels).sum().item()
            total += labels.size(0)
    return correct / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--embed-dim", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=5.0)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()

    rows = make_corpus(120)
    vocab = Vocab(text for _, text in rows)
    dataset = Headlines(rows)
    n_train = int(len(dataset) * 0.8)
    train_set, valid_set = random_split(dataset, [n_train, len(dataset) - n_train])
    collate = make_collate(vocab)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, collate_fn=collate)
    valid_loader = DataLoader(valid_set, batch_size=args.batch_size, collate_fn=collate)

    model = TextClassifier(len(vocab), args.embed_dim, len(CLASSES))
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        model.train()
        for labels, ids, offsets in train_loader:
            optimizer.zero_grad()
            logits = model(ids, offsets)
            loss = criterion(logits, labels)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
            optimizer.step()
        print(f"epoch {epoch}: valid accuracy {evaluate(model, valid_loader):.3f}")


if __name__ == "__main__":
    main()
