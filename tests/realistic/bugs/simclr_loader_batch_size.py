"""Bug: the loss builds its mask from the loader's batch size, which the smaller last batch does not have (20 images in batches of 8).

Contrastive learning in the SimCLR style: two augmented views per image, a ResNet-like encoder
with a projection head, and the NT-Xent loss built from a similarity matrix with the positives
off the diagonal. The loss reads the batch size from the features, so the smaller last batch
works."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from tensorshape import reveal_shape


class TwoViews(Dataset):
    """Wraps images and returns two noisy views of each (stand-ins for random augmentations)."""

    def __init__(self, images):
        self.images = images

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img = self.images[idx]
        return img + 0.1 * torch.randn_like(img), img.flip(-1)


class Encoder(nn.Module):
    def __init__(self, out_dim=32, width=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1),
            nn.BatchNorm2d(width),
            nn.ReLU(),
            nn.Conv2d(width, width * 2, 3, stride=2, padding=1),
            nn.BatchNorm2d(width * 2),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.projection = nn.Sequential(nn.Linear(width * 2, width * 2), nn.ReLU(), nn.Linear(width * 2, out_dim))

    def forward(self, x):
        h = self.features(x).flatten(1)
        reveal_shape(h)
        z = self.projection(h)
        return h, z


def nt_xent(z1, z2, batch_size, temperature=0.5):
    z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
    reveal_shape(z)
    sim = z @ z.t() / temperature
    reveal_shape(sim)
    mask = torch.eye(2 * batch_size, dtype=torch.bool)
    sim = sim.masked_fill(mask, float("-inf"))  # E: TS102
    targets = torch.cat([torch.arange(batch_size, 2 * batch_size), torch.arange(0, batch_size)])
    reveal_shape(targets)
    return F.cross_entropy(sim, targets)


def train(model, loader, optimizer):
    model.train()
    for x1, x2 in loader:
        _, z1 = model(x1)
        _, z2 = model(x2)
        reveal_shape(z1)
        loss = nt_xent(z1, z2, loader.batch_size)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    images = torch.randn(20, 3, 16, 16)
    loader = DataLoader(TwoViews(images), batch_size=8, shuffle=True)
    model = Encoder()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    train(model, loader, optimizer)
