"""A method a base's ``__init_subclass__`` replaces by a wrapper it defines (issue 22).

transformers' ``GradientCheckpointingLayer`` (the base of every BERT, ViT and GPT-2 layer) wraps each
subclass's ``forward``: ``forward = cls.forward``, then ``cls.forward = forward_with_checkpointing``,
a function that checkpoints in training when asked and otherwise calls ``forward(self, *args,
**kwargs)``.  The wrapper is the class's ``forward``, run with the names it reads from the hook (the
original ``forward``, the class, itself); a wrapper that reads any other local of the hook is not
known.  Each shape is torch's (the programs run with torch too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.libraries.conftest import CheckWithSite, reveals, torch_shapes

LAYERS = """
from functools import partial, wraps

import torch.nn as nn


class CheckpointedLayer(nn.Module):
    gradient_checkpointing = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        forward = cls.forward

        @wraps(forward)
        def forward_with_checkpointing(self, *args, **kwargs):
            is_outermost = type(self).forward is forward_with_checkpointing
            if self.gradient_checkpointing and self.training and is_outermost:
                return self._checkpoint(partial(forward, self, **kwargs), *args)
            return forward(self, *args, **kwargs)

        cls.forward = forward_with_checkpointing


class Block(CheckpointedLayer):
    def __init__(self, width, hidden):
        super().__init__()
        self.up = nn.Linear(width, hidden)
        self.down = nn.Linear(hidden, width)

    def forward(self, x, scale=1.0):
        return self.down(self.up(x)) * scale


class Encoder(nn.Module):
    def __init__(self, width, hidden, depth):
        super().__init__()
        self.blocks = nn.ModuleList([Block(width, hidden) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x, scale=0.5)
        return x
"""

USER = """
import torch
import torch.nn as nn
from tensorshape import reveal_shape
from tinylib.layers import Encoder

encoder = Encoder(32, 64, 2)
out = encoder(torch.randn(4, 7, 32))
reveal_shape(out)
head = nn.Linear(64, 3)
logits = head(out)
"""


def test_the_programs_truth(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="returned non-zero"):
        torch_shapes(tmp_path, USER, "tinylib", {"layers": LAYERS})
    fine = USER.replace("nn.Linear(64, 3)", "nn.Linear(32, 3)")
    assert torch_shapes(tmp_path, fine, "tinylib", {"layers": LAYERS}) == {9: "[4 7 32]"}


def test_the_installed_wrapper_runs_the_original(check_with_site: CheckWithSite) -> None:
    found = check_with_site(USER, {"tinylib": {"layers": LAYERS}})
    assert reveals(found)[9] == "revealed shape: [4 7 32]", found
    assert [(line, code) for line, code, _ in found if code == "TS101"] == [(11, "TS101")], found


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # The wrapper reads another local of the hook.
        ("        forward = cls.forward\n", "        forward = cls.forward\n        extra = 2\n"),
        # The original is rebound after it was read.
        (
            "        cls.forward = forward_with_checkpointing\n",
            "        cls.forward = forward_with_checkpointing\n        forward = None\n",
        ),
        # Installed only for some classes.
        (
            "        cls.forward = forward_with_checkpointing\n",
            "        if kwargs:\n            cls.forward = forward_with_checkpointing\n",
        ),
    ],
)
def test_a_wrapper_not_known_stays_unknown(check_with_site: CheckWithSite, old: str, new: str) -> None:
    assert old in LAYERS
    layers = LAYERS.replace(old, new)
    if "extra = 2" in new:
        layers = layers.replace(
            "return forward(self, *args, **kwargs)", "return forward(self, *args, **kwargs) * extra"
        )
    found = check_with_site(USER, {"tinylib": {"layers": layers}})
    assert reveals(found)[9] in ("revealed shape: unknown", "revealed shape: [4 7 ?]", "revealed shape: optional"), (
        found
    )
    assert [d for d in found if d[1] == "TS101"] == [], found
