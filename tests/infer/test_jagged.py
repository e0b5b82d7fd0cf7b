"""Jagged tensors (torch.nested, layout=torch.jagged): inferred shapes and errors, compared with torch."""

from __future__ import annotations

import re

import pytest
from tensorshape.infer.api import check_source

SRC = """
import torch
import torch.nn as nn
from tensorshape import reveal_shape

a, b = torch.randn(2, 5), torch.randn(3, 5)
nt = torch.nested.nested_tensor([a, b], layout=torch.jagged)
other = torch.nested.nested_tensor([a, b], layout=torch.jagged)
reveal_shape(nt)
reveal_shape(nt * 2 + nt)
reveal_shape(nt.values())
reveal_shape(nt.offsets())
reveal_shape(torch.nested.to_padded_tensor(nt, 0.0))
reveal_shape(nn.Linear(5, 7)(nt))
"""


def _reveals(src: str) -> list[str]:
    r = check_source(src)
    return [d.message.removeprefix("revealed shape: ") for d in r.diagnostics if d.code.id == "TS900"]


def test_shapes_follow_torch() -> None:
    got = _reveals(SRC)
    ragged = re.fullmatch(r"\[2 (j\d+) 5\]", got[0])
    assert ragged is not None
    j = ragged.group(1)
    assert got[1:] == [f"[2 {j} 5]", "[5 5]", "[3]", "[2 3 5]", f"[2 {j} 7]"]

    torch = pytest.importorskip("torch")
    a, b = torch.randn(2, 5), torch.randn(3, 5)
    nt = torch.nested.nested_tensor([a, b], layout=torch.jagged)
    assert nt.dim() == 3 and nt.shape[0] == 2 and nt.shape[2] == 5
    assert tuple(nt.values().shape) == (5, 5) and tuple(nt.offsets().shape) == (3,)
    assert tuple(torch.nested.to_padded_tensor(nt, 0.0).shape) == (2, 3, 5)
    assert torch.nn.Linear(5, 7)(nt).shape[2] == 7


def test_different_offsets_are_an_error_as_in_torch() -> None:
    r = check_source(SRC + "bad = nt + other\n")
    (e,) = r.errors
    assert e.code.name == "symbolic-mismatch" and "j" in e.message
    torch = pytest.importorskip("torch")
    a, b = torch.randn(2, 5), torch.randn(3, 5)
    x = torch.nested.nested_tensor([a, b], layout=torch.jagged)
    y = torch.nested.nested_tensor([a, b], layout=torch.jagged)
    with pytest.raises(RuntimeError):
        x + y


def test_components_must_agree_outside_the_ragged_dim() -> None:
    r = check_source("import torch\ntorch.nested.nested_tensor([torch.randn(2, 5), torch.randn(3, 4)], layout=torch.jagged)\n")
    assert [e.code.name for e in r.errors] == ["shape-mismatch"]
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.nested.nested_tensor([torch.randn(2, 5), torch.randn(3, 4)], layout=torch.jagged)


def test_annotated_jagged_dim() -> None:
    src = (
        "from jaxtyping import Float\nfrom torch import Tensor\nfrom tensorshape import reveal_shape\n"
        "def g(x: Float[Tensor, 'b jagged=n d']):\n    reveal_shape(x.offsets())\n    reveal_shape(x.to_padded_tensor(0.0))\n"
    )
    assert _reveals(src) == ["[b+1]", "[b max_n~ d]"]
