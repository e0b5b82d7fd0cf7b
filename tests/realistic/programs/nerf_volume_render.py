# exact-at-least: 15
"""A NeRF training step in the style of the widely used PyTorch port of the original code: an
argparse configuration, a positional-encoding Embedder that builds its list of sin/cos functions in
__init__, an MLP over encoded points with a skip connection that re-concatenates the input at one
layer of a ModuleList, an optional view-direction branch, batchify-style chunking of the network,
stratified sampling along rays, and raw2outputs's volume rendering (deltas, alpha, the cumulative
product of transmittance, weights summed against colours and depths).  No annotations."""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


class Embedder:
    def __init__(self, input_dims, num_freqs, include_input=True, log_sampling=True):
        self.input_dims = input_dims
        embed_fns = []
        out_dim = 0
        if include_input:
            embed_fns.append(lambda x: x)
            out_dim += input_dims
        max_freq = num_freqs - 1
        if log_sampling:
            freq_bands = 2.0 ** torch.linspace(0.0, max_freq, steps=num_freqs)
        else:
            freq_bands = torch.linspace(2.0**0.0, 2.0**max_freq, steps=num_freqs)
        for freq in freq_bands:
            for p_fn in [torch.sin, torch.cos]:
                embed_fns.append(lambda x, p_fn=p_fn, freq=freq: p_fn(x * freq))
                out_dim += input_dims
        self.embed_fns = embed_fns
        self.out_dim = out_dim

    def embed(self, inputs):
        return torch.cat([fn(inputs) for fn in self.embed_fns], -1)


def get_embedder(multires, input_dims=3):
    embedder_obj = Embedder(input_dims, multires)
    return embedder_obj.embed, embedder_obj.out_dim


class NeRF(nn.Module):
    def __init__(self, D=8, W=256, input_ch=3, input_ch_views=3, output_ch=4, skips=(4,), use_viewdirs=False):
        super().__init__()
        self.D = D
        self.W = W
        self.input_ch = input_ch
        self.input_ch_views = input_ch_views
        self.skips = skips
        self.use_viewdirs = use_viewdirs

        self.pts_linears = nn.ModuleList(
            [nn.Linear(input_ch, W)] + [nn.Linear(W, W) if i not in self.skips else nn.Linear(W + input_ch, W) for i in range(D - 1)]
        )
        self.views_linears = nn.ModuleList([nn.Linear(input_ch_views + W, W // 2)])

        if use_viewdirs:
            self.feature_linear = nn.Linear(W, W)
            self.alpha_linear = nn.Linear(W, 1)
            self.rgb_linear = nn.Linear(W // 2, 3)
        else:
            self.output_linear = nn.Linear(W, output_ch)

    def forward(self, x):
        input_pts, input_views = torch.split(x, [self.input_ch, self.input_ch_views], dim=-1)
        h = input_pts
        for i, l in enumerate(self.pts_linears):
            h = self.pts_linears[i](h)
            h = F.relu(h)
            if i in self.skips:
                h = torch.cat([input_pts, h], -1)
        reveal_shape(h)

        if self.use_viewdirs:
            alpha = self.alpha_linear(h)
            feature = self.feature_linear(h)
            h = torch.cat([feature, input_views], -1)
            for i, l in enumerate(self.views_linears):
                h = self.views_linears[i](h)
                h = F.relu(h)
            rgb = self.rgb_linear(h)
            outputs = torch.cat([rgb, alpha], -1)
        else:
            outputs = self.output_linear(h)
        return outputs


def batchify(fn, chunk):
    if chunk is None:
        return fn

    def ret(inputs):
        return torch.cat([fn(inputs[i : i + chunk]) for i in range(0, inputs.shape[0], chunk)], 0)

    return ret


def run_network(inputs, viewdirs, fn, embed_fn, embeddirs_fn, netchunk=1024 * 64):
    inputs_flat = torch.reshape(inputs, [-1, inputs.shape[-1]])
    embedded = embed_fn(inputs_flat)
    reveal_shape(embedded)
    if viewdirs is not None:
        input_dirs = viewdirs[:, None].expand(inputs.shape)
        input_dirs_flat = torch.reshape(input_dirs, [-1, input_dirs.shape[-1]])
        embedded_dirs = embeddirs_fn(input_dirs_flat)
        embedded = torch.cat([embedded, embedded_dirs], -1)
    reveal_shape(embedded)
    outputs_flat = batchify(fn, netchunk)(embedded)
    outputs = torch.reshape(outputs_flat, list(inputs.shape[:-1]) + [outputs_flat.shape[-1]])
    return outputs


def raw2outputs(raw, z_vals, rays_d, white_bkgd=False):
    raw2alpha = lambda raw, dists, act_fn=F.relu: 1.0 - torch.exp(-act_fn(raw) * dists)

    dists = z_vals[..., 1:] - z_vals[..., :-1]
    dists = torch.cat([dists, torch.tensor([1e10]).expand(dists[..., :1].shape)], -1)
    reveal_shape(dists)
    dists = dists * torch.norm(rays_d[..., None, :], dim=-1)

    rgb = torch.sigmoid(raw[..., :3])
    reveal_shape(rgb)
    alpha = raw2alpha(raw[..., 3], dists)
    reveal_shape(alpha)
    weights = alpha * torch.cumprod(torch.cat([torch.ones((alpha.shape[0], 1)), 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
    reveal_shape(weights)
    rgb_map = torch.sum(weights[..., None] * rgb, -2)
    reveal_shape(rgb_map)
    depth_map = torch.sum(weights * z_vals, -1)
    acc_map = torch.sum(weights, -1)
    reveal_shape(acc_map)
    if white_bkgd:
        rgb_map = rgb_map + (1.0 - acc_map[..., None])
    return rgb_map, depth_map, acc_map, weights


def render_rays(ray_batch, network_fn, embed_fn, embeddirs_fn, N_samples, perturb=0.0):
    N_rays = ray_batch.shape[0]
    rays_o, rays_d = ray_batch[:, 0:3], ray_batch[:, 3:6]
    viewdirs = ray_batch[:, -3:] if ray_batch.shape[-1] > 8 else None
    bounds = torch.reshape(ray_batch[..., 6:8], [-1, 1, 2])
    near, far = bounds[..., 0], bounds[..., 1]
    reveal_shape(near)

    t_vals = torch.linspace(0.0, 1.0, steps=N_samples)
    z_vals = near * (1.0 - t_vals) + far * t_vals
    z_vals = z_vals.expand([N_rays, N_samples])
    if perturb > 0.0:
        mids = 0.5 * (z_vals[..., 1:] + z_vals[..., :-1])
        upper = torch.cat([mids, z_vals[..., -1:]], -1)
        lower = torch.cat([z_vals[..., :1], mids], -1)
        t_rand = torch.rand(z_vals.shape)
        z_vals = lower + (upper - lower) * t_rand
    reveal_shape(z_vals)

    pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
    reveal_shape(pts)
    raw = run_network(pts, viewdirs, network_fn, embed_fn, embeddirs_fn)
    reveal_shape(raw)
    rgb_map, depth_map, acc_map, weights = raw2outputs(raw, z_vals, rays_d)
    return {"rgb_map": rgb_map, "depth_map": depth_map, "acc_map": acc_map, "weights": weights}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--netdepth", type=int, default=4, help="layers in network")
    parser.add_argument("--netwidth", type=int, default=32, help="channels per layer")
    parser.add_argument("--N_rand", type=int, default=16, help="batch size (number of random rays)")
    parser.add_argument("--N_samples", type=int, default=8, help="number of coarse samples per ray")
    parser.add_argument("--multires", type=int, default=4, help="log2 of max freq for positional encoding (3D location)")
    parser.add_argument("--multires_views", type=int, default=2, help="log2 of max freq for positional encoding (2D direction)")
    parser.add_argument("--perturb", type=float, default=1.0)
    parser.add_argument("--lrate", type=float, default=5e-4)
    args = parser.parse_args()

    torch.manual_seed(0)
    embed_fn, input_ch = get_embedder(args.multires)
    embeddirs_fn, input_ch_views = get_embedder(args.multires_views)
    model = NeRF(
        D=args.netdepth,
        W=args.netwidth,
        input_ch=input_ch,
        input_ch_views=input_ch_views,
        output_ch=4,
        skips=(2,),
        use_viewdirs=True,
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lrate)

    rays_o = torch.randn(args.N_rand, 3)
    rays_d = torch.randn(args.N_rand, 3)
    viewdirs = rays_d / torch.norm(rays_d, dim=-1, keepdim=True)
    near, far = 2.0 * torch.ones_like(rays_d[..., :1]), 6.0 * torch.ones_like(rays_d[..., :1])
    rays = torch.cat([rays_o, rays_d, near, far, viewdirs], -1)
    reveal_shape(rays)
    target_s = torch.rand(args.N_rand, 3)

    out = render_rays(rays, model, embed_fn, embeddirs_fn, args.N_samples, perturb=args.perturb)
    rgb = out["rgb_map"]
    reveal_shape(rgb)
    loss = torch.mean((rgb - target_s) ** 2)
    psnr = -10.0 * torch.log(loss) / torch.log(torch.tensor([10.0]))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    reveal_shape(psnr)


if __name__ == "__main__":
    main()
