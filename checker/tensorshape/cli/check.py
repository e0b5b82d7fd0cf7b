"""``tensorshape check [PATH...]``: check files and report shape problems."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..infer.result import CheckSettings, FileResult
from ..model import codes
from ..model.diagnostics import Severity
from ..report import FORMATS
from ..report.summary import summarize
from .cache import Cache
from .config import Config, ConfigError, check_settings, default_cache_dir, load_config
from .files import collect_files, unusable
from .runner import Progress, run_check, shard

__all__ = ["add_parser", "run", "settings_from"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "check",
        help="check files for shape errors",
        description="Check Python files for tensor shape errors and report them (exit status 1 when there are "
        "errors, 2 on a usage or internal failure).",
    )
    p.add_argument("paths", nargs="*", help="files or folders (default: paths from [tool.tensorshape], else .)")
    p.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format (default: text)")
    p.add_argument("--output", "-o", metavar="FILE", help="write the report to a file instead of stdout")
    p.add_argument("--config", type=Path, metavar="FILE", help="pyproject.toml to read (default: the nearest one)")
    p.add_argument(
        "--no-cache", action="store_true", help="do not read or write the result cache or the library summaries"
    )
    p.add_argument("--cache-dir", type=Path, metavar="DIR", help="cache folder (default: $XDG_CACHE_HOME/tensorshape)")
    p.add_argument("--jobs", "-j", type=int, default=None, metavar="N", help="worker processes (default: one per core)")
    p.add_argument("--statistics", action="store_true", help="print how many tensor expressions have known shapes")
    p.add_argument("--vollo", action="store_true", default=None, help="apply the Vollo data-dimension rules")
    p.add_argument(
        "--allow-dynamic-weights", action="store_true", default=None, help="mirror Vollo's allow_dynamic_weights"
    )
    p.add_argument(
        "--enable", action="append", default=[], metavar="CODE", help="turn on a code that is off by default"
    )
    p.add_argument("--disable", action="append", default=[], metavar="CODE", help="turn a code off")
    p.add_argument("--show-obligations", action="store_true", help="also report runtime obligations (TS901)")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB", help="skip matching paths")
    p.add_argument(
        "--shard",
        type=_shard_spec,
        metavar="K/N",
        help="check only part K of N of the files (whole folders, the same split on every machine); "
        "join the parts' reports with `tensorshape merge-reports`",
    )
    p.add_argument(
        "--color", choices=("auto", "always", "never"), default="auto", help="color the text output (default: auto)"
    )
    p.add_argument(
        "--progress",
        choices=("auto", "always", "never"),
        default="auto",
        help="show a progress bar on stderr (default: auto, only on a terminal and not in CI)",
    )
    p.set_defaults(run=run)


def _shard_spec(text: str) -> tuple[int, int]:
    k, sep, n = text.partition("/")
    if not (sep and k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise argparse.ArgumentTypeError(f"expected K/N with 1 <= K <= N (e.g. 2/4), got {text!r}")
    return int(k), int(n)


def settings_from(cfg: Config, args: argparse.Namespace) -> CheckSettings:
    return check_settings(
        cfg,
        enable=args.enable,
        disable=args.disable,
        show_obligations=args.show_obligations,
        vollo=args.vollo,
        allow_dynamic_weights=args.allow_dynamic_weights,
    )


def run(args: argparse.Namespace) -> int:
    try:
        start = Path(args.paths[0]) if args.paths else Path.cwd()
        cfg = load_config(args.config, start)
        settings = settings_from(cfg, args)
        # Where each counted cause was first met is shown by ``--statistics`` and the JSON summary only:
        # finding a location costs a code generation of the statement that holds it.
        settings = replace(settings, examples=args.statistics or args.format == "json")
    except ConfigError as e:
        sys.stderr.write(f"tensorshape: {codes.CONFIG_ERROR.id} {codes.CONFIG_ERROR.name}: {e}\n")
        return 2
    paths = args.paths or [str(cfg.root / p) for p in cfg.paths] or ["."]
    bad = [why for p in paths if (why := unusable(p)) is not None]
    if bad:
        sys.stderr.write("".join(f"tensorshape: error: cannot check {why}\n" for why in bad))
        return 2
    problems: list[str] = []
    files = collect_files(paths, cfg.root, [*cfg.exclude, *args.exclude], problems)
    for why in problems:
        sys.stderr.write(f"tensorshape: warning: {why}\n")
    if not files:
        sys.stderr.write("tensorshape: error: no Python files to check\n")
        return 2
    if args.shard:
        files = shard(files, *args.shard)
    cache = None
    if not args.no_cache:
        key = repr(
            (
                settings.options,
                sorted(settings.enable),
                sorted((k, str(v)) for k, v in settings.severity.items()),
                settings.bare_type_ignore,
                settings.file_timeout,
                settings.examples,
                # which installed packages are read from source changes what an import resolves to
                cfg.follow_libraries,
                cfg.python_executable,
                cfg.python_path,
                cfg.library_exclude,
                cfg.library_include,
            )
        )
        cache = Cache(args.cache_dir or cfg.cache_dir or default_cache_dir(), key)
    jobs = args.jobs if args.jobs is not None else cfg.jobs
    enabled = {"always": True, "never": False}.get(args.progress)
    progress = Progress(len(files), enabled)
    roots = [cfg.root / r for r in cfg.roots]
    try:
        results = run_check(
            files,
            settings,
            cache=cache,
            jobs=jobs,
            roots=roots,
            progress=progress,
            libraries=cfg.libraries(summaries=not args.no_cache),
        )
    finally:
        progress.close()
    if cache is not None and sys.stderr is not None:
        if cache.write_failure is not None:
            sys.stderr.write(f"tensorshape: warning: results not cached: {cache.write_failure}\n")
        for path in cache.changed:
            sys.stderr.write(f"tensorshape: warning: {path} changed during the run; its result is not cached\n")
    color = {"always": True, "never": False}.get(args.color, sys.stdout is not None and sys.stdout.isatty())
    render = FORMATS[args.format]
    kwargs: dict[str, Any] = (
        {"statistics": args.statistics, "color": color and not args.output} if args.format == "text" else {}
    )
    text = render(results, **kwargs)
    if not _emit(text, args.output):
        return 2
    if args.statistics and args.format != "text":
        s = summarize(results)["tensor_expressions"]
        sys.stderr.write(f"tensor expressions: {s['known']} known, {s['symbolic']} symbolic, {s['unknown']} unknown\n")
    return exit_code(results)


def _emit(text: str, output: str | None) -> bool:
    """Write the report; on failure (a missing folder, a full disk, a closed stdout) say so in one line."""
    where = output or "standard output"
    try:
        if output:
            with open(output, "w", encoding="utf-8") as f:
                f.write(text)
        elif sys.stdout is None:
            raise OSError("it is closed")
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    except BrokenPipeError:
        raise  # the reader went away (`| head`): not an error of ours
    except (OSError, ValueError) as e:
        msg = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        if sys.stderr is not None:
            sys.stderr.write(f"tensorshape: error: cannot write the report to {where}: {msg}\n")
        return False
    return True


def exit_code(results: list[FileResult]) -> int:
    """1: shape errors found; else 2 when tensorshape itself failed on a file; else 0."""
    diags = [d for r in results for d in r.diagnostics if d.severity is Severity.ERROR]
    if any(d.code is not codes.INTERNAL_ERROR for d in diags):
        return 1
    return 2 if diags else 0
