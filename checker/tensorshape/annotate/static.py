"""``tensorshape annotate PATH...`` without a trace: propose what the static analysis infers."""

from __future__ import annotations

import argparse
import sys


def run_static(args: argparse.Namespace, paths: list[str], variable: dict[int, str]) -> int:
    sys.stderr.write("tensorshape annotate: static proposals are not implemented yet; use --trace or --from-trace\n")
    return 2
