"""SimCLR-style contrastive pre-training as its many small re-implementations write it: a dataset
that returns two random augmentations of each image, a small convolutional encoder whose pooled
features feed a two-layer projection head, the NT-Xent loss over the 2N projections (cosine
similarities, the diagonal masked out, each view's positive the other view of its image), Adam, and
a linear-probe evaluation on the frozen features.  Options come from argparse; random 32x32 images
stand in for the unlabeled data."""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, TensorDataset


class ContrastiveTransformations:
    def __init__(self, size=32, n_views=2):
        self.size = size
        self.n_views = n_views

    def augment(self, x):
        # random resized crop (a crop of the padded image), flip, colour jitter
        padded = F.pad(x, (4, 4, 4, 4), mode="reflect")
        i, j = torch.randint(0, 9, (2,)).tolist()
        x = padded[:, i : i + self.size, j : j + self.size]
        if torch.rand(1) < 0.5:
            x = torch.flip(x, dims=[2])
        brightness = 1.0 + 0.4 * (torch.rand(1) - 0.5)
        return (x * brightness).clamp(0, 1)

    def __call__(self, x):
        return [self.augment(x) for _ in range(self.n_views)]


class UnlabeledImages(Dataset):
    def __init__(self, images, transform):
        self.images = images
        self.transform = transform

    def __len__(self):
        return self.images.shape[0]

    def __getitem__(self, idx):
        return self.transform(self.images[idx])


class Encoder(nn.Module):
    def __init__(self, in_channels=3, base=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, base, 3, padding=1),
            nn.BatchNorm2d(base),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(base, base * 2, 3, padding=1),
            nn.BatchNorm2d(base * 2),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(2),
            nn.Conv2d(base * 2, base * 4, 3, padding=1),
            nn.BatchNorm2d(base * 4),
            nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.out_dim = base * 4

    def forward(self, x):
        return torch.flatten(self.features(x), 1)


class SimCLR(nn.Module):
    def __init__(self, encoder, projection_dim=32):
        super().__init__()
        self.encoder = encoder
        n_features = encoder.out_dim
        self.projector = nn.Sequential(
            nn.Linear(n_features, n_features, bias=False),
            nn.ReLU(),
            nn.Linear(n_features, projection_dim, bias=False),
        )

    def forward(self, x_i, x_j):
        h_i = self.encoder(x_i)
        h_j = self.encoder(x_j)
        z_i = self.projector(h_i)
        z_j = self.projector(h_j)
        return h_i, h_j, z_i, z_j


def nt_xent(z_i, z_j, temperature):
    batch_size = z_i.shape[0]
    z = torch.cat([z_i, z_j], dim=0)
    z = F.normalize(z, dim=1)
    sim = torch.matmul(z, z.T) / temperature
    mask = torch.eye(2 * batch_size, dtype=torch.bool)
    sim = sim.masked_fill(mask, float("-inf"))
    targets = torch.cat([torch.arange(batch_size, 2 * batch_size), torch.arange(0, batch_size)])
    return F.cross_entropy(sim, targets)


def train_epoch(model, loader, optimizer, args):
    model.train()
    total = 0.0
    for step, (x_i, x_j) in enumerate(loader):
        optimizer.zero_grad()
        h_i, h_j, z_i, z_j = model(x_i, x_j)
        loss = nt_xent(z_i, z_j, args.temperature)
        loss.backward()
        optimizer.step()
        total += loss.item()
        if step % args.log_every == 0:
            print(f"step {step} loss {loss.item():.4f}")
    return total / len(loader)


@torch.no_grad()
def extract_features(encoder, loader):
    encoder.eval()
    feats, labels = [], []
    for x, y in loader:
        feats.append(encoder(x))
        labels.append(y)
    return torch.cat(feats), torch.cat(labels)


def linear_probe(train_feats, train_labels, num_classes, epochs=20):
    clf = nn.Linear(train_feats.size(1), num_classes)
    opt = torch.optim.SGD(clf.parameters(), lr=0.1)
    for _ in range(epochs):
        logits = clf(train_feats)
        loss = F.cross_entropy(logits, train_labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    acc = (clf(train_feats).argmax(dim=1) == train_labels).float().mean()
    return acc.item()


def main():
    parser = argparse.ArgumentParser(description="SimCLR")
    parser.add_argument("--batch_size", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--temperature", type=float, default=0.5)
    parser.add_argument("--projection_dim", type=int, default=32)
    parser.add_argument("--n_images", type=int, default=40)
    parser.add_argument("--log_every", type=int, default=2)
    args = parser.parse_args()

    torch.manual_seed(0)
    images = torch.rand(args.n_images, 3, 32, 32)
    train_set = UnlabeledImages(images, ContrastiveTransformations(size=32))
    loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, drop_last=False)

    model = SimCLR(Encoder(), projection_dim=args.projection_dim)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        loss = train_epoch(model, loader, optimizer, args)
        print(f"epoch {epoch}: {loss:.4f}")

    labels = torch.randint(0, 10, (args.n_images,))
    probe_loader = DataLoader(TensorDataset(images, labels), batch_size=64)
    feats, ys = extract_features(model.encoder, probe_loader)
    print("linear probe accuracy", linear_probe(feats, ys, num_classes=10))


if __name__ == "__main__":
    main()
