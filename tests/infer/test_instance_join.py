"""Two instances of one project class joined attribute by attribute (issue 16).

A flag the checker does not know (``--bilinear`` on the command line) makes a constructor build
``self.conv = DoubleConv(c, m, c // 2)`` on one path and ``DoubleConv(c, m)`` on the other.  The join
keeps what the two instances agree on (a layer's sizes that agree, its rank) and gives what differs a
fresh name, so the block's output keeps its shape; an attribute only one path sets is unknown.
Each case is user-style code checked against torch (``torch_cases``), run without the flag.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from sympy import Symbol
from tensorshape.infer import CheckSettings, check_source
from tensorshape.infer.state import Widening, join_values
from tensorshape.infer.values import ChoiceV, InstanceV
from tensorshape.model.values import BoolV, IntV, ModuleV, UnknownV

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from tensorshape import reveal_shape


class DoubleConv(nn.Module):
    def __init__(self, in_channels, out_channels, mid_channels=None):
        super().__init__()
        if not mid_channels:
            mid_channels = out_channels
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, mid_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(mid_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.double_conv(x)


bilinear = "--bilinear" in sys.argv
"""

CASES = {
    "up_block_built_two_ways": """
        class Up(nn.Module):
            def __init__(self, in_channels, out_channels, bilinear=True):
                super().__init__()
                self.bilinear = bilinear
                if bilinear:
                    self.up = None
                    self.conv = DoubleConv(in_channels, out_channels, in_channels // 2)
                else:
                    self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2, stride=2)
                    self.conv = DoubleConv(in_channels, out_channels)

            def forward(self, x1, x2):
                if self.bilinear:
                    x1 = F.interpolate(x1, scale_factor=2, mode="bilinear", align_corners=True)
                else:
                    x1 = self.up(x1)
                x = torch.cat([x2, x1], dim=1)
                return self.conv(x)


        factor = 2 if bilinear else 1
        up = Up(16, 4, bilinear)
        out = up(torch.randn(2, 16 // factor, 5, 5), torch.randn(2, 8, 10, 10))
        reveal_shape(out)
        reveal_shape(up.conv.double_conv[0](torch.randn(2, 16, 10, 10)))
        """,
    "sizes_that_differ_are_named": """
        class Head(nn.Module):
            def __init__(self, d, wide):
                super().__init__()
                if wide:
                    self.proj = nn.Linear(d, 4 * d)
                else:
                    self.proj = nn.Linear(d, 2 * d)
                self.norm = nn.LayerNorm(d)

            def forward(self, x):
                return self.proj(self.norm(x))


        class Net(nn.Module):
            def __init__(self, wide):
                super().__init__()
                self.head = Head(8, wide) if wide else Head(8, False)

            def forward(self, x):
                return self.head(x)


        reveal_shape(Net(bilinear)(torch.randn(3, 8)))
        """,
    "agreeing_size_still_raises": """
        class Stem(nn.Module):
            def __init__(self, c, out):
                super().__init__()
                self.conv = nn.Conv2d(c, out, 3, padding=1)

            def forward(self, x):
                return self.conv(x)  # E: TS101


        class Block(nn.Module):
            def __init__(self, c, narrow):
                super().__init__()
                self.stem = Stem(c, c // 2) if narrow else Stem(c, c)

            def forward(self, x):
                return self.stem(x)


        Block(16, bilinear)(torch.randn(2, 8, 10, 10))
        """,
    "agreeing_layer_size_still_raises": """
        class Block(nn.Module):
            def __init__(self, c, narrow):
                super().__init__()
                self.conv = nn.Conv2d(c, c // 2, 3) if narrow else nn.Conv2d(c, c, 3)

            def forward(self, x):
                return self.conv(x)  # E: TS101


        Block(16, bilinear)(torch.randn(2, 8, 10, 10))
        """,
    "attribute_only_one_path_sets": """
        class Maybe(nn.Module):
            def __init__(self, extra):
                super().__init__()
                self.fc = nn.Linear(4, 6)
                if extra:
                    self.gate = nn.Linear(6, 6)

            def forward(self, x):
                return self.fc(x)


        m = Maybe(bilinear) if bilinear else Maybe(False)
        reveal_shape(m(torch.randn(5, 4)))
        """,
    "instance_rebuilt_in_a_loop": """
        block = DoubleConv(3, 8)
        for i in range(len(sys.argv) + 2):
            block = DoubleConv(3, 8 * (i + 2))
        reveal_shape(block(torch.randn(1, 3, 6, 6)))
        """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("instance_join"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)


def test_a_loop_rebuilding_an_instance_reaches_its_fixpoint() -> None:
    """The joined instance describes the next round's: the loop head stops at once, under its bound."""
    result = check_source(HEADER + textwrap.dedent(CASES["instance_rebuilt_in_a_loop"]))
    assert result.stats.get("loop-bound", 0) == 0
    assert [d.message for d in result.diagnostics if d.code.id == "TS900"] == ["revealed shape: [1 n 6 6]"]


def test_instances_join_attribute_by_attribute() -> None:
    result = check_source(HEADER, settings=CheckSettings(record=True))
    assert result.analyzer is not None
    cls = next(c for c in result.analyzer._generic_instances if c.qualname.endswith("DoubleConv"))
    a = InstanceV(cls, {"width": IntV(8), "kernel": IntV(3), "only_a": IntV(1)}, "a")
    b = InstanceV(cls, {"width": IntV(16), "kernel": IntV(3)}, "b")
    widen = Widening(lambda base: Symbol(f"{base}_joined", integer=True, positive=True))
    j = join_values(a, b, widen)
    assert isinstance(j, InstanceV) and j.cls is cls
    assert j.attrs["kernel"] == IntV(3)  # the sizes that agree stay
    assert isinstance(j.attrs["width"], IntV) and str(j.attrs["width"].value) == "n_joined"
    assert isinstance(j.attrs["only_a"], UnknownV)  # one path has no such attribute: reading it raises there
    assert join_values(j, b, widen) is j  # it describes ``b`` already (a loop head's fixpoint)
    assert join_values(j, a, widen) is j
    other = ModuleV("torch.nn.Linear", {})
    mixed = join_values(a, other, widen)  # another class: a choice of the two (each call runs both)
    assert isinstance(mixed, ChoiceV) and mixed.options == (a, other)


def test_layers_differing_in_a_flag_are_a_choice_not_one_layer() -> None:
    """``bias=False`` on one path: a joined layer would claim a ``bias`` tensor that path lacks."""
    a = ModuleV("torch.nn.Linear", {"in_features": IntV(4), "out_features": IntV(8), "bias": BoolV(True)})
    b = ModuleV("torch.nn.Linear", {"in_features": IntV(4), "out_features": IntV(16), "bias": BoolV(False)})
    c = ModuleV("torch.nn.Linear", {"in_features": IntV(4), "out_features": IntV(16), "bias": BoolV(True)})
    either = join_values(a, b)  # not one layer with joined sizes: a choice of the two layers
    assert isinstance(either, ChoiceV) and either.options == (a, b)
    joined = join_values(a, c)
    assert isinstance(joined, ModuleV) and joined.args["in_features"] == IntV(4)
    assert joined.args["bias"] == BoolV(True)
