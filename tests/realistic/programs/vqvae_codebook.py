# exact-at-least: 7
"""A VQ-VAE in the style of the popular single-file re-implementations: a strided conv
encoder with residual stacks, a vector quantiser that finds the nearest codebook entry
with ``torch.cdist`` and ``argmin``, the commitment loss and the straight-through
estimator, ``einops.rearrange`` between image and token layouts, and a transposed-conv
decoder; hyper-parameters from argparse."""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from einops import rearrange

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


class ResidualLayer(nn.Module):
    def __init__(self, in_dim, h_dim, res_h_dim):
        super().__init__()
        self.res_block = nn.Sequential(
            nn.ReLU(True),
            nn.Conv2d(in_dim, res_h_dim, kernel_size=3, stride=1, padding=1, bias=False),
            nn.ReLU(True),
            nn.Conv2d(res_h_dim, h_dim, kernel_size=1, stride=1, bias=False),
        )

    def forward(self, x):
        return x + self.res_block(x)


class ResidualStack(nn.Module):
    def __init__(self, in_dim, h_dim, res_h_dim, n_res_layers):
        super().__init__()
        self.stack = nn.ModuleList([ResidualLayer(in_dim, h_dim, res_h_dim)] * n_res_layers)

    def forward(self, x):
        for layer in self.stack:
            x = layer(x)
        return F.relu(x)


class Encoder(nn.Module):
    def __init__(self, in_dim, h_dim, n_res_layers, res_h_dim):
        super().__init__()
        kernel, stride = 4, 2
        self.conv_stack = nn.Sequential(
            nn.Conv2d(in_dim, h_dim // 2, kernel_size=kernel, stride=stride, padding=1),
            nn.ReLU(),
            nn.Conv2d(h_dim // 2, h_dim, kernel_size=kernel, stride=stride, padding=1),
            nn.ReLU(),
            nn.Conv2d(h_dim, h_dim, kernel_size=kernel - 1, stride=stride - 1, padding=1),
            ResidualStack(h_dim, h_dim, res_h_dim, n_res_layers),
        )

    def forward(self, x):
        return self.conv_stack(x)


class Decoder(nn.Module):
    def __init__(self, in_dim, h_dim, n_res_layers, res_h_dim, out_channels=3):
        super().__init__()
        kernel, stride = 4, 2
        self.inverse_conv_stack = nn.Sequential(
            nn.ConvTranspose2d(in_dim, h_dim, kernel_size=kernel - 1, stride=stride - 1, padding=1),
            ResidualStack(h_dim, h_dim, res_h_dim, n_res_layers),
            nn.ConvTranspose2d(h_dim, h_dim // 2, kernel_size=kernel, stride=stride, padding=1),
            nn.ReLU(),
            nn.ConvTranspose2d(h_dim // 2, out_channels, kernel_size=kernel, stride=stride, padding=1),
        )

    def forward(self, x):
        return self.inverse_conv_stack(x)


class VectorQuantizer(nn.Module):
    def __init__(self, n_e, e_dim, beta):
        super().__init__()
        self.n_e = n_e
        self.e_dim = e_dim
        self.beta = beta
        self.embedding = nn.Embedding(self.n_e, self.e_dim)
        self.embedding.weight.data.uniform_(-1.0 / self.n_e, 1.0 / self.n_e)

    def forward(self, z):
        b, c, h, w = z.shape
        z_flattened = rearrange(z, "b c h w -> (b h w) c")
        reveal_shape(z_flattened)
        d = torch.cdist(z_flattened, self.embedding.weight)
        reveal_shape(d)
        min_encoding_indices = torch.argmin(d, dim=1)
        reveal_shape(min_encoding_indices)
        z_q = self.embedding(min_encoding_indices)
        z_q = rearrange(z_q, "(b h w) c -> b c h w", b=b, h=h, w=w)
        reveal_shape(z_q)
        loss = torch.mean((z_q.detach() - z) ** 2) + self.beta * torch.mean((z_q - z.detach()) ** 2)
        # the straight-through estimator: gradients of z_q flow to z
        z_q = z + (z_q - z).detach()
        min_encodings = F.one_hot(min_encoding_indices, self.n_e).float()
        e_mean = torch.mean(min_encodings, dim=0)
        perplexity = torch.exp(-torch.sum(e_mean * torch.log(e_mean + 1e-10)))
        return loss, z_q, perplexity, min_encoding_indices.view(b, h, w)


class VQVAE(nn.Module):
    def __init__(self, h_dim, res_h_dim, n_res_layers, n_embeddings, embedding_dim, beta):
        super().__init__()
        self.encoder = Encoder(3, h_dim, n_res_layers, res_h_dim)
        self.pre_quantization_conv = nn.Conv2d(h_dim, embedding_dim, kernel_size=1, stride=1)
        self.vector_quantization = VectorQuantizer(n_embeddings, embedding_dim, beta)
        self.decoder = Decoder(embedding_dim, h_dim, n_res_layers, res_h_dim)

    def forward(self, x):
        z_e = self.encoder(x)
        reveal_shape(z_e)
        z_e = self.pre_quantization_conv(z_e)
        embedding_loss, z_q, perplexity, codes = self.vector_quantization(z_e)
        reveal_shape(codes)
        x_hat = self.decoder(z_q)
        reveal_shape(x_hat)
        return embedding_loss, x_hat, perplexity


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=4)
    parser.add_argument("--n_hiddens", type=int, default=32)
    parser.add_argument("--n_residual_hiddens", type=int, default=8)
    parser.add_argument("--n_residual_layers", type=int, default=2)
    parser.add_argument("--embedding_dim", type=int, default=16)
    parser.add_argument("--n_embeddings", type=int, default=64)
    parser.add_argument("--beta", type=float, default=0.25)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = VQVAE(
        args.n_hiddens,
        args.n_residual_hiddens,
        args.n_residual_layers,
        args.n_embeddings,
        args.embedding_dim,
        args.beta,
    )
    x = torch.randn(args.batch_size, 3, 32, 32)
    embedding_loss, x_hat, perplexity = model(x)
    recon_loss = torch.mean((x_hat - x) ** 2)
    loss = recon_loss + embedding_loss
    loss.backward()
    print(loss.item(), perplexity.item())


if __name__ == "__main__":
    main()
