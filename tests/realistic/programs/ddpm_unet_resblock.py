# exact-at-least: 6
"""A small DDPM noise-prediction UNet in the style of the diffusion reference code: sinusoidal
timestep embeddings (``half = dim // 2``, ``exp`` of an ``arange``, ``cat`` of sin and cos), an MLP
on them, residual blocks with GroupNorm and SiLU that add the projected time embedding as
``emb[:, :, None, None]``, a 1x1 skip convolution where the channel count changes, a single-head
spatial self-attention block (``reshape`` to ``b c (h w)``, ``bmm``), down-sampling by a strided
conv, up-sampling by ``F.interpolate`` and skip connections concatenated on the channel axis.
Channel multipliers come from a tuple in a config dict; no annotations."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


CONFIG = {
    "in_channels": 3,
    "base_channels": 16,
    "channel_mult": (1, 2),
    "time_dim": 64,
    "groups": 8,
}


def timestep_embedding(timesteps, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32) / half)
    args = timesteps[:, None].float() * freqs[None]
    embedding = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
    if dim % 2:
        embedding = torch.cat([embedding, torch.zeros_like(embedding[:, :1])], dim=-1)
    return embedding


class ResBlock(nn.Module):
    def __init__(self, in_ch, out_ch, time_dim, groups=8, dropout=0.0):
        super().__init__()
        self.norm1 = nn.GroupNorm(groups, in_ch)
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, padding=1)
        self.time_proj = nn.Linear(time_dim, out_ch)
        self.norm2 = nn.GroupNorm(groups, out_ch)
        self.dropout = nn.Dropout(dropout)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, padding=1)
        if in_ch != out_ch:
            self.skip = nn.Conv2d(in_ch, out_ch, 1)
        else:
            self.skip = nn.Identity()

    def forward(self, x, emb):
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.time_proj(F.silu(emb))[:, :, None, None]
        h = self.conv2(self.dropout(F.silu(self.norm2(h))))
        return h + self.skip(x)


class AttentionBlock(nn.Module):
    def __init__(self, channels, groups=8):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels)
        self.qkv = nn.Conv2d(channels, channels * 3, 1)
        self.proj = nn.Conv2d(channels, channels, 1)

    def forward(self, x):
        b, c, h, w = x.shape
        q, k, v = self.qkv(self.norm(x)).reshape(b, 3, c, h * w).unbind(1)
        attn = torch.bmm(q.transpose(1, 2), k) / math.sqrt(c)
        attn = attn.softmax(dim=-1)
        reveal_shape(attn)
        out = torch.bmm(v, attn.transpose(1, 2)).reshape(b, c, h, w)
        return x + self.proj(out)


class Downsample(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.op = nn.Conv2d(channels, channels, 3, stride=2, padding=1)

    def forward(self, x):
        return self.op(x)


class Upsample(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        x = F.interpolate(x, scale_factor=2, mode="nearest")
        return self.conv(x)


class UNet(nn.Module):
    def __init__(self, config):
        super().__init__()
        ch = config["base_channels"]
        time_dim = config["time_dim"]
        groups = config["groups"]
        self.base_channels = ch
        self.time_mlp = nn.Sequential(nn.Linear(ch, time_dim), nn.SiLU(), nn.Linear(time_dim, time_dim))
        self.inp = nn.Conv2d(config["in_channels"], ch, 3, padding=1)
        self.down_blocks = nn.ModuleList()
        self.downsamples = nn.ModuleList()
        chans = [ch]
        cur = ch
        for mult in config["channel_mult"]:
            out = ch * mult
            self.down_blocks.append(ResBlock(cur, out, time_dim, groups))
            self.downsamples.append(Downsample(out))
            chans.append(out)
            cur = out
        self.mid = ResBlock(cur, cur, time_dim, groups)
        self.mid_attn = AttentionBlock(cur, groups)
        self.up_blocks = nn.ModuleList()
        self.upsamples = nn.ModuleList()
        for mult in reversed(config["channel_mult"]):
            out = ch * mult
            self.upsamples.append(Upsample(cur))
            self.up_blocks.append(ResBlock(cur + chans.pop(), out, time_dim, groups))
            cur = out
        self.out_norm = nn.GroupNorm(groups, cur)
        self.out = nn.Conv2d(cur, config["in_channels"], 3, padding=1)

    def forward(self, x, timesteps):
        emb = self.time_mlp(timestep_embedding(timesteps, self.base_channels))
        reveal_shape(emb)
        h = self.inp(x)
        skips = []
        for block, down in zip(self.down_blocks, self.downsamples):
            h = block(h, emb)
            skips.append(h)
            h = down(h)
        reveal_shape(h)
        h = self.mid(h, emb)
        h = self.mid_attn(h)
        for up, block in zip(self.upsamples, self.up_blocks):
            h = up(h)
            h = torch.cat([h, skips.pop()], dim=1)
            h = block(h, emb)
        reveal_shape(h)
        return self.out(F.silu(self.out_norm(h)))


if __name__ == "__main__":
    torch.manual_seed(0)
    model = UNet(CONFIG)
    x = torch.randn(2, 3, 16, 16)
    t = torch.randint(0, 1000, (2,))
    emb = timestep_embedding(t, 16)
    reveal_shape(emb)
    noise_pred = model(x, t)
    reveal_shape(noise_pred)
    loss = F.mse_loss(noise_pred, torch.randn_like(x))
