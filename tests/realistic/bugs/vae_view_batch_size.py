"""Bug: the encoder flattens with the batch size from the options, which the last batch does not have (40 images, batches of 16).

A fully connected VAE on MNIST-sized images, in the shape of the classic PyTorch example:
argparse options, a reparameterised encoder, the loss summed over the batch. Random images stand
in for the dataset."""

import argparse

import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F

from tensorshape import reveal_shape

parser = argparse.ArgumentParser(description="VAE MNIST Example")
parser.add_argument("--batch-size", type=int, default=16, metavar="N", help="input batch size for training")
parser.add_argument("--epochs", type=int, default=1, metavar="N", help="number of epochs to train")
parser.add_argument("--latent", type=int, default=20, help="size of the latent code")
args = parser.parse_args()

torch.manual_seed(1)

data = torch.rand(40, 1, 28, 28)
targets = torch.randint(0, 10, (40,))
train_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(data, targets), batch_size=args.batch_size, shuffle=True
)


class VAE(nn.Module):
    def __init__(self, latent=20):
        super(VAE, self).__init__()

        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, latent)
        self.fc22 = nn.Linear(400, latent)
        self.fc3 = nn.Linear(latent, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(args.batch_size, 784))  # E: TS120
        reveal_shape(mu)
        z = self.reparameterize(mu, logvar)
        reveal_shape(z)
        return self.decode(z), mu, logvar


model = VAE(args.latent)
optimizer = optim.Adam(model.parameters(), lr=1e-3)


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def train(epoch):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        reveal_shape(data)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        reveal_shape(recon_batch)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    return train_loss / len(train_loader.dataset)


if __name__ == "__main__":
    for epoch in range(1, args.epochs + 1):
        train(epoch)
        with torch.no_grad():
            sample = torch.randn(8, args.latent)
            sample = model.decode(sample)
            reveal_shape(sample)
            images = sample.view(8, 1, 28, 28)
            reveal_shape(images)
