"""timm's layer factories decided (issue 22): ``'silu' in dir(torch.nn.functional)`` is true for a
function the stubs model (``nn.SiLU if _has_silu else Swish`` is ``nn.SiLU``), and a class, a
function or a ``functools.partial`` is true (``if attn_type:`` of ``SqueezeExcite`` in
``get_attn``), so the layer a factory returns is known and its module's shape exact.  A name the
stubs do not model stays undecided.  Checked against torch."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import functools

import torch
import torch.nn as nn
from tensorshape import reveal_shape


class Gate(nn.Module):
    def __init__(self, chs, ratio=0.25):
        super().__init__()
        self.fc = nn.Conv2d(chs, max(1, int(chs * ratio)), 1)

    def forward(self, x):
        return self.fc(x)


def get_attn(attn_type):
    module_cls = None
    if attn_type:
        module_cls = attn_type
    return module_cls


"""

CASES = {
    "a_function_the_stubs_model_is_in_dir": """
        has_silu = "silu" in dir(torch.nn.functional)
        act = nn.SiLU if has_silu else Gate
        reveal_shape(act()(torch.zeros(2, 8, 4, 4)))
    """,
    "a_class_and_a_partial_are_true": """
        layer = get_attn(Gate)
        reveal_shape(layer(8)(torch.zeros(2, 8, 4, 4)))
        half = get_attn(functools.partial(Gate, ratio=0.5))
        reveal_shape(half(8)(torch.zeros(2, 8, 4, 4)))
        reveal_shape(torch.zeros(4 if get_attn(Gate) else 6, 3 if half else 5, 2 if get_attn else 7))
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("layer_factories"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)
