"""An ignore that suppresses a shape error is used (by name or id); one that suppresses nothing is not."""

import torch


def f() -> None:
    a = torch.randn(2, 3)
    a @ a  # type: ignore[shape-mismatch]
    b = a + 1  # type: ignore[shape-mismatch]
    b.sum()
    c = torch.randn(4, 5)
    c @ c  # type: ignore[TS101]
