"""``tensorshape shapefn FILE::QUALNAME``: emit a function's shape function."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "shapefn",
        help="emit the function computing a function's output shapes from its input shapes",
        description="Emit a standalone function (standard library only) that computes the output shapes of "
        "FILE::QUALNAME from its input shapes, checking every constraint the analysis found.",
    )
    p.add_argument("target", metavar="FILE::QUALNAME", help="e.g. model.py::Block.forward")
    p.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=SHAPE",
        help='shape of an unannotated tensor parameter, e.g. --input "x=b t d" (repeatable)',
    )
    p.add_argument("--emit", choices=["python", "json"], default="python", help="output format (default: python)")
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of standard output")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..shapefn import ShapeFunctionUnavailable, derive

    path, sep, qualname = args.target.partition("::")
    if not sep or not qualname:
        sys.stderr.write("tensorshape shapefn: expected FILE::QUALNAME, such as model.py::Block.forward\n")
        return 2
    inputs: dict[str, str] = {}
    for item in args.input:
        name, eq, spec = item.partition("=")
        if not eq or not name.strip():
            sys.stderr.write(f"tensorshape shapefn: --input expects NAME=SHAPE, got {item!r}\n")
            return 2
        inputs[name.strip()] = spec
    if not Path(path).is_file():
        sys.stderr.write(f"tensorshape shapefn: no such file: {path}\n")
        return 2
    try:
        fn = derive(path, qualname, inputs)
    except ShapeFunctionUnavailable as e:
        sys.stderr.write(f"tensorshape shapefn: {e.message}\n")
        for d in e.diagnostics[1:]:
            sys.stderr.write(f"  {path}:{d.span.line}:{d.span.column + 1}: {d.message}\n")
        return 1
    text = fn.python_source() if args.emit == "python" else json.dumps(fn.to_json(), indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
