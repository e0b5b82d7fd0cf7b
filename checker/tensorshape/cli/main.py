"""``tensorshape``: the command line entry point.

Subcommands are modules with ``add_parser(subparsers)`` and ``run(args) -> int``;
exit codes: 0 no errors, 1 errors found, 2 usage or internal failure.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .. import __version__

__all__ = ["main", "SUBCOMMANDS"]

#: Modules under ``tensorshape.cli`` that provide subcommands.
SUBCOMMANDS = ["check", "merge_cmd", "codes_cmd", "shapefn_cmd", "instrument_cmd", "lsp_cmd"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"tensorshape: error: {message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tensorshape",
        description="A gradual shape type checker for PyTorch programs.",
        epilog="`tensorshape COMMAND --help` describes a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"tensorshape {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in SUBCOMMANDS:
        mod = importlib.import_module(f"{__package__}.{name}")
        mod.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
