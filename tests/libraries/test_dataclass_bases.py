"""Subclasses of a dataclass (issue 22), as torchvision's EfficientNet configurations are written: a
``@dataclass`` base whose generated ``__init__`` a subclass reaches through ``super().__init__(...)``
after adjusting the widths, or inherits without defining one.  A field is the value the generated
``__init__`` was given; a call Python refuses, a ``__post_init__`` or a field without a known value
leaves it unknown, never wrong and never an error."""

from __future__ import annotations

import pytest
from tensorshape.infer.api import check_source

CONFIG = """
import math
from dataclasses import dataclass

import torch
import torch.nn as nn
from tensorshape import reveal_shape


def _round_to_8(v: float) -> int:
    return max(8, int(v + 4) // 8 * 8)


@dataclass
class _BlockConfig:
    expand_ratio: float
    kernel: int
    input_channels: int
    out_channels: int
    num_layers: int

    @staticmethod
    def adjust_channels(channels: int, width_mult: float) -> int:
        return _round_to_8(channels * width_mult)


class BlockConfig(_BlockConfig):
    def __init__(self, expand_ratio, kernel, input_channels, out_channels, num_layers, width_mult=1.0):
        input_channels = self.adjust_channels(input_channels, width_mult)
        out_channels = self.adjust_channels(out_channels, width_mult)
        num_layers = int(math.ceil(num_layers * 1.0))
        super().__init__(expand_ratio, kernel, input_channels, out_channels, num_layers)


class PlainConfig(_BlockConfig):
    pass


cfg = BlockConfig(6, 3, 32, 20, 2, width_mult=1.5)
stem = nn.Conv2d(3, cfg.input_channels, 3, padding=1)
proj = nn.Conv2d(cfg.input_channels, cfg.out_channels, 1)
x = torch.randn(2, 3, 16, 16)
reveal_shape(proj(stem(x)))
plain = PlainConfig(1, 3, 16, 24, 1)
reveal_shape(nn.Linear(plain.input_channels, plain.out_channels)(torch.randn(4, 16)))
wrong = nn.Linear(32, 8)
y = wrong(stem(x).flatten(2).transpose(1, 2))
"""


def _found(source: str) -> list[tuple[int, str, str]]:
    return sorted((d.span.line, d.code.id, d.message) for d in check_source(source).diagnostics)


def _line(text: str) -> int:
    return CONFIG.splitlines().index(text) + 1


def test_fields_set_by_the_generated_init_of_a_base() -> None:
    found = _found(CONFIG)
    # 32 * 1.5 = 48 and 20 * 1.5 = 30 -> 32 (multiples of 8, as torch builds them).
    assert (_line("reveal_shape(proj(stem(x)))"), "TS900", "revealed shape: [2 32 16 16]") in found, found
    linear = "reveal_shape(nn.Linear(plain.input_channels, plain.out_channels)(torch.randn(4, 16)))"
    assert (_line(linear), "TS900", "revealed shape: [4 24]") in found, found
    # The stem makes 48 channels; a layer built for 32 fed them: torch raises.
    errors = [line for line, code, _ in found if code == "TS101"]
    assert errors == [_line("y = wrong(stem(x).flatten(2).transpose(1, 2))")], found


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # Too many arguments for the generated ``__init__``: Python raises, nothing is known.
        (
            "super().__init__(expand_ratio, kernel, input_channels, out_channels, num_layers)",
            "super().__init__(expand_ratio, kernel, input_channels, out_channels, num_layers, 7)",
        ),
        # A keyword given twice.
        (
            "super().__init__(expand_ratio, kernel, input_channels, out_channels, num_layers)",
            "super().__init__(expand_ratio, kernel, input_channels, out_channels, num_layers, kernel=5)",
        ),
        # ``__post_init__`` may change any field.
        ("    @staticmethod\n", "    def __post_init__(self):\n        self.kernel = 5\n\n    @staticmethod\n"),
    ],
)
def test_what_the_generated_init_may_not_do_stays_unknown(old: str, new: str) -> None:
    assert old in CONFIG
    source = CONFIG.replace(old, new)
    lines = source.splitlines()
    probe = lines.index("reveal_shape(proj(stem(x)))") + 1
    wrong = lines.index("y = wrong(stem(x).flatten(2).transpose(1, 2))") + 1
    found = _found(source)
    reveals = [msg for line, code, msg in found if code == "TS900" and line == probe]
    assert reveals and "32" not in reveals[0] and "48" not in reveals[0], found
    assert [d for d in found if d[1] == "TS101" and d[0] != wrong] == [], found
