"""tensorshape: a gradual shape type checker for PyTorch programs.

Importing this package is cheap: it does not import torch, sympy or libcst.
"""

from __future__ import annotations

from typing import TypeVar

__version__ = "0.1.0"

__all__ = ["__version__", "reveal_shape"]

T = TypeVar("T")


def reveal_shape(value: T) -> T:
    """Ask the checker to print the shape it infers for ``value``.

    At run time this does nothing and returns its argument, so it can stay in
    code (like ``typing.reveal_type``).
    """
    return value
