"""``torch.tensor`` of a nested list that holds tensors (egnn-pytorch's rotation matrices).

Inside a sequence torch reads a tensor as one number, so a list of 0-d tensors and numbers is a
matrix of numbers, and only a tensor that cannot hold exactly one element is torch's error.  A
parameter whose rank is not known (an unannotated ``gamma``) is no error: it may be 0-d.
Torch is the judge of each case.
"""

from __future__ import annotations

import pytest
from tensorshape.infer import check_source

ROTATION = """\
import torch
from torch import cos, sin


def rot_z(gamma):
    return torch.tensor([
        [cos(gamma), -sin(gamma), 0],
        [sin(gamma), cos(gamma), 0],
        [0, 0, 1],
    ], dtype=gamma.dtype)


reveal_shape(rot_z(torch.tensor(0.5)))
"""

VECTORS = """\
import torch

a = torch.randn(3)
t = torch.tensor([a, a])
"""

SYMBOLIC_ROWS = """\
import torch


def rows(n: int, m: int):
    return torch.tensor([[0.0] * n, [1.0] * m])
"""


def test_a_list_of_scalar_tensors_is_a_matrix_and_no_error() -> None:
    torch = pytest.importorskip("torch")
    g = torch.tensor(0.5)
    truth = torch.tensor([[torch.cos(g), -torch.sin(g), 0], [torch.sin(g), torch.cos(g), 0], [0, 0, 1]])
    result = check_source(ROTATION)
    assert result.errors == []
    [note] = [d for d in result.diagnostics if d.code.id == "TS900"]
    assert note.message.endswith(f"[{' '.join(str(s) for s in truth.shape)}]")


def test_a_list_of_vectors_is_torch_s_error_once() -> None:
    torch = pytest.importorskip("torch")
    a = torch.randn(3)
    with pytest.raises(ValueError, match="only one element tensors"):
        torch.tensor([a, a])
    [error] = check_source(VECTORS).errors
    assert (error.code.id, error.span.line) == ("TS108", 4)
    assert "[3]" in error.message and "Shape(" not in error.message


def test_rows_of_symbolic_lengths_are_no_error() -> None:
    # ``n`` and ``m`` may be equal: torch raises only when they differ.
    torch = pytest.importorskip("torch")
    assert torch.tensor([[0.0] * 2, [1.0] * 2]).shape == (2, 2)
    with pytest.raises(ValueError):
        torch.tensor([[0.0] * 2, [1.0] * 3])
    assert check_source(SYMBOLIC_ROWS).errors == []
