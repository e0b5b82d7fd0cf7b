"""``tensorshape check`` after ``annotate --write``: what it may still report, and why.

perceiver-pytorch's ``Attention.forward`` concatenates the queries and the context only when the
layer was built with ``queries_contribute_kv``, and its ``__init__`` asserts ``context_dim ==
query_dim`` when it is.  Annotated as a careful person would (the dims named after the
constructor's arguments, as ``annotate`` now writes them), torch never raises there for any
configuration the code allows: the branch is taken only where the two sizes are equal.  The
checker analyses ``forward`` with the flag unknown and the two names unrelated; by the product
rule (an error means torch raises for the sizes the code allows, a failure for some
configurations only is a warning naming the condition) it reports the ``cat`` as the warning
TS115 that names the flag, not as an error.
"""

from __future__ import annotations

import pytest
from tensorshape.infer import check_source

FLAG_GUARDED = """\
import torch
from jaxtyping import Float
from torch import Tensor, nn


class Attention(nn.Module):
    def __init__(self, query_dim: int, context_dim: int, queries_contribute_kv: bool = False) -> None:
        super().__init__()
        if queries_contribute_kv:
            assert context_dim == query_dim
        self.queries_contribute_kv = queries_contribute_kv

    def forward(
        self, x: Float[Tensor, "b n query_dim"], context: Float[Tensor, "b m context_dim"]
    ) -> Tensor:
        if self.queries_contribute_kv:
            return torch.cat((x, context), dim=1)
        return context
"""


def test_torch_accepts_every_configuration_the_constructor_allows() -> None:
    torch = pytest.importorskip("torch")
    ns: dict[str, object] = {}
    exec(compile(FLAG_GUARDED, "flag.py", "exec"), ns)
    attention = ns["Attention"]
    for q, c, flag in ((4, 4, True), (4, 6, False), (4, 4, False)):
        out = attention(q, c, flag)(torch.randn(2, 3, q), torch.randn(2, 5, c))  # type: ignore[operator]
        assert out.shape == (2, 8 if flag else 5, c)
    with pytest.raises(AssertionError):
        attention(4, 6, True)  # type: ignore[operator]


def test_a_mismatch_only_under_a_constructor_flag_is_a_warning_naming_it() -> None:
    result = check_source(FLAG_GUARDED, "flag.py")
    assert result.errors == []
    warnings = [d for d in result.diagnostics if d.code.id == "TS115"]
    assert len(warnings) == 1 and "`self.queries_contribute_kv`" in warnings[0].message
    assert warnings[0].span.line == 17
