"""Named tensors are gone from torch 2.13: where they appear, the checker says so (and does not crash)."""

from __future__ import annotations

from tensorshape.infer.api import check_source


def test_named_tensor_apis_are_reported() -> None:
    src = "import torch\nx = torch.zeros(2, 3)\ny = x.refine_names('N', 'C')\nz = y.align_to('C', 'N')\nn = x.names\n"
    r = check_source(src)
    found = sorted((d.span.line, d.code.name, str(d.severity)) for d in r.diagnostics)
    assert found == [(3, "removed-api", "warning"), (4, "removed-api", "warning"), (5, "removed-api", "warning")]
    assert r.errors == []
