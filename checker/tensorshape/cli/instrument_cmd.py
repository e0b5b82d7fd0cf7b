"""``tensorshape instrument PATH...``: insert runtime checks at the analysis's obligations."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "instrument",
        help="insert runtime shape checks where the static analysis could not decide",
        description="Insert tensorshape.runtime checks exactly at the runtime obligations the analysis records "
        "(unknown shapes meeting static requirements).  Prints a unified diff unless --write.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--diff", action="store_true", help="print a unified diff (the default)")
    mode.add_argument("--write", action="store_true", help="rewrite the files in place")
    p.add_argument("--all", action="store_true", help="check every annotated function (jaxtyping-like), not only the obligations")
    p.add_argument("--remove", action="store_true", help="take the inserted checks out again")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..infer.project import read_bytes
    from ..instrument import instrument_source, remove
    from .files import collect_files

    files = collect_files(args.paths, Path.cwd())
    if not files:
        sys.stderr.write("tensorshape instrument: no Python files found\n")
        return 2
    checks = decorated = skipped = changed = 0
    for f in files:
        data, why = read_bytes(f)  # never blocks on a FIFO or reads a device forever
        try:
            if data is None:
                raise OSError(why)
            source = data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as e:
            sys.stderr.write(f"{f}: cannot read: {e}\n")
            continue
        if args.remove:
            new = remove(source)
        else:
            try:
                r = instrument_source(source, str(f), every_boundary=args.all)
            except Exception as e:  # noqa: BLE001 - a file that cannot be analysed is left alone
                sys.stderr.write(f"{f}: not instrumented ({type(e).__name__}: {e})\n")
                continue
            new = r.source
            checks += r.checks
            decorated += r.decorated
            skipped += len(r.skipped)
            for why in r.skipped:
                sys.stderr.write(f"{f}: skipped: {why}\n")
        if new == source:
            continue
        changed += 1
        if args.write:
            f.write_text(new, encoding="utf-8", newline="")
        else:
            sys.stdout.writelines(
                difflib.unified_diff(
                    source.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{f}", f"b/{f}"
                )
            )
    what = "removed checks from" if args.remove else f"{checks} checks and {decorated} decorated functions in"
    verb = "wrote" if args.write else "would change"
    sys.stderr.write(f"tensorshape instrument: {what} {changed} file(s) ({verb}); {skipped} obligation(s) skipped\n")
    return 0
