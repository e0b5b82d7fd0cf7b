"""The parameters of torch's layers (issue 16): a convolution's ``weight`` is ``[out, in/groups, *k]``
(transposed: ``[in, out/groups, *k]``) and its ``bias`` ``[out]``; a linear layer's ``[out in]``; a
norm's ``[C]`` (``LayerNorm``: its ``normalized_shape``); an embedding's ``[n d]``; through
``nn.init.*`` and ``.data`` too.  Checked against torch (``torch_cases``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tensorshape.infer import check_source

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import torch
import torch.nn as nn
from tensorshape import reveal_shape


"""

CASES = {
    "conv_parameters": """
        conv = nn.Conv2d(6, 8, 3, groups=2)
        reveal_shape(conv.weight)
        reveal_shape(conv.bias)
        reveal_shape(nn.Conv1d(4, 5, 7).weight)
        reveal_shape(nn.Conv3d(2, 4, (1, 3, 5), padding=1).weight)
        up = nn.ConvTranspose2d(6, 8, (3, 2), stride=2, groups=2)
        reveal_shape(up.weight)
        reveal_shape(up.bias)
        reveal_shape(nn.init.kaiming_normal_(conv.weight, mode="fan_out", nonlinearity="relu"))
        reveal_shape(conv.weight.data)
        nn.init.constant_(conv.bias, 0)
    """,
    "other_layers_parameters": """
        fc = nn.Linear(5, 7)
        reveal_shape(nn.init.xavier_uniform_(fc.weight))
        reveal_shape(fc.bias.data)
        reveal_shape(nn.BatchNorm2d(4).weight)
        reveal_shape(nn.GroupNorm(2, 6).bias)
        reveal_shape(nn.LayerNorm(9).weight)
        reveal_shape(nn.LayerNorm((4, 5)).bias)
        reveal_shape(nn.Embedding(10, 3).weight)
    """,
    "conv_weight_viewed_with_the_wrong_fan_in": """
        conv = nn.Conv2d(6, 8, 3, groups=2)
        fan_in = conv.weight.view(8, 6 * 3 * 3)  # E: TS106
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("layer_parameters"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)


def test_parameters_a_flag_turns_off_are_none() -> None:
    """torch: ``nn.Conv2d(3, 4, 3, bias=False).bias is None`` (it was the flag, ``True``, with bias on),
    and ``LayerNorm``'s without ``elementwise_affine`` (its bias with ``bias=False``)."""
    src = HEADER + "\n".join(
        [
            "reveal_shape(nn.Conv2d(3, 4, 3, bias=False).bias)",
            "reveal_shape(nn.ConvTranspose1d(3, 4, 3, bias=False).bias)",
            "reveal_shape(nn.LayerNorm(4, elementwise_affine=False).weight)",
            "reveal_shape(nn.LayerNorm(4, bias=False).bias)",
        ]
    )
    notes = [d.message for d in check_source(src, "t.py").diagnostics if d.code.id == "TS900"]
    assert notes == ["revealed shape: none"] * 4
