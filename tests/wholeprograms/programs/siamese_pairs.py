"""A siamese network for pair similarity on 1x32x32 patches with a contrastive loss: a
shared convolutional tower, an embedding head whose width is derived from the config by
integer division, pairs drawn by a Dataset. Random patches stand in for the data."""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


def get_args():
    p = argparse.ArgumentParser(description="siamese network")
    p.add_argument("--batch-size", type=int, default=12)
    p.add_argument("--embedding", type=int, default=64)
    p.add_argument("--heads", type=int, default=2)
    p.add_argument("--margin", type=float, default=1.0)
    p.add_argument("--pairs", type=int, default=48)
    return p.parse_args()


class PairDataset(Dataset):
    def __init__(self, patches, labels, n_pairs):
        self.patches = patches
        self.labels = labels
        self.n_pairs = n_pairs

    def __len__(self):
        return self.n_pairs

    def __getitem__(self, i):
        a = i % len(self.patches)
        b = (i * 7 + 3) % len(self.patches)
        same = float(self.labels[a] == self.labels[b])
        return self.patches[a], self.patches[b], torch.tensor(same)


class Tower(nn.Module):
    def __init__(self, embedding, heads):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
            nn.AdaptiveAvgPool2d((4, 4)),
        )
        per_head = int(embedding / heads)
        self.heads = nn.ModuleList([nn.Linear(64 * 4 * 4, per_head) for _ in range(heads)])

    def forward(self, x):
        f = self.features(x).flatten(1)
        return torch.cat([h(f) for h in self.heads], dim=1)


def contrastive_loss(e1, e2, same, margin):
    d = F.pairwise_distance(e1, e2)
    return (same * d.pow(2) + (1 - same) * F.relu(margin - d).pow(2)).mean()


def main():
    args = get_args()
    patches = torch.randn(30, 1, 32, 32)
    labels = torch.randint(0, 5, (30,))
    loader = DataLoader(PairDataset(patches, labels, args.pairs), batch_size=args.batch_size, shuffle=True)
    tower = Tower(args.embedding, args.heads)
    optimizer = torch.optim.Adam(tower.parameters(), lr=1e-3)
    for x1, x2, same in loader:
        e1, e2 = tower(x1), tower(x2)
        loss = contrastive_loss(e1, e2, same, args.margin)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(loss.item(), e1.shape)


if __name__ == "__main__":
    main()
