"""A mismatch on a path that only some configurations of a module take (issue 18's closing loop).

Two distinct annotated dims required equal inside ``if self.<flag>:`` fail only for the instances
built with the flag, whose constructor may require the sizes equal: a TS115 warning naming the
branch.  Known sizes that differ there fail whenever the branch runs: still the error.  Torch is
the judge of both.
"""

from __future__ import annotations

import pytest
from tensorshape.infer import check_source

RIGID = """\
import torch
from jaxtyping import Float
from torch import Tensor, nn


class Mix(nn.Module):
    def __init__(self, use_context: bool = False) -> None:
        super().__init__()
        self.use_context = use_context

    def forward(self, x: Float[Tensor, "b n d"], ctx: Float[Tensor, "b m e"]) -> Tensor:
        if not self.use_context:
            return x
        return torch.cat((x, ctx), dim=1)
"""

DEFINITE = """\
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, project: bool = True) -> None:
        super().__init__()
        self.project = project
        self.proj = nn.Linear(64, 10)

    def forward(self, x):
        if self.project:
            x = self.proj(torch.zeros(3, 32))
        return x
"""

UNGUARDED = """\
import torch
from jaxtyping import Float
from torch import Tensor


def mix(x: Float[Tensor, "b n d"], ctx: Float[Tensor, "b m e"]) -> Tensor:
    return torch.cat((x, ctx), dim=1)
"""


def test_annotated_dims_differing_under_a_flag_is_a_warning_naming_it() -> None:
    result = check_source(RIGID)
    assert result.errors == []
    [warning] = [d for d in result.diagnostics if d.code.id == "TS115"]
    assert warning.span.line == 14
    assert "not `not self.use_context`" in warning.message


def test_known_sizes_differing_under_a_flag_stay_an_error() -> None:
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.nn.Linear(64, 10)(torch.zeros(3, 32))
    assert [(d.code.id, d.span.line) for d in check_source(DEFINITE).errors] == [("TS101", 13)]


def test_annotated_dims_differing_with_no_branch_stay_an_error() -> None:
    assert [d.code.id for d in check_source(UNGUARDED).errors] == ["TS104"]
