"""Copies of configuration objects and lists a builder keeps to itself (issue 22), as torchvision's
EfficientNet builds its stages: ``block_cnf = copy.copy(cnf)`` per block, and ``if stage:`` (the
block is not the first of its stage) on a list the loop appends to.  A copy is known when nothing
it shares with the original can change in place, and a list's emptiness decides a branch only when
no other reference can fill it; otherwise both stay unknown, never wrong."""

from __future__ import annotations

import pytest
from tensorshape.infer.api import check_source

PROGRAM = """
import copy
from dataclasses import dataclass

import torch
import torch.nn as nn
from tensorshape import reveal_shape


@dataclass
class StageConfig:
    stride: int
    input_channels: int
    out_channels: int
    num_layers: int


class Block(nn.Module):
    def __init__(self, cnf: StageConfig):
        super().__init__()
        layers = []
        if cnf.input_channels != cnf.out_channels:
            layers.append(nn.Conv2d(cnf.input_channels, cnf.out_channels, 1))
        layers.append(nn.Conv2d(cnf.out_channels, cnf.out_channels, 3, stride=cnf.stride, padding=1))
        self.body = nn.Sequential(*layers)

    def forward(self, x):
        return self.body(x)


class Net(nn.Module):
    def __init__(self, setting: list[StageConfig]):
        super().__init__()
        stages: list[nn.Module] = []
        for cnf in setting:
            stage: list[nn.Module] = []
            for _ in range(cnf.num_layers):
                block_cnf = copy.copy(cnf)
                if stage:
                    block_cnf.input_channels = block_cnf.out_channels
                    block_cnf.stride = 1
                stage.append(Block(block_cnf))
            stages.append(nn.Sequential(*stage))
        self.features = nn.Sequential(*stages)

    def forward(self, x):
        return self.features(x)


setting = [StageConfig(1, 3, 16, 1), StageConfig(2, 16, 24, 2)]
net = Net(setting)
x = torch.randn(2, 3, 32, 32)
reveal_shape(net(x))
reveal_shape(net.features[1][1](torch.randn(2, 24, 16, 16)))
head = nn.Linear(16 * 16 * 16, 10)
out = head(net(x).flatten(1))  # E: TS101
"""


def _found(source: str) -> list[tuple[int, str, str]]:
    return sorted((d.span.line, d.code.id, d.message) for d in check_source(source).diagnostics)


def _line(source: str, text: str) -> int:
    return source.splitlines().index(text) + 1


def _reveal(found: list[tuple[int, str, str]], line: int) -> str:
    return next(msg for at, code, msg in found if code == "TS900" and at == line)


def test_stages_built_from_copied_configs() -> None:
    found = _found(PROGRAM)
    # torch: [2, 24, 16, 16] for both; the head's 4096 inputs against 6144 raises.
    assert _reveal(found, _line(PROGRAM, "reveal_shape(net(x))")) == "revealed shape: [2 24 16 16]"
    block = "reveal_shape(net.features[1][1](torch.randn(2, 24, 16, 16)))"
    assert _reveal(found, _line(PROGRAM, block)) == "revealed shape: [2 24 16 16]"
    errors = [(line, code) for line, code, _ in found if code != "TS900"]
    assert errors == [(_line(PROGRAM, "out = head(net(x).flatten(1))  # E: TS101"), "TS101")], found


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # The list reaches a helper that may append to it: its emptiness is not known.
        ("                stage.append(Block(block_cnf))", "                grow(stage, Block(block_cnf))"),
        # An alias of the list.
        ("                if stage:", "                seen = stage\n                if stage:"),
        # A copy that shares a list with the original (a later append through one shows in both).
        ("    num_layers: int\n", "    num_layers: int\n    extra: list\n"),
    ],
)
def test_what_may_change_unseen_stays_unknown(old: str, new: str) -> None:
    assert old in PROGRAM
    source = PROGRAM.replace(old, new)
    source = source.replace("StageConfig(1, 3, 16, 1)", "StageConfig(1, 3, 16, 1, *EXTRA)").replace(
        "StageConfig(2, 16, 24, 2)", "StageConfig(2, 16, 24, 2, *EXTRA)"
    )
    extra = "([],)" if "extra: list" in source else "()"
    source = source.replace("setting = [", f"EXTRA = {extra}\n\n\ndef grow(xs, x):\n    xs.append(x)\n\n\nsetting = [")
    found = _found(source)
    shown = _reveal(found, _line(source, "reveal_shape(net(x))"))
    assert shown != "revealed shape: [2 24 16 16]", found
    assert [d for d in found if d[1] not in ("TS900", "TS101")] == [], found


def test_deep_copy_of_a_model() -> None:
    source = (
        PROGRAM + "ema = copy.deepcopy(net)\nreveal_shape(ema(x))\nema.features = nn.Identity()\nreveal_shape(net(x))\n"
    )
    found = _found(source)
    lines = [line for line, code, _ in found if code == "TS900"]
    # The copy is exact; the original, after a write through the copy, is exact or unknown (a write
    # through one reference makes older objects of the class read it as unknown: hf-12's stamps are
    # per class), never the copy's ``Identity`` output.
    copy_shown, original_shown = (_reveal(found, line) for line in lines[-2:])
    assert copy_shown == "revealed shape: [2 24 16 16]", found
    assert original_shown in (
        "revealed shape: [2 24 16 16]",
        "revealed shape: unknown (attribute written through another reference)",
    ), found
