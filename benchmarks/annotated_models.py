"""Speed on annotated models, where shapes are known: tensorshape next to libcst's parse and Pyrefly.

    python benchmarks/annotated_models.py                 # the suite, 3 interleaved repetitions
    python benchmarks/annotated_models.py --copies 4 --repeat 5
    python benchmarks/annotated_models.py --profile       # top functions of the in-process cold run
    python benchmarks/annotated_models.py --corpus        # also benchmarks/check_throughput.py's ratio

The suite is ``benchmarks/annotated_models/``: ResNet, GPT, ViT, MLP-Mixer, UNet and an
encoder-decoder transformer written as their authors write them, jaxtyping annotations at the
module boundaries.  ``--copies N`` (default 17, about 10k lines) lays out N packages of the suite
in a temporary folder, each copy with its own widths (the number literals of the layer
constructors scaled), so no two files are the same text.

Printed, each figure the best of ``--repeat`` runs, the runs interleaved (one round runs every
step once, then the next round), so load from other processes affects all of them alike.  The
figures are CPU seconds (user + system; of the child processes for the CLI steps, all workers
summed for ``-jN``), not wall clock, so a machine shared with other work still gives steady ratios
(``--wall`` prints wall-clock seconds instead):

* ``parse``: read + ``libcst.parse_module`` of every file, in this process;
* ``check -j1 (in-process)``: ``check_file`` of every file in this process, start-up excluded;
  ``without example locations``: the same without finding where each counted cause was first
  met, as ``tensorshape check`` without ``--statistics`` or JSON, the language server and the
  mypy plugin run it;
* ``cli cold -j1``, ``cli cold -jN``: ``tensorshape check`` with an empty cache (start-up included);
* ``cli warm``: the same command again with the cache it filled;
* ``cli empty file``: ``tensorshape check`` of an empty file (start-up: imports, op table);
* ``pyrefly -j1``: ``pyrefly check --threads 1`` of the same files, when pyrefly is installed;

with the ratio of each to the parse.  The issue's target: in-process cold at most 1.5x the parse.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import libcst

HERE = Path(__file__).resolve().parent
SUITE = HERE / "annotated_models"

#: A layer width in a constructor call (``nn.Linear(d, 3072)``): scaled per copy.
_WIDTH = re.compile(r"(?<=[(, =])(64|128|256|512|768|1024|2048)(?=[,)])")


def lay_out(dest: Path, copies: int) -> list[Path]:
    """``copies`` packages of the suite under ``dest``; the files, sorted."""
    for k in range(copies):
        pkg = dest / f"models_{k:02d}"
        pkg.mkdir(parents=True)
        for src in sorted(SUITE.glob("*.py")):
            text = src.read_text()
            if k and src.name != "__init__.py":
                # Widths of the layers differ from copy to copy (a family of model sizes).
                text = _WIDTH.sub(lambda m, f=1 + k % 4: str(int(m.group(0)) * f), text)
            (pkg / src.name).write_text(f"# variant {k} of benchmarks/annotated_models/{src.name}\n" + text)
    return sorted(dest.rglob("*.py"))


#: Wall-clock seconds instead of CPU seconds (``--wall``).
WALL = False


def clock() -> float:
    """This process's CPU seconds (or wall-clock seconds with ``--wall``)."""
    return time.perf_counter() if WALL else time.process_time()


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds ``cmd`` took: its CPU time (all its processes), or wall clock with ``--wall``."""
    t, c = time.perf_counter(), children_cpu()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t if WALL else children_cpu() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=17)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--wall", action="store_true", help="wall-clock seconds instead of CPU seconds")
    ap.add_argument("--corpus", action="store_true", help="also run check_throughput.py (downloads wheels)")
    args = ap.parse_args()
    global WALL
    WALL = args.wall

    from tensorshape.infer.api import CheckSettings, check_file, check_source
    from tensorshape.infer.memory import settle, tune_gc
    from tensorshape.infer.project import Project

    work = Path(tempfile.mkdtemp(prefix="ts-annotated-"))
    try:
        files = lay_out(work / "src", args.copies)
        lines = sum(p.read_bytes().count(b"\n") for p in files)
        empty = work / "empty.py"
        empty.write_text("")
        tune_gc()
        t = time.perf_counter()
        libcst.parse_module("x = 1\n")
        check_source("import torch\nx = torch.zeros(2, 3).sum(0)\n", "<warm-up>", CheckSettings())
        startup_in_process = time.perf_counter() - t

        prof = cProfile.Profile(clock) if args.profile else None
        errors = [0]

        def parse() -> float:
            t = clock()
            for p in files:
                libcst.parse_module(p.read_bytes())
            return clock() - t

        def check_j1(examples: bool = True) -> float:
            settings = CheckSettings(examples=examples)
            project = Project([work / "src"])
            errors[0] = 0
            t = clock()
            if prof:
                prof.enable()
            for p in files:
                errors[0] += len(check_file(p, settings, project).errors)
            if prof:
                prof.disable()
            settle()
            return clock() - t

        cli = [sys.executable, "-m", "tensorshape.cli.main", "check", "--format", "json"]

        def cli_cold(jobs: int) -> Callable[[], float]:
            def step() -> float:
                cache = work / "cache"
                shutil.rmtree(cache, ignore_errors=True)
                env = dict(os.environ, XDG_CACHE_HOME=str(cache))
                return run([*cli, f"-j{jobs}", str(work / "src")], env)

            return step

        def cli_warm() -> float:
            env = dict(os.environ, XDG_CACHE_HOME=str(work / "cache"))
            return run([*cli, f"-j{args.jobs}", str(work / "src")], env)

        def cli_empty() -> float:
            cache = work / "cache-empty"
            shutil.rmtree(cache, ignore_errors=True)
            return run([*cli, str(empty)], dict(os.environ, XDG_CACHE_HOME=str(cache)))

        steps: dict[str, Callable[[], float]] = {
            "parse (libcst, in-process)": parse,
            "check -j1 (in-process)": check_j1,
            "  without example locations": lambda: check_j1(False),
            "cli cold -j1": cli_cold(1),
            f"cli cold -j{args.jobs}": cli_cold(args.jobs),
            "cli warm": cli_warm,
            "cli empty file": cli_empty,
        }
        pyrefly = shutil.which("pyrefly") or (
            str(Path(sys.executable).parent / "pyrefly") if (Path(sys.executable).parent / "pyrefly").exists() else None
        )
        if pyrefly:
            steps["pyrefly -j1"] = lambda: run([pyrefly, "check", "--threads", "1", str(work / "src")])
            steps[f"pyrefly -j{args.jobs}"] = lambda: run([pyrefly, "check", str(work / "src")])
        best: dict[str, float] = {}
        for _ in range(args.repeat):
            for name, step in steps.items():
                # cli warm must follow a cold run (it reuses that cache): the order above keeps it so.
                s = step()
                best[name] = min(best.get(name, s), s)

        print(
            f"annotated models: {len(files)} files, {lines} lines ({args.copies} copies of the suite), "
            f"best of {args.repeat} interleaved runs"
        )
        base = best["parse (libcst, in-process)"]
        print(f"{'step':<30}{'wall s' if WALL else 'CPU s':>9}{'lines/s':>10}{'/ parse':>9}")
        for name, s in best.items():
            print(f"{name:<30}{s:>9.3f}{lines / s:>10.0f}{s / base:>8.2f}x")
        print(f"errors reported: {errors[0]}")
        print(f"in-process start-up (not in the figures): {startup_in_process:.2f} s")
        print(f"cold -j1 / parse: {best['check -j1 (in-process)'] / base:.2f}x (target <= 1.5x)")
        print(f"empty-file check: {best['cli empty file']:.3f} s (target < 0.2 s)")
        if pyrefly:
            print(f"cold -j1 / pyrefly -j1: {best['check -j1 (in-process)'] / best['pyrefly -j1']:.2f}x")
        if prof:
            pstats.Stats(prof).sort_stats("cumulative").print_stats(30)
            pstats.Stats(prof).sort_stats("tottime").print_stats(30)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.corpus:
        subprocess.run([sys.executable, str(HERE / "check_throughput.py")], check=False)


if __name__ == "__main__":
    main()
