"""Inference reach on ConvNeXt, T5, a Perceiver and DeepLabV3 (issue 15): the interpreter's general
causes, each checked against torch (see ``torch_cases``): every revealed shape agrees with torch's,
and a line marked ``# E: <code>`` is the line torch raises on.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tensorshape.infer import check_source

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from tensorshape import reveal_shape


"""

CASES = {
    # ConvNeXt: ``nn.Dropout(p) if p > 0.0 else nn.Identity()`` with a rate not known (read from a
    # ``linspace`` of rates) joined two modules into an unknown: every block, and the model, was unknown.
    "a_module_chosen_by_an_unknown_test_is_called_as_each_option": """
        rates = [x.item() for x in torch.linspace(0, 0.0, 3)]
        drop = nn.Dropout(rates[1]) if rates[1] > 0.0 else nn.Identity()
        x = torch.randn(2, 8, 4, 4)
        reveal_shape(drop(x))
        reveal_shape(x + drop(x))
        reveal_shape(drop.to("cpu")(x))
        reveal_shape(nn.Sequential(nn.Conv2d(8, 4, 1), drop)(x))
        act = nn.GELU() if rates[0] > 0.5 else nn.ReLU()
        reveal_shape(act(drop(x)))
        """,
    # Which option was built is not known: a problem only one option has is not reported (torch raises
    # only if that one was built), one that every option has is.
    # A choice was unknown to ``isinstance`` and truth: both branches ran, and joined.
    "a_choice_answers_isinstance_and_truth_when_every_option_agrees": """
        rates = [x.item() for x in torch.linspace(0, 0.0, 3)]
        drop = nn.Dropout(rates[1]) if rates[1] > 0.0 else nn.Identity()
        x = torch.randn(2, 8)
        if isinstance(drop, nn.Module) and drop:
            y = drop(x)
        else:
            y = x.t()
        reveal_shape(y)
        if isinstance(drop, (nn.Dropout, nn.Identity)):
            y = y[:, :4]
        reveal_shape(y)
        if not isinstance(drop, nn.Linear):
            y = y.t()
        reveal_shape(y)
        """,
    "a_problem_of_one_option_is_not_reported": """
        rates = [x.item() for x in torch.linspace(0, 0.0, 3)]
        proj = nn.Linear(5, 16) if rates[1] > 0.0 else nn.Linear(8, 4)
        reveal_shape(proj(torch.randn(2, 8)))
        """,
    "a_problem_of_every_option_is_reported": """
        rates = [x.item() for x in torch.linspace(0, 0.0, 3)]
        proj = nn.Linear(8, 16) if rates[1] > 0.0 else nn.Linear(8, 4)
        y = proj(torch.randn(2, 5))  # E: TS101
        """,
    "project_classes_chosen_by_an_unknown_test": """
        class Scale(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.gamma = nn.Parameter(torch.ones(dim))
                self.dim = dim

            def forward(self, x):
                return self.gamma * x


        class Same(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.dim = dim

            def forward(self, x):
                return x


        p = torch.rand(1).item()
        layer = Scale(6) if p > 0.5 else Same(6)
        reveal_shape(layer(torch.randn(3, 6)))
        reveal_shape(torch.zeros(layer.dim, 2))
        """,
    # T5: ``has_relative_attention_bias=bool(i == 0)`` was a bool of unknown value, so with the caller's
    # layers the ``if`` on it was undecidable and the bias the first layer computes was not seen.
    "bool_of_a_known_comparison_is_known": """
        class Layer(nn.Module):
            def __init__(self, first=False):
                super().__init__()
                self.first = first

            def forward(self, x):
                if self.first:
                    return torch.cat([x, x], -1)
                return x


        layers = nn.ModuleList([Layer(bool(i == 0)) for i in range(2)])
        x = torch.randn(3, 2)
        for layer in layers:
            x = layer(x)
        reveal_shape(x)
        reveal_shape(Layer(bool(0))(x))
        """,
    # T5: ``scores += position_bias`` with a bias of unknown shape made the scores unknown; an in-place
    # op keeps its tensor's shape (or raises).
    "in_place_op_keeps_its_shape_when_the_other_is_unknown": """
        import numpy as np

        bias = torch.from_numpy(np.zeros((1, 4, 7, 7), dtype=np.float32))
        scores = torch.randn(2, 4, 7, 7)
        scores += bias
        reveal_shape(scores)
        """,
    "in_place_op_still_reports_a_known_mismatch": """
        scores = torch.randn(2, 4, 7, 7)
        scores += torch.zeros(1, 8, 7, 7)  # E: TS102
        """,
    # T5's padding mask: ``(1.0 - mask) * torch.finfo(x.dtype).min`` was unknown (``torch.finfo`` had no
    # model), and the position bias it is added to with it.
    "finfo_limits_are_numbers": """
        x = torch.randn(2, 7, 32)
        attention_mask = torch.ones(2, 7)
        mask = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        reveal_shape(mask)
        reveal_shape(torch.full((2, 3), torch.iinfo(torch.int32).max))
        reveal_shape(torch.zeros(2, 7).masked_fill(attention_mask == 0, -torch.finfo(x.dtype).max))
        """,
    # T5's ``batch_size, seq_length = hidden_states.shape[:2]`` gave unknown sizes in the generic analysis
    # of an unannotated parameter; like ``b, t, d = x.shape`` it names the first (or last) dims now.
    "unpacking_the_first_or_last_sizes_names_them": """
        def split_heads(hidden_states, n_heads: int = 4):
            batch_size, seq_length = hidden_states.shape[:2]
            q = hidden_states.reshape(batch_size, seq_length, n_heads, 8).transpose(1, 2)
            reveal_shape(q)
            return q


        def grid(feature_map):
            h, w = feature_map.shape[-2:]
            ys = torch.zeros(h, w)
            reveal_shape(ys)
            return ys


        split_heads(torch.randn(2, 3, 32))
        grid(torch.randn(2, 8, 5, 7))
        """,
    "unpacking_the_first_sizes_of_a_matrix": """
        def f(x):
            b, t = x.shape[:2]
            return torch.zeros(b, t)


        reveal_shape(f(torch.randn(4, 6)))
        """,
    # A Perceiver's Fourier features index the scales with ``(*((None,) * k), Ellipsis)``: the name
    # ``Ellipsis`` was an unknown value rather than ``...``.
    "the_name_ellipsis_is_an_ellipsis": """
        x = torch.randn(8, 8, 2, 1)
        scales = torch.linspace(1.0, 4.0, 4)
        scales = scales[(*((None,) * (len(x.shape) - 1)), Ellipsis)]
        reveal_shape(scales)
        reveal_shape(x * scales)
        reveal_shape(scales[Ellipsis, None])
        """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("reach_choices"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)


def _reveals(source: str) -> list[str]:
    result = check_source(HEADER + source)
    return [d.message.removeprefix("revealed shape: ") for d in result.diagnostics if d.code.id == "TS900"]


def test_a_choice_of_modules_is_bounded() -> None:
    # Four different modules are a choice; a fifth is more than a choice keeps, so the result is
    # unknown (not a choice growing without bound in a loop).
    source = """
def f(k: int, x: torch.Tensor):
    m = nn.Identity()
    if k == 1:
        m = nn.Linear(3, 3)
    elif k == 2:
        m = nn.Linear(3, 4)
    elif k == 3:
        m = nn.Linear(3, 5)
    reveal_shape(m(torch.zeros(2, 3)))
    if k == 5:
        m = nn.Linear(3, 7)
    reveal_shape(m(torch.zeros(2, 3)))
"""
    first, second = _reveals(source)
    assert first == "[2 ?]"
    assert second in ("[...]", "unknown")


def test_a_choice_is_not_a_module_for_truth_and_isinstance() -> None:
    # ``isinstance`` of a choice of two classes is not decided, so both branches stay reachable.
    source = """
def f(p: float, x: torch.Tensor):
    m = nn.Linear(3, 4) if p > 0.5 else nn.Identity()
    if isinstance(m, nn.Linear):
        reveal_shape(m(torch.zeros(2, 3)))
    else:
        reveal_shape(m(torch.zeros(2, 3)))
"""
    assert _reveals(source) == ["[2 ?]", "[2 ?]"]


def test_a_parameter_learns_nothing_from_one_option() -> None:
    # ``m(x)`` with ``m`` one of two Linear layers: x has 8 features if the first was built, 5 if the
    # second was; learning 8 from the first option would be a silently wrong shape for the second.
    source = """
def f(x, p: float):
    m = nn.Linear(8, 2) if p > 0 else nn.Linear(5, 2)
    y = m(x)
    reveal_shape(x)
    reveal_shape(y)
    return y
"""
    x_view, y_view = _reveals(source)
    assert "8" not in x_view and "5" not in x_view
    assert y_view in ("[... 2]", "[*batch 2]")


def test_a_choice_answers_isinstance_and_truth_when_every_option_agrees() -> None:
    """Exact shapes for the torch-checked case of that name (each branch taken as torch takes it)."""
    source = CASES["a_choice_answers_isinstance_and_truth_when_every_option_agrees"]
    assert _reveals(textwrap.dedent(source)) == ["[2 8]", "[2 4]", "[4 2]"]
