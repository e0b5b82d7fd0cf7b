# exact-at-least: 3
"""DCGAN as in the PyTorch examples: a generator of transposed convolutions from a latent vector
``(nz, 1, 1)`` to a 3x32x32 image, a discriminator of strided convolutions to one logit, weights
initialised with ``apply``, options from argparse, and one training step of each (BCE on real and
fake batches, ``fake.detach()`` for the discriminator)."""

import argparse

import torch
import torch.nn as nn
import torch.optim as optim

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


parser = argparse.ArgumentParser()
parser.add_argument("--batchSize", type=int, default=4)
parser.add_argument("--nz", type=int, default=16)
parser.add_argument("--ngf", type=int, default=8)
parser.add_argument("--ndf", type=int, default=8)
parser.add_argument("--nc", type=int, default=3)
parser.add_argument("--lr", type=float, default=0.0002)


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


class Generator(nn.Module):
    def __init__(self, nz, ngf, nc):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self, nc, ndf):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 4),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 4, 1, 4, 1, 0, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, input):
        output = self.main(input)
        reveal_shape(output)
        return output.view(-1, 1).squeeze(1)


def main():
    opt = parser.parse_args()
    torch.manual_seed(0)
    netG = Generator(opt.nz, opt.ngf, opt.nc)
    netG.apply(weights_init)
    netD = Discriminator(opt.nc, opt.ndf)
    netD.apply(weights_init)
    criterion = nn.BCELoss()
    optimizerD = optim.Adam(netD.parameters(), lr=opt.lr, betas=(0.5, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=opt.lr, betas=(0.5, 0.999))

    real_cpu = torch.rand(opt.batchSize, opt.nc, 32, 32) * 2 - 1
    batch_size = real_cpu.size(0)
    label = torch.full((batch_size,), 1.0)

    netD.zero_grad()
    output = netD(real_cpu)
    reveal_shape(output)
    errD_real = criterion(output, label)
    errD_real.backward()

    noise = torch.randn(batch_size, opt.nz, 1, 1)
    fake = netG(noise)
    reveal_shape(fake)
    label.fill_(0.0)
    output = netD(fake.detach())
    errD_fake = criterion(output, label)
    errD_fake.backward()
    optimizerD.step()

    netG.zero_grad()
    label.fill_(1.0)
    output = netD(fake)
    errG = criterion(output, label)
    errG.backward()
    optimizerG.step()
    print(fake.shape, errD_real.item() + errD_fake.item(), errG.item())


if __name__ == "__main__":
    main()
