"""Sizes from plain-data configurations (issue 16 item 3): dicts, ``SimpleNamespace``, config
classes, ``int(a / b)`` and ``a // b`` of their values, merged dicts; and edits of them, which must
never leave a stale size (checked against torch, see ``torch_cases.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

pytestmark = pytest.mark.torch

HEADER = """\
import argparse
import types
from types import SimpleNamespace

import torch
import torch.nn as nn
from tensorshape import reveal_shape
"""

CASES = {
    "dict_config": """
        cfg = {"d_model": 64, "n_head": 4, "vocab_size": 100}
        emb = nn.Embedding(cfg["vocab_size"], cfg["d_model"])
        h = emb(torch.randint(0, 100, (2, 7)))
        reveal_shape(h)
        q = h.view(2, 7, cfg["n_head"], cfg["d_model"] // cfg["n_head"])
        reveal_shape(q)
        k = h.view(2, 7, cfg["n_head"], int(cfg["d_model"] / cfg["n_head"]))
        reveal_shape(k)
        out = nn.Linear(cfg.get("d_model"), cfg.get("n_classes", 3))(h)
        reveal_shape(out)
    """,
    "dict_config_bug": """
        cfg = {"d_model": 64, "hidden": 256}
        mlp = nn.Sequential(nn.Linear(cfg["d_model"], cfg["hidden"]), nn.ReLU(), nn.Linear(cfg["d_model"], 10))
        y = mlp(torch.randn(4, cfg["d_model"]))  # E: TS101
    """,
    "merged_dicts": """
        base = {"d_model": 16, "hidden": 48}
        wide = dict(base, hidden=96)
        small = {**base, "d_model": 8}
        x = torch.randn(2, wide["hidden"], small["d_model"], small["hidden"])
        reveal_shape(x)
        both = dict(base, **{"d_model": 24})
        reveal_shape(torch.zeros(both["d_model"]))
    """,
    "simple_namespace": """
        ns = types.SimpleNamespace(d_model=32, depth=2)
        other = SimpleNamespace(**{"width": 12})
        layer = nn.Linear(ns.d_model, other.width)
        reveal_shape(layer(torch.randn(5, ns.d_model)))
        ns.d_model = 48
        reveal_shape(torch.randn(ns.d_model))
        hand = argparse.Namespace(batch_size=8, dim=6)
        reveal_shape(torch.randn(hand.batch_size, hand.dim))
    """,
    "config_class_defaults": """
        class Config:
            d_model = 40
            n_layer = 2

            def __init__(self, dropout=0.1, width=12):
                self.width = width
                self.head_dim = int(self.d_model / 4)

        conf = Config()
        reveal_shape(torch.randn(conf.d_model, conf.width, conf.head_dim, conf.d_model // conf.n_layer))
    """,
    "config_dict_into_a_model": """
        class Block(nn.Module):
            def __init__(self, cfg):
                super().__init__()
                self.proj = nn.Linear(cfg["d_model"], cfg["d_model"] * cfg["mult"])
                self.out = nn.Linear(cfg["d_model"] * cfg["mult"], cfg["d_model"])

            def forward(self, x):
                return self.out(self.proj(x))

        cfg = {"d_model": 8, "mult": 4}
        block = Block(cfg)
        reveal_shape(block.proj(torch.randn(3, 8)))
        reveal_shape(block(torch.randn(3, 8)))
    """,
    "edits_are_followed": """
        cfg = {"d_model": 64}
        cfg["d_model"] = 32
        reveal_shape(torch.zeros(cfg["d_model"]))
        cfg.update(d_model=16, heads=2)
        reveal_shape(torch.zeros(cfg["d_model"], cfg["heads"]))
        cfg.setdefault("depth", 3)
        reveal_shape(torch.zeros(cfg["depth"]))
        if torch.rand(()) > 2:
            cfg["d_model"] = 8
        y = nn.Linear(16, 4)(torch.randn(2, cfg["d_model"]))
    """,
    "an_edit_in_a_helper_is_not_stale": """
        def apply_overrides(cfg, width):
            cfg["d_model"] = width

        cfg = {"d_model": 64}
        apply_overrides(cfg, 32)
        y = nn.Linear(32, 4)(torch.randn(2, cfg["d_model"]))
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("configs"), HEADER, CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)
