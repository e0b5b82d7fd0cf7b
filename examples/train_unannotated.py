"""A small training loop written without any shape annotation (what `tensorshape annotate` is for).

Run it under the tracer and write the annotations:

    tensorshape annotate --trace --write -- python examples/train_unannotated.py
"""

import torch
import torch.nn.functional as F
from torch import nn


class Classifier(nn.Module):
    def __init__(self, d_in=12, hidden=32, n_classes=5):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, n_classes)

    def features(self, x):
        return self.body(x)

    def forward(self, x):
        return self.head(self.features(x))


def loss_fn(logits, labels):
    return F.cross_entropy(logits, labels)


def accuracy(logits, labels):
    return (logits.argmax(dim=-1) == labels).float().mean()


def train_step(model, opt, x, labels):
    opt.zero_grad()
    logits = model(x)
    loss = loss_fn(logits, labels)
    loss.backward()
    opt.step()
    return loss, accuracy(logits, labels)


def demo():
    torch.manual_seed(0)
    model = Classifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for batch in (16, 8, 4):
        x = torch.randn(batch, 12)
        labels = torch.randint(0, 5, (batch,))
        train_step(model, opt, x, labels)


if __name__ == "__main__":
    demo()
