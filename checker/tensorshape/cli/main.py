"""``tensorshape``: the command line entry point.

Subcommands are modules with ``add_parser(subparsers)`` and ``run(args) -> int``;
exit codes: 0 no errors, 1 errors found, 2 usage or internal failure.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from .. import __version__

__all__ = ["main", "SUBCOMMANDS"]

#: Modules under ``tensorshape.cli`` that provide subcommands.
SUBCOMMANDS = ["check", "merge_cmd", "codes_cmd", "shapefn_cmd", "instrument_cmd", "annotate_cmd", "lsp_cmd"]


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
        code = int(args.run(args))
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:
        code = 0
    except Exception as e:  # noqa: BLE001 - one clear line, not a traceback (TENSORSHAPE_DEBUG=1 shows it)
        if os.environ.get("TENSORSHAPE_DEBUG"):
            raise
        _say(f"tensorshape: internal error: {type(e).__name__}: {e} (set TENSORSHAPE_DEBUG=1 for details)\n")
        code = 2
    return code if _flushed() else max(code, 2)


def _say(text: str) -> None:
    try:
        if sys.stderr is not None:
            sys.stderr.write(text)
    except (OSError, ValueError):
        pass


def _flushed() -> bool:
    """Flush stdout now, so that a full disk or a closed pipe is seen here, not as a traceback at
    exit; what cannot be written is dropped (stdout then points to the null device)."""
    try:
        if sys.stdout is not None and not sys.stdout.closed:
            sys.stdout.flush()
        return True
    except BrokenPipeError:
        pass
    except ValueError:  # closed meanwhile (the language server closes it on exit): nothing to flush
        return True
    except OSError as e:
        _say(f"tensorshape: error: cannot write to standard output: {getattr(e, 'strerror', None) or e}\n")
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return False


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
