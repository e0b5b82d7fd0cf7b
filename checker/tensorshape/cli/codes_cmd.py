"""``tensorshape codes``: list every diagnostic code."""

from __future__ import annotations

import argparse
from typing import Any

from ..model import codes

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "codes",
        help="list the diagnostic codes",
        description="List every diagnostic code: id, name, default severity and what it means.",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    for c in sorted(codes.ALL_CODES.values(), key=lambda c: c.id):
        state = "" if c.default_enabled else "  (off by default)"
        print(f"{c.id}  {c.name:<24} {str(c.severity):<8} {c.summary}{state}")
    return 0
