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


SYMBOLIC_ROW_CASES = """\
import torch


def rows(n: int, m: int):
    reveal_shape(torch.tensor([[0.0] * n, [1.0] * n]))
    reveal_shape(torch.tensor([[0.0] * n, [1.0] * m]))
    reveal_shape(torch.tensor([[0.0] * (2 * n), [1.0] * (n + n)]))
    reveal_shape(torch.tensor([[0.0] * n, [1.0] * (n + 1)]))
    return n


def unequal(n: int):
    return torch.tensor([[0.0] * (n + 1), [1.0] * (n + 2)])


def unequal_unless_empty(n: int):
    return torch.tensor([[0.0] * n, [1.0] * (n + 1)])


def unequal_by_fact(n: int, m: int):
    assert m == n + 2
    return torch.tensor([[0.0] * n, [1.0] * m])
"""

EMPTY_LITERALS = """\
import torch

a = torch.tensor([[[]], [[1.0], [2.0]]])
b = torch.tensor([[[], [1.0]], [[1.0], [2.0]]])
"""


def _reveals(source: str) -> dict[int, str]:
    result = check_source(source)
    return {d.span.line: d.message.rsplit(": ", 1)[1] for d in result.diagnostics if d.code.id == "TS900"}


def test_symbolic_rows_compare_three_ways() -> None:
    # Equal rows keep their length.  Rows that may be equal are no error.  Rows that are unequal
    # for every size are torch's error where the literal surely has an element (``n+1`` against
    # ``n+2``), and a warning naming the condition where it may be empty: torch takes the shape
    # from the first row and checks the others only while copying elements, so ``n == 0`` passes.
    torch = pytest.importorskip("torch")
    for n in (0, 1, 3):
        assert torch.tensor([[0.0] * n, [1.0] * n]).shape == (2, n)
        assert torch.tensor([[0.0] * (2 * n), [1.0] * (n + n)]).shape == (2, 2 * n)
        with pytest.raises(ValueError, match="expected sequence of length"):
            torch.tensor([[0.0] * (n + 1), [1.0] * (n + 2)])
        if n == 0:
            assert torch.tensor([[0.0] * n, [1.0] * (n + 1)]).shape == (2, 0)
        else:
            with pytest.raises(ValueError, match="expected sequence of length"):
                torch.tensor([[0.0] * n, [1.0] * (n + 1)])
    result = check_source(SYMBOLIC_ROW_CASES)
    found = sorted((d.code.id, d.span.line) for d in result.diagnostics if d.code.id != "TS900")
    assert found == [("TS108", 13), ("TS115", 8), ("TS115", 17), ("TS115", 22)]
    assert "unless `n` is 0" in next(d.message for d in result.diagnostics if d.span.line == 17)
    reveals = _reveals(SYMBOLIC_ROW_CASES)
    assert [reveals[k] for k in (5, 6, 7, 8)] == ["[2 n]", "[2 n]", "[2 2*n]", "[2 n]"]


def test_an_empty_literal_is_never_checked() -> None:
    torch = pytest.importorskip("torch")
    assert torch.tensor([[[]], [[1.0], [2.0]]]).shape == (2, 1, 0)
    assert torch.tensor([[[], [1.0]], [[1.0], [2.0]]]).shape == (2, 2, 0)
    with pytest.raises(ValueError, match="expected sequence of length"):
        torch.tensor([[[1.0], []], [[1.0], [2.0]]])
    assert check_source(EMPTY_LITERALS).errors == []


def test_rows_that_may_be_equal_are_a_runtime_obligation() -> None:
    from tensorshape.infer.api import CheckSettings

    result = check_source(SYMBOLIC_ROWS, settings=CheckSettings(obligations=True))
    assert result.errors == []
    assert any("nested sequence" in o.reason for o in result.obligations)
