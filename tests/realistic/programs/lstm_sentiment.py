# exact-at-least: 5
"""An LSTM text classifier as tutorials and course notebooks write it: a vocabulary built from a
tiny corpus, padded batches with a collate function, a bidirectional batch_first LSTM, and the
last hidden states of both directions concatenated for the classifier."""

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset

from tensorshape import reveal_shape

CORPUS = [
    ("a great film with a great cast", 1),
    ("boring and far too long", 0),
    ("i loved every minute of it", 1),
    ("the plot makes no sense", 0),
    ("wonderful acting and a moving story", 1),
    ("not worth the ticket", 0),
]

PAD, UNK = 0, 1


def build_vocab(texts):
    vocab = {"<pad>": PAD, "<unk>": UNK}
    for text in texts:
        for word in text.split():
            vocab.setdefault(word, len(vocab))
    return vocab


class ReviewDataset(Dataset):
    def __init__(self, items, vocab):
        self.items = items
        self.vocab = vocab

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        text, label = self.items[idx]
        ids = torch.tensor([self.vocab.get(w, UNK) for w in text.split()], dtype=torch.long)
        return ids, label


def collate(batch):
    seqs, labels = zip(*batch)
    padded = pad_sequence(seqs, batch_first=True, padding_value=PAD)
    return padded, torch.tensor(labels)


class SentimentLSTM(nn.Module):
    def __init__(self, vocab_size, embed_dim=32, hidden_dim=24, num_layers=2, num_classes=2, dropout=0.1):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=PAD)
        self.lstm = nn.LSTM(
            embed_dim, hidden_dim, num_layers=num_layers, batch_first=True, bidirectional=True, dropout=dropout
        )
        self.dropout = nn.Dropout(dropout)
        self.fc = nn.Linear(hidden_dim * 2, num_classes)

    def forward(self, text):
        embedded = self.dropout(self.embedding(text))
        reveal_shape(embedded)
        output, (hidden, cell) = self.lstm(embedded)
        reveal_shape(output)
        reveal_shape(hidden)
        hidden = self.dropout(torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1))
        reveal_shape(hidden)
        return self.fc(hidden)


def main():
    vocab = build_vocab(t for t, _ in CORPUS)
    loader = DataLoader(ReviewDataset(CORPUS, vocab), batch_size=4, shuffle=True, collate_fn=collate)
    model = SentimentLSTM(len(vocab))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    model.train()
    for text, labels in loader:
        optimizer.zero_grad()
        logits = model(text)
        reveal_shape(logits)
        loss = criterion(logits, labels)
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
