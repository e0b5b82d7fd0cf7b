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
    # ``[layer] * args.n`` with a count that is an option was an unknown list: every module built from it,
    # and everything after it, was unknown.
    "list_repeated_by_an_option_is_a_list_of_like_items": """
        import argparse

        parser = argparse.ArgumentParser()
        parser.add_argument("--layers", type=int, default=3)
        args = parser.parse_args()
        blocks = nn.ModuleList([nn.Conv2d(4, 4, 3, padding=1)] * args.layers)
        x = torch.randn(2, 4, 8, 8)
        for block in blocks:
            x = F.relu(block(x))
        reveal_shape(x)
        stacked = torch.stack(args.layers * [torch.zeros(5)])
        reveal_shape(stacked)
        """,
    # No rule for the RNN cells: a decoder loop's state (Tacotron's attention and decoder GRUCells) was
    # unknown after the first step, and everything computed from it.
    "rnn_cells_keep_the_state_through_a_decoder_loop": """
        cell = nn.GRUCell(6, 8)
        h = torch.zeros(3, 8)
        for t in range(5):
            h = cell(torch.randn(3, 6), h)
        reveal_shape(h)
        hx, cx = nn.LSTMCell(6, 8)(torch.randn(6))
        reveal_shape(cx)
        reveal_shape(nn.RNNCell(6, 4)(torch.randn(2, 6)))
        """,
    "gru_cell_input_width_mismatch": """
        h = torch.zeros(3, 8)
        h = nn.GRUCell(4, 8)(torch.cat([torch.randn(3, 4), torch.randn(3, 2)], 1), h)  # E: TS101
        """,
    "lstm_cell_state_batch_mismatch": """
        cell = nn.LSTMCell(4, 8)
        h, c = cell(torch.randn(3, 4), (torch.zeros(2, 8), torch.zeros(2, 8)))  # E: TS101
        """,
    # Side defect: the rule gave ``out_channels`` where torch's empty-input path keeps the input's 0.
    "conv_with_no_input_channels_keeps_none": """
        reveal_shape(nn.Conv2d(0, 4, 3)(torch.randn(2, 0, 8, 8)))
        reveal_shape(nn.Conv1d(0, 5, 3, stride=2, padding=1)(torch.randn(2, 0, 9)))
        reveal_shape(F.conv2d(torch.randn(0, 8, 8), torch.randn(4, 0, 3, 3)))
        reveal_shape(nn.Conv2d(3, 4, 3)(torch.randn(0, 3, 8, 8)))
        """,
    # No rule for ``torch.bincount``: a graph network's mean pooling (sums over ``index_add_`` divided by
    # per-graph node counts) was unknown, and the classifier head's bug after it was missed.
    "mean_pool_per_graph_divides_by_a_bincount": """
        batch = torch.tensor([0, 0, 1, 2, 2])
        x = torch.randn(5, 4)
        sums = x.new_zeros(3, x.size(1)).index_add_(0, batch, x)
        counts = torch.bincount(batch, minlength=3).clamp(min=1).to(x.dtype)
        reveal_shape(sums / counts.unsqueeze(1))
        reveal_shape(torch.cat([sums, sums], dim=-1))
        """,
    "bincount_weights_of_another_length": """
        counts = torch.bincount(torch.tensor([0, 1, 1]), weights=torch.ones(4))  # E: TS101
        """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("reach_unseen"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)
