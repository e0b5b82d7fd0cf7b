# exact-at-least: 7
"""A sparse Mixture-of-Experts feed-forward layer in the style of Switch/Mixtral reference code: a
linear router, ``topk`` over the expert logits, softmax over the kept logits, a loop over experts
that gathers the tokens routed to each (``torch.where`` on the selection mask), runs the expert
and ``index_add_``s the weighted outputs back; a load-balancing auxiliary loss from the router
probabilities (``scatter`` of one-hot counts). Configured from a dataclass; no annotations."""

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
import torch.nn as nn
import torch.nn.functional as F

if TYPE_CHECKING:
    from torch import Tensor

try:
    from tensorshape import reveal_shape
except ImportError:  # the probes are optional

    def reveal_shape(x):
        return x


@dataclass
class MoEConfig:
    d_model: int = 32
    d_ff: int = 64
    n_experts: int = 4
    top_k: int = 2
    aux_loss_coef: float = 0.01


class Expert(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class SparseMoE(nn.Module):
    def __init__(self, cfg: MoEConfig):
        super().__init__()
        self.cfg = cfg
        self.router = nn.Linear(cfg.d_model, cfg.n_experts, bias=False)
        self.experts = nn.ModuleList([Expert(cfg.d_model, cfg.d_ff) for _ in range(cfg.n_experts)])

    def forward(self, hidden_states: "Tensor"):
        batch, seq_len, d_model = hidden_states.shape
        hidden_states = hidden_states.view(-1, d_model)
        router_logits = self.router(hidden_states)
        reveal_shape(router_logits)
        routing_weights, selected_experts = torch.topk(router_logits, self.cfg.top_k, dim=-1)
        reveal_shape(selected_experts)
        routing_weights = F.softmax(routing_weights, dim=-1, dtype=torch.float).to(hidden_states.dtype)
        final = torch.zeros_like(hidden_states)
        expert_mask = F.one_hot(selected_experts, num_classes=self.cfg.n_experts).permute(2, 1, 0)
        reveal_shape(expert_mask)
        for expert_idx in range(self.cfg.n_experts):
            expert = self.experts[expert_idx]
            idx, top_x = torch.where(expert_mask[expert_idx])
            current = hidden_states[top_x]
            out = expert(current) * routing_weights[top_x, idx, None]
            final.index_add_(0, top_x, out.to(hidden_states.dtype))
        final = final.reshape(batch, seq_len, d_model)
        reveal_shape(final)
        return final, router_logits


def load_balancing_loss(router_logits, n_experts, top_k):
    probs = F.softmax(router_logits, dim=-1)
    _, selected = torch.topk(probs, top_k, dim=-1)
    counts = torch.zeros_like(probs).scatter(1, selected, 1.0)
    reveal_shape(counts)
    tokens_per_expert = counts.mean(0)
    prob_per_expert = probs.mean(0)
    reveal_shape(tokens_per_expert)
    return n_experts * torch.sum(tokens_per_expert * prob_per_expert)


class MoEBlock(nn.Module):
    def __init__(self, cfg: MoEConfig):
        super().__init__()
        self.norm = nn.LayerNorm(cfg.d_model)
        self.moe = SparseMoE(cfg)
        self.cfg = cfg

    def forward(self, x):
        y, logits = self.moe(self.norm(x))
        aux = load_balancing_loss(logits, self.cfg.n_experts, self.cfg.top_k)
        return x + y, aux


def main():
    torch.manual_seed(0)
    cfg = MoEConfig()
    block = MoEBlock(cfg)
    x = torch.randn(2, 5, cfg.d_model)
    y, aux = block(x)
    reveal_shape(y)
    loss = y.pow(2).mean() + cfg.aux_loss_coef * aux
    loss.backward()
    print(y.shape, math.isfinite(loss.item()))


if __name__ == "__main__":
    main()
