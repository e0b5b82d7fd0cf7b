"""A variational autoencoder on MNIST-sized digits, as the PyTorch examples write it: options
from argparse, an encoder to a mean and a log-variance, the reparameterisation trick, a
decoder back to pixels, a reconstruction + KL loss, and samples decoded from the prior after
each epoch. Random images stand in for the dataset."""

import argparse

import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset


class VAE(nn.Module):
    def __init__(self, hidden=400, latent=20):
        super().__init__()
        self.encoder = nn.Sequential(nn.Flatten(), nn.Linear(784, hidden), nn.ReLU())
        self.to_stats = nn.Linear(hidden, 2 * latent)
        self.decoder = nn.Sequential(
            nn.Linear(latent, hidden),
            nn.ReLU(),
            nn.Linear(hidden, 784),
            nn.Sigmoid(),
        )

    def encode(self, x):
        mu, logvar = self.to_stats(self.encoder(x)).chunk(2, dim=-1)
        return mu, logvar

    def reparameterize(self, mu, logvar):
        std = (0.5 * logvar).exp()
        return mu + torch.randn_like(std) * std

    def decode(self, z):
        return self.decoder(z)

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


# Reconstruction + KL divergence losses summed over all elements and batch
def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def train(epoch, model, optimizer, train_loader, args):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print(f"Train Epoch: {epoch} [{batch_idx * len(data)}/{len(train_loader.dataset)}]\tLoss: {loss.item() / len(data):.6f}")
    print(f"====> Epoch: {epoch} Average loss: {train_loss / len(train_loader.dataset):.4f}")


def test(model, test_loader):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for i, (data, _) in enumerate(test_loader):
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()
            if i == 0:
                n = min(data.size(0), 8)
                comparison = torch.cat([data[:n], recon_batch.view(-1, 1, 28, 28)[:n]])
    test_loss /= len(test_loader.dataset)
    print(f"====> Test set loss: {test_loss:.4f} ({comparison.shape[0]} images compared)")


def main():
    parser = argparse.ArgumentParser(description="VAE MNIST Example")
    parser.add_argument("--batch-size", type=int, default=32, metavar="N", help="input batch size for training")
    parser.add_argument("--epochs", type=int, default=1, metavar="N", help="number of epochs to train")
    parser.add_argument("--hidden", type=int, default=64, help="width of the hidden layers")
    parser.add_argument("--latent", type=int, default=8, help="size of the latent code")
    parser.add_argument("--seed", type=int, default=1, metavar="S", help="random seed")
    parser.add_argument("--log-interval", type=int, default=2, metavar="N", help="batches between logs")
    args = parser.parse_args()
    torch.manual_seed(args.seed)

    images = torch.rand(100, 1, 28, 28)
    labels = torch.randint(0, 10, (100,))
    train_loader = DataLoader(TensorDataset(images[:80], labels[:80]), batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(TensorDataset(images[80:], labels[80:]), batch_size=args.batch_size, shuffle=False)

    model = VAE(args.hidden, args.latent)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(1, args.epochs + 1):
        train(epoch, model, optimizer, train_loader, args)
        test(model, test_loader)
        with torch.no_grad():
            sample = torch.randn(16, args.latent)
            sample = model.decode(sample).cpu()
            grid = sample.view(16, 1, 28, 28)
            print(grid.shape)


if __name__ == "__main__":
    main()
