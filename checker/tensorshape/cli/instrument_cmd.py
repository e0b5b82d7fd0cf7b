"""``tensorshape instrument PATH...``: insert runtime checks at the analysis's obligations."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "instrument",
        help="insert runtime shape checks where the static analysis could not decide",
        description="Insert tensorshape.runtime checks exactly at the runtime obligations the analysis records "
        "(unknown shapes meeting static requirements).  Prints a unified diff unless --write.  "
        "Exit status 2 when a file could not be read, analysed or written (the others are still done).",
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to instrument")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print a unified diff (the default)")
    mode.add_argument("--write", action="store_true", help="rewrite the files in place (atomically)")
    p.add_argument(
        "--all", action="store_true", help="decorate every annotated function (jaxtyping-like) instead of checking the obligations"
    )
    p.add_argument("--remove", action="store_true", help="take the inserted checks out again")
    p.set_defaults(run=run)


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")


def _emit(text: str, encoding: str) -> None:
    """Write diff text to stdout in the file's own encoding (so ``patch`` applies it byte for byte)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    buffer.write(text.encode(encoding.removesuffix("-sig"), errors="surrogateescape"))
    buffer.flush()


def run(args: argparse.Namespace) -> int:
    from ..infer.deadline import FileTimeout
    from ..infer.source import failure_line
    from ..instrument import instrument_source, remove
    from ..instrument.edit import split_lines
    from ..instrument.files import read_source, unified_diff, write_atomic
    from ..model import codes
    from .config import ConfigError, check_settings, load_config
    from .files import collect_files

    try:
        settings = check_settings(load_config(None, Path(args.paths[0])))
    except ConfigError as e:
        _say(f"tensorshape: {codes.CONFIG_ERROR.id} {codes.CONFIG_ERROR.name}: {e}")
        return 2
    files = collect_files(args.paths, Path.cwd())
    if not files:
        _say("tensorshape instrument: no Python files found")
        return 2
    checks = decorated = skipped = changed = failed = timed_out = 0
    for f in files:
        try:
            src = read_source(f)
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError) as e:
            _say(failure_line(f, e, "cannot read"))
            failed += 1
            continue
        source = src.text
        try:
            if args.remove:
                new = common = remove(source)
            else:
                r = instrument_source(source, str(f), every_boundary=args.all, file_timeout=settings.file_timeout)
                new, common = r.source, r.original
                checks += r.checks
                decorated += r.decorated
                skipped += len(r.skipped)
                for why in r.skipped:
                    _say(f"{f}: skipped: {why}")
        except FileTimeout:
            _say(
                f"{f}: skipped: not instrumented: the analysis took more than {settings.file_timeout:g} s (file_timeout)"
            )
            timed_out += 1
            continue
        except RecursionError:
            _say(f"{f}: error: not instrumented: nested too deeply to analyse")
            failed += 1
            continue
        except Exception as e:  # noqa: BLE001 - a file that cannot be analysed is left alone, the others go on
            _say(failure_line(f, e, "not instrumented"))
            failed += 1
            continue
        if new == source:
            continue
        changed += 1
        if args.write:
            try:
                write_atomic(f, new, src)
            except (OSError, UnicodeEncodeError, LookupError) as e:
                _say(f"{f}: error: not written, the file is unchanged: {e}")
                failed += 1
                changed -= 1
        else:
            diff = unified_diff(split_lines(source), split_lines(new), split_lines(common), f"a/{f}", f"b/{f}")
            _emit("".join(diff), src.encoding)
    what = "removed checks from" if args.remove else f"{checks} checks and {decorated} decorated functions in"
    verb = "wrote" if args.write else "would change"
    tail = f"; {failed} file(s) failed" if failed else ""
    tail += f"; {timed_out} file(s) skipped past file_timeout" if timed_out else ""
    _say(f"tensorshape instrument: {what} {changed} file(s) ({verb}); {skipped} obligation(s) skipped{tail}")
    return 2 if failed else 0
