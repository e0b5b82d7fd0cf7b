"""``tensorshape lsp``: run the language server over stdio."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "lsp", help="run the language server (stdio)", description="Run the tensorshape language server over stdio."
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..lsp import main

    main()
    return 0
