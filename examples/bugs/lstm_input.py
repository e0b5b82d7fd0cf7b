"""Bug: an LSTM built for 32 input features, fed 64."""

import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(1000, 64)
        self.lstm = nn.LSTM(32, 128, batch_first=True)
        self.out = nn.Linear(128, 5)

    def forward(self, tokens):
        h, _ = self.lstm(self.embed(tokens))  # E: TS101
        return self.out(h)


def demo():
    Tagger()(torch.randint(0, 1000, (2, 7)))
