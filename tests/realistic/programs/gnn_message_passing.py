# exact-at-least: 7
"""A graph network written without PyTorch Geometric, as tutorials and papers' code do: a
GCN layer normalised by degrees (``index_add_`` to aggregate messages over the
``edge_index``), a GIN-style layer aggregating with ``scatter_add``, mean pooling per graph
of a batched graph (``index_add_`` over the ``batch`` vector divided by node counts), and a
graph classifier. Sizes from a config dataclass; the jaxtyping annotations are on the
model's boundary only."""

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float, Int
from torch import Tensor

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


@dataclass
class GraphConfig:
    in_features: int = 7
    hidden: int = 32
    num_layers: int = 3
    num_classes: int = 2
    dropout: float = 0.2


class GCNLayer(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.linear = nn.Linear(in_dim, out_dim, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_dim))

    def forward(self, x, edge_index):
        num_nodes = x.size(0)
        loops = torch.arange(num_nodes, device=x.device)
        src = torch.cat([edge_index[0], loops])
        dst = torch.cat([edge_index[1], loops])
        deg = torch.zeros(num_nodes, device=x.device).index_add_(0, dst, torch.ones_like(dst, dtype=x.dtype))
        norm = deg[src].rsqrt() * deg[dst].rsqrt()
        reveal_shape(norm)
        h = self.linear(x)
        messages = h[src] * norm.unsqueeze(-1)
        reveal_shape(messages)
        out = torch.zeros_like(h).index_add_(0, dst, messages)
        return out + self.bias


class GINLayer(nn.Module):
    def __init__(self, dim, eps=0.0):
        super().__init__()
        self.eps = nn.Parameter(torch.tensor([eps]))
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.BatchNorm1d(2 * dim), nn.ReLU(), nn.Linear(2 * dim, dim))

    def forward(self, x, edge_index):
        src, dst = edge_index
        index = dst.unsqueeze(-1).expand(-1, x.size(1))
        agg = torch.zeros_like(x).scatter_add_(0, index, x[src])
        reveal_shape(agg)
        return self.mlp((1 + self.eps) * x + agg)


def global_mean_pool(x, batch, num_graphs):
    sums = x.new_zeros(num_graphs, x.size(1)).index_add_(0, batch, x)
    counts = torch.bincount(batch, minlength=num_graphs).clamp(min=1).to(x.dtype)
    return sums / counts.unsqueeze(1)


class GraphClassifier(nn.Module):
    def __init__(self, cfg: GraphConfig):
        super().__init__()
        self.dropout = cfg.dropout
        self.input = GCNLayer(cfg.in_features, cfg.hidden)
        self.layers = nn.ModuleList([GINLayer(cfg.hidden) for _ in range(cfg.num_layers - 1)])
        self.head = nn.Linear(cfg.hidden * cfg.num_layers, cfg.num_classes)

    def forward(
        self, x: Float[Tensor, "nodes features"], edge_index: Int[Tensor, "2 edges"], batch: Int[Tensor, " nodes"], num_graphs: int
    ) -> Float[Tensor, "graphs classes"]:
        h = F.relu(self.input(x, edge_index))
        reveal_shape(h)
        readouts = [global_mean_pool(h, batch, num_graphs)]
        for layer in self.layers:
            h = F.dropout(F.relu(layer(h, edge_index)), self.dropout, self.training)
            readouts.append(global_mean_pool(h, batch, num_graphs))
        hg = torch.cat(readouts, dim=-1)
        reveal_shape(hg)
        return self.head(hg)


def random_batch(num_graphs, nodes_per_graph, in_features):
    xs, edges, batch = [], [], []
    offset = 0
    for g, n in enumerate(nodes_per_graph[:num_graphs]):
        xs.append(torch.randn(n, in_features))
        e = torch.randint(0, n, (2, 3 * n)) + offset
        edges.append(e)
        batch.append(torch.full((n,), g, dtype=torch.long))
        offset += n
    return torch.cat(xs), torch.cat(edges, dim=1), torch.cat(batch)


def main() -> None:
    torch.manual_seed(0)
    cfg = GraphConfig()
    model = GraphClassifier(cfg)
    x, edge_index, batch = random_batch(4, [5, 8, 6, 7], cfg.in_features)
    reveal_shape(edge_index)
    logits = model(x, edge_index, batch, 4)
    reveal_shape(logits)
    loss = F.cross_entropy(logits, torch.tensor([0, 1, 1, 0]))
    loss.backward()
    print(loss.item())


if __name__ == "__main__":
    main()
