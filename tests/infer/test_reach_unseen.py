"""Inference reach on unseen models (issue 15): the interpreter's general causes found by running the
checker on realistic programs of kinds the suite did not have yet (a YOLO head, a VQ-VAE, a Tacotron
decoder, a graph network, an EfficientNet, a Conformer).

Each case is user-style code checked against torch (see ``torch_cases``): every revealed shape
agrees with torch's, and a line marked ``# E: <code>`` is the line torch raises on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from tensorshape import reveal_shape


"""

CASES = {
    # ``x[i] = layer(x[i])`` replaced nothing: later reads saw the old element (a silently wrong shape,
    # and a false error on the next line).
    "list_item_assigned_in_a_loop_is_read_back": """
        feats = [torch.randn(2, 8, 16, 16), torch.randn(2, 16, 8, 8)]
        heads = nn.ModuleList(nn.Conv2d(c, 12, 1) for c in (8, 16))
        for i in range(2):
            feats[i] = heads[i](feats[i])
            bs, _, ny, nx = feats[i].shape
            feats[i] = feats[i].view(bs, 3, 4, ny, nx).permute(0, 1, 3, 4, 2)
        reveal_shape(feats[0])
        reveal_shape(feats[1])
        """,
    "list_item_assigned_with_a_negative_index": """
        xs = [torch.zeros(2, 3), torch.zeros(3, 5)]
        xs[-1] = xs[-1].t()
        reveal_shape(xs[1])
        reveal_shape(torch.cat(xs, 0))
        """,
    "list_item_assignment_then_a_real_mismatch": """
        feats = [torch.randn(2, 8, 4, 4), torch.randn(2, 16, 4, 4)]
        feats[1] = nn.Conv2d(16, 8, 1)(feats[1])
        both = torch.cat(feats, 1)
        reveal_shape(both)
        nn.Conv2d(24, 4, 1)(both)  # E: TS101
        """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("reach_unseen"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)
