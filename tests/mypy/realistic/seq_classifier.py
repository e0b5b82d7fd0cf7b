"""An LSTM text classifier: the classifier is sized for a unidirectional LSTM, the LSTM is bidirectional."""

import torch
import torch.nn as nn


class TextClassifier(nn.Module):
    def __init__(self, vocab_size=1000, embed_dim=50, hidden_dim=64, num_classes=4):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(hidden_dim, num_classes)

    def forward(self, tokens):
        emb = self.embedding(tokens)
        out, _ = self.lstm(emb)
        return self.fc(out[:, -1, :])  # E: TS101


if __name__ == "__main__":
    model = TextClassifier()
    print(model(torch.randint(0, 1000, (8, 12))).shape)
