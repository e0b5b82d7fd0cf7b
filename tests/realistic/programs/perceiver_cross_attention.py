# exact-at-least: 7
"""A Perceiver as the popular single-file implementations write it: ``exists``/``default``
helpers, Fourier features of the pixel positions concatenated to the input, a learnt latent
array ``repeat``-ed over the batch, a ``PreNorm`` that also normalises an optional context,
attention whose keys and values come from ``to_kv(context).chunk(2, dim=-1)`` and are
``rearrange``-d per head through ``map``, an optional key mask, ``GEGLU`` feed-forwards,
layers of cross attention then a self-attention tower in ModuleLists, and a mean-pooled head."""

from math import pi

import torch
import torch.nn.functional as F
from torch import einsum, nn

from einops import rearrange, repeat
from einops.layers.torch import Reduce

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


def exists(val):
    return val is not None


def default(val, d):
    return val if exists(val) else d


def fourier_encode(x, max_freq, num_bands=4):
    x = x.unsqueeze(-1)
    device, dtype, orig_x = x.device, x.dtype, x

    scales = torch.linspace(1.0, max_freq / 2, num_bands, device=device, dtype=dtype)
    scales = scales[(*((None,) * (len(x.shape) - 1)), Ellipsis)]

    x = x * scales * pi
    x = torch.cat([x.sin(), x.cos()], dim=-1)
    x = torch.cat((x, orig_x), dim=-1)
    return x


class PreNorm(nn.Module):
    def __init__(self, dim, fn, context_dim=None):
        super().__init__()
        self.fn = fn
        self.norm = nn.LayerNorm(dim)
        self.norm_context = nn.LayerNorm(context_dim) if exists(context_dim) else None

    def forward(self, x, **kwargs):
        x = self.norm(x)

        if exists(self.norm_context):
            context = kwargs["context"]
            normed_context = self.norm_context(context)
            kwargs.update(context=normed_context)

        return self.fn(x, **kwargs)


class GEGLU(nn.Module):
    def forward(self, x):
        x, gates = x.chunk(2, dim=-1)
        return x * F.gelu(gates)


class FeedForward(nn.Module):
    def __init__(self, dim, mult=4, dropout=0.0):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(dim, dim * mult * 2),
            GEGLU(),
            nn.Linear(dim * mult, dim),
            nn.Dropout(dropout),
        )

    def forward(self, x):
        return self.net(x)


class Attention(nn.Module):
    def __init__(self, query_dim, context_dim=None, heads=8, dim_head=64, dropout=0.0):
        super().__init__()
        inner_dim = dim_head * heads
        context_dim = default(context_dim, query_dim)

        self.scale = dim_head**-0.5
        self.heads = heads

        self.to_q = nn.Linear(query_dim, inner_dim, bias=False)
        self.to_kv = nn.Linear(context_dim, inner_dim * 2, bias=False)

        self.dropout = nn.Dropout(dropout)
        self.to_out = nn.Linear(inner_dim, query_dim)

    def forward(self, x, context=None, mask=None):
        h = self.heads

        q = self.to_q(x)
        context = default(context, x)
        k, v = self.to_kv(context).chunk(2, dim=-1)

        q, k, v = map(lambda t: rearrange(t, "b n (h d) -> (b h) n d", h=h), (q, k, v))

        sim = einsum("b i d, b j d -> b i j", q, k) * self.scale
        reveal_shape(sim)

        if exists(mask):
            mask = rearrange(mask, "b ... -> b (...)")
            max_neg_value = -torch.finfo(sim.dtype).max
            mask = repeat(mask, "b j -> (b h) () j", h=h)
            sim.masked_fill_(~mask, max_neg_value)

        attn = sim.softmax(dim=-1)
        attn = self.dropout(attn)

        out = einsum("b i j, b j d -> b i d", attn, v)
        out = rearrange(out, "(b h) n d -> b n (h d)", h=h)
        return self.to_out(out)


class Perceiver(nn.Module):
    def __init__(
        self,
        *,
        num_freq_bands,
        depth,
        max_freq,
        input_channels=3,
        input_axis=2,
        num_latents=16,
        latent_dim=32,
        cross_heads=1,
        latent_heads=4,
        cross_dim_head=16,
        latent_dim_head=8,
        num_classes=10,
        attn_dropout=0.0,
        ff_dropout=0.0,
        self_per_cross_attn=1,
    ):
        super().__init__()
        self.input_axis = input_axis
        self.max_freq = max_freq
        self.num_freq_bands = num_freq_bands

        fourier_channels = input_axis * ((num_freq_bands * 2) + 1)
        input_dim = fourier_channels + input_channels

        self.latents = nn.Parameter(torch.randn(num_latents, latent_dim))

        get_cross_attn = lambda: PreNorm(
            latent_dim,
            Attention(latent_dim, input_dim, heads=cross_heads, dim_head=cross_dim_head, dropout=attn_dropout),
            context_dim=input_dim,
        )
        get_cross_ff = lambda: PreNorm(latent_dim, FeedForward(latent_dim, dropout=ff_dropout))
        get_latent_attn = lambda: PreNorm(
            latent_dim, Attention(latent_dim, heads=latent_heads, dim_head=latent_dim_head, dropout=attn_dropout)
        )
        get_latent_ff = lambda: PreNorm(latent_dim, FeedForward(latent_dim, dropout=ff_dropout))

        self.layers = nn.ModuleList([])
        for i in range(depth):
            self_attns = nn.ModuleList([])
            for block_ind in range(self_per_cross_attn):
                self_attns.append(nn.ModuleList([get_latent_attn(), get_latent_ff()]))

            self.layers.append(nn.ModuleList([get_cross_attn(), get_cross_ff(), self_attns]))

        self.to_logits = nn.Sequential(
            Reduce("b n d -> b d", "mean"), nn.LayerNorm(latent_dim), nn.Linear(latent_dim, num_classes)
        )

    def forward(self, data, mask=None, return_embeddings=False):
        b, *axis, _, device, dtype = *data.shape, data.device, data.dtype
        assert len(axis) == self.input_axis, "input data must have the right number of axis"

        # the positions of every pixel in [-1, 1], Fourier encoded, then concatenated to the channels
        axis_pos = list(map(lambda size: torch.linspace(-1.0, 1.0, steps=size, device=device, dtype=dtype), axis))
        pos = torch.stack(torch.meshgrid(*axis_pos, indexing="ij"), dim=-1)
        enc_pos = fourier_encode(pos, self.max_freq, self.num_freq_bands)
        enc_pos = rearrange(enc_pos, "... n d -> ... (n d)")
        enc_pos = repeat(enc_pos, "... -> b ...", b=b)
        reveal_shape(enc_pos)

        data = torch.cat((data, enc_pos), dim=-1)
        data = rearrange(data, "b ... d -> b (...) d")
        reveal_shape(data)

        x = repeat(self.latents, "n d -> b n d", b=b)
        reveal_shape(x)

        for cross_attn, cross_ff, self_attns in self.layers:
            x = cross_attn(x, context=data, mask=mask) + x
            x = cross_ff(x) + x

            for self_attn, self_ff in self_attns:
                x = self_attn(x) + x
                x = self_ff(x) + x
            reveal_shape(x)

        if return_embeddings:
            return x

        return self.to_logits(x)


def main():
    torch.manual_seed(0)
    model = Perceiver(num_freq_bands=4, depth=2, max_freq=8.0)
    images = torch.randn(2, 8, 8, 3)  # channels last, as the Perceiver takes them
    mask = torch.ones(2, 8, 8, dtype=torch.bool)
    mask[1, 6:] = False
    logits = model(images, mask=mask)
    reveal_shape(logits)
    embeddings = model(images, return_embeddings=True)
    reveal_shape(embeddings)
    loss = F.cross_entropy(logits, torch.tensor([3, 9]))
    loss.backward()
    print(logits.shape, embeddings.shape, loss.item())


if __name__ == "__main__":
    main()
