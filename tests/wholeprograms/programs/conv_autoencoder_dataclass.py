"""A convolutional autoencoder for 64x64 RGB images with a dataclass config: strided
convolutions down to a latent vector, transposed convolutions back up, MSE reconstruction
loss. Random images stand in for the dataset."""

from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


@dataclass
class AEConfig:
    in_channels: int = 3
    image_size: int = 64
    base: int = 16
    latent_dim: int = 32
    batch_size: int = 8
    lr: float = 1e-3
    epochs: int = 1


class Images(Dataset):
    def __init__(self, n, cfg):
        self.n = n
        self.shape = (cfg.in_channels, cfg.image_size, cfg.image_size)

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        return torch.rand(self.shape)


class Encoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        c = cfg.base
        self.net = nn.Sequential(
            nn.Conv2d(cfg.in_channels, c, 4, 2, 1), nn.ReLU(),
            nn.Conv2d(c, c * 2, 4, 2, 1), nn.ReLU(),
            nn.Conv2d(c * 2, c * 4, 4, 2, 1), nn.ReLU(),
        )
        self.final = cfg.image_size // 8
        self.fc = nn.Linear(c * 4 * self.final * self.final, cfg.latent_dim)

    def forward(self, x):
        h = self.net(x)
        return self.fc(h.flatten(1))


class Decoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        c = cfg.base
        self.c = c
        self.start = cfg.image_size // 8
        self.fc = nn.Linear(cfg.latent_dim, c * 4 * self.start * self.start)
        self.net = nn.Sequential(
            nn.ConvTranspose2d(c * 4, c * 2, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(c * 2, c, 4, 2, 1), nn.ReLU(),
            nn.ConvTranspose2d(c, cfg.in_channels, 4, 2, 1), nn.Sigmoid(),
        )

    def forward(self, z):
        h = self.fc(z).view(-1, self.c * 4, self.start, self.start)
        return self.net(h)


class AutoEncoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.encoder = Encoder(cfg)
        self.decoder = Decoder(cfg)

    def forward(self, x):
        z = self.encoder(x)
        return self.decoder(z), z


def fit(cfg):
    loader = DataLoader(Images(24, cfg), batch_size=cfg.batch_size, shuffle=True)
    model = AutoEncoder(cfg)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    criterion = nn.MSELoss()
    for epoch in range(cfg.epochs):
        for batch in loader:
            recon, z = model(batch)
            loss = criterion(recon, batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: {loss.item():.4f}, latent {tuple(z.shape)}")


if __name__ == "__main__":
    fit(AEConfig())
