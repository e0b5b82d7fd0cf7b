# mypy: disable-error-code="broadcast-mismatch"
"""mypy's own suppression works on the plugin's codes."""

import torch


def f() -> None:
    a = torch.randn(2, 3)
    a @ a  # type: ignore[shape-mismatch]
    a @ a  # E: shape-mismatch
    a + torch.randn(4, 3)
    a.mean(dim=5)  # type: ignore[dim-out-of-range]
