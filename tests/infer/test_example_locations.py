"""Where each counted cause was first met (``--statistics``, the JSON summary): libcst's positions of the
nodes, found together per class member, and none computed when the settings ask for none (the mypy plugin)."""

from __future__ import annotations

from dataclasses import replace

from libcst.metadata import MetadataWrapper, PositionProvider
from tensorshape.infer.api import CheckSettings, check_source

#: Several unmodelled ops and unknown causes in one method, in another method, and at the top level.
SOURCE = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 8)

    def forward(self, x):
        a = torch.special.xlog1py(x, x)
        b = x.frobnicate()
        c = torch.special.zeta(a, b)
        return self.fc(c.wibble())

    def other(self, y):
        return y.wobble() + torch.special.xlog1py(y, y)


def main():
    net = Net()
    z = torch.randn(2, 4)
    return net(z).sparkle() + z.frobnicate()
"""


def test_example_locations_are_libcsts_positions_of_the_first_nodes_met() -> None:
    settings = CheckSettings(record=True)
    r = check_source(SOURCE, "nets.py", settings)
    assert r.analyzer is not None and r.module is not None and r.module.tree is not None
    found = r.analyzer.examples
    assert sum(key.startswith("unknown-op:") for key in found) >= 4
    whole = MetadataWrapper(r.module.tree, unsafe_skip_copy=True).resolve(PositionProvider)
    for key, (_, node) in found.items():
        pos = whole[node].start
        assert r.examples[key] == f"nets.py:{pos.line}:{pos.column + 1}", key
    assert r.examples["unknown-op:Tensor.frobnicate"] == "nets.py:12:13"


def test_no_example_locations_when_none_are_asked_for_and_the_same_diagnostics() -> None:
    settings = CheckSettings(enable=frozenset({"TS006"}))
    full = check_source(SOURCE, "nets.py", settings)
    bare = check_source(SOURCE, "nets.py", replace(settings, examples=False))
    assert full.examples and not bare.examples
    assert bare.diagnostics == full.diagnostics and bare.stats == full.stats
