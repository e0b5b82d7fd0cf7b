"""``tensorshape annotate``: write jaxtyping annotations from a traced run (or from the analysis)."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "run", "traced_env"]

DEFAULT_TRACE = "tensorshape-trace.jsonl"


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "annotate",
        help="write jaxtyping shape annotations from a traced run (or from the analysis)",
        description="With --trace, run COMMAND (after `--`) with a shape tracer and annotate the project's "
        "functions from the calls it saw; with --from-trace FILE, apply a saved trace; otherwise propose "
        "what the static analysis infers for the PATHs.  Prints a unified diff unless --write.  Exit "
        "status 2 when the command failed or a file could not be read or written.",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--trace", action="store_true", help="run the command after `--` under the tracer")
    src.add_argument("--from-trace", metavar="FILE", help="apply a trace saved by an earlier --trace")
    p.add_argument("--write", action="store_true", help="rewrite the files in place (atomically)")
    p.add_argument(
        "--trace-file", metavar="FILE", default=DEFAULT_TRACE, help=f"where --trace saves the trace ({DEFAULT_TRACE})"
    )
    p.add_argument(
        "--include",
        metavar="PATH|GLOB",
        action="append",
        default=[],
        help="the project's files: only functions of files under these folders or matching these globs are "
        "traced and annotated (repeatable; default: `include` of [tool.tensorshape.annotate], else .)",
    )
    p.add_argument("--root", metavar="DIR", action="append", dest="include", help="the same as --include DIR")
    p.add_argument(
        "--exclude",
        metavar="PATH|GLOB",
        action="append",
        default=[],
        help="files or folders neither traced nor annotated (repeatable; added to `exclude` of "
        "[tool.tensorshape.annotate])",
    )
    p.add_argument("--config", type=Path, metavar="FILE", help="pyproject.toml to read (default: the nearest one)")
    p.add_argument(
        "--samples",
        type=int,
        default=8,
        metavar="N",
        help="calls recorded per function whatever their shapes (default 8); after them only calls with new "
        "shapes, up to 8*N",
    )
    p.add_argument(
        "--variable",
        metavar="SIZE=NAME",
        action="append",
        default=[],
        help="a size that is a variable even when constant in the run (32=batch)",
    )
    p.add_argument(
        "args", nargs=argparse.REMAINDER, metavar="COMMAND | PATH", help="`-- command ...` with --trace, else files"
    )
    p.set_defaults(run=run)


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")


def _variables(items: list[str]) -> dict[int, str] | None:
    out = {}
    for item in items:
        size, _, name = item.partition("=")
        if not size.strip().isdigit() or not name.strip().isidentifier():
            _say(f"tensorshape annotate: error: --variable {item!r}: expected SIZE=NAME, like 32=batch")
            return None
        out[int(size)] = name.strip()
    return out


def traced_env(
    hook: str, out: str, include: str | Sequence[str], exclude: Sequence[str], samples: int
) -> dict[str, str]:
    """The environment that traces every Python process started with it: the tracer and its
    ``sitecustomize`` are written into the folder ``hook`` (which must outlive the processes).
    ``include`` and ``exclude`` are absolute paths and globs (:func:`~tensorshape.annotate.trace.resolve_pattern`)."""
    from ..annotate import trace as tracer

    shutil.copyfile(tracer.__file__, Path(hook, "_tensorshape_trace.py"))
    Path(hook, "sitecustomize.py").write_text(tracer.hook_source(), encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([hook, *filter(None, [env.get("PYTHONPATH")])])
    env[tracer.ENV_FILE] = out
    env[tracer.ENV_INCLUDE] = os.pathsep.join([include] if isinstance(include, str) else include)
    env.pop(tracer.ENV_ROOT, None)
    env[tracer.ENV_EXCLUDE] = os.pathsep.join([*exclude, os.path.realpath(sys.prefix)])
    env[tracer.ENV_SAMPLES] = str(max(1, samples))
    return env


def _scope(args: argparse.Namespace) -> tuple[list[str], list[str], bool]:
    """The project's files as absolute paths and globs: included, excluded (the command line's
    relative to the current folder, the configuration's to its ``pyproject.toml``), and whether
    either was given (a saved trace is then filtered too).  :class:`ConfigError` when the
    configuration is invalid."""
    from ..annotate.trace import resolve_pattern
    from .config import load_config

    cfg = load_config(args.config, Path.cwd())
    here, there = os.getcwd(), str(cfg.root)
    include = [resolve_pattern(p, here) for p in args.include or []]
    if not include and cfg.annotate_include is not None:
        include = [resolve_pattern(p, there) for p in cfg.annotate_include]
    exclude = [resolve_pattern(p, there) for p in cfg.annotate_exclude]
    exclude += [resolve_pattern(p, here) for p in args.exclude]
    given = bool(include or exclude)
    return include or [resolve_pattern(".", here)], exclude, given


def _run_traced(args: argparse.Namespace, command: list[str], include: list[str], exclude: list[str]) -> int:
    out = Path(args.trace_file).resolve()
    out.write_text("", encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="tensorshape-trace-") as hook:
        env = traced_env(hook, str(out), include, exclude, args.samples)
        try:
            return subprocess.call(command, env=env)
        except OSError as e:
            _say(f"tensorshape annotate: error: cannot run {command[0]!r}: {e}")
            return 127


def run(args: argparse.Namespace) -> int:
    from ..annotate.codemod import AnnotateResult
    from ..annotate.propose import Book, TraceError, annotate_from_trace, common_lines, load_trace, traced_files
    from ..annotate.trace import DISTINCT, matches
    from ..infer.source import failure_line
    from ..instrument.edit import split_lines
    from ..instrument.files import Source, read_source, unified_diff, write_atomic
    from .config import ConfigError
    from .instrument_cmd import _emit

    variable = _variables(args.variable)
    if variable is None:
        return 2
    try:
        include, exclude, scoped = _scope(args)
    except ConfigError as e:
        _say(f"tensorshape annotate: error: {e}")
        return 2
    rest = list(args.args)
    if rest[:1] == ["--"]:
        rest = rest[1:]
    status = 0
    if args.trace:
        if not rest:
            _say("tensorshape annotate: error: --trace needs a command after `--` (`-- python train.py`)")
            return 2
        code = _run_traced(args, rest, include, exclude)
        if code != 0:
            _say(f"tensorshape annotate: the command exited with status {code}; annotating from the calls recorded")
            status = 2
        trace_path = Path(args.trace_file)
    elif args.from_trace:
        trace_path = Path(args.from_trace)
    else:
        from ..annotate.static import run_static

        chosen = (lambda f: matches(f, include) and not matches(f, exclude)) if scoped else None
        return int(run_static(args, rest, variable, chosen))
    try:
        with open(trace_path, encoding="utf-8") as lines:
            trace = load_trace(lines, str(trace_path), samples=max(1, args.samples) * DISTINCT)
    except (OSError, UnicodeDecodeError, TraceError) as e:
        _say(f"tensorshape annotate: error: cannot read the trace: {e}")
        return 2
    files = traced_files(trace)
    if scoped:  # the project's files only, a saved trace's too
        files = [f for f in files if matches(str(f), include) and not matches(str(f), exclude)]
    if rest and not args.trace:  # --from-trace FILE PATH...: only those files
        keep = {os.path.realpath(p) for p in rest}
        files = [f for f in files if str(f) in keep or any(str(f).startswith(os.path.join(k, "")) for k in keep)]
    written = functions = failed = 0
    cwd = Path.cwd()
    book = Book(trace)  # the callers' names, across the files
    done: dict[Path, tuple[Source, AnnotateResult]] = {}
    for f in files:
        shown = os.path.relpath(f, cwd) if str(f).startswith(str(cwd)) else str(f)
        try:
            src = read_source(f)
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError) as e:
            _say(failure_line(shown, e, "cannot read"))
            failed += 1
            continue
        try:
            done[f] = (src, annotate_from_trace(src.text, str(f), trace, variable, book))
        except Exception as e:  # noqa: BLE001 - one file that cannot be parsed; the others go on
            _say(failure_line(shown, e, "not annotated"))
            failed += 1
    for f in [f for f in done if str(f) in book.waiting]:  # a caller in a file done after it: again
        done[f] = (done[f][0], annotate_from_trace(done[f][0].text, str(f), trace, variable, book))
    for f, (src, r) in done.items():
        shown = os.path.relpath(f, cwd) if str(f).startswith(str(cwd)) else str(f)
        for m in r.messages:
            _say(m.replace(str(f), shown, 1))
        if r.source == src.text:
            continue
        written += len(r.written)
        functions += len({q for q, _, _ in r.written})
        if args.write:
            try:
                write_atomic(f, r.source, src)
            except (OSError, UnicodeEncodeError, LookupError) as e:
                _say(f"{shown}: error: not written, the file is unchanged: {e}")
                failed += 1
        else:
            a, b = split_lines(src.text), split_lines(r.source)
            _emit("".join(unified_diff(a, b, common_lines(a, b), f"a/{shown}", f"b/{shown}")), src.encoding)
    verb = "wrote" if args.write else "would write"
    _say(
        f"tensorshape annotate: {verb} {written} annotation(s) in {functions} function(s) from {trace.records} "
        f"traced call(s) of {sum(len(v) for v in trace.calls.values())} function(s)"
        + (f"; {failed} file(s) failed" if failed else "")
    )
    return 2 if failed else status
