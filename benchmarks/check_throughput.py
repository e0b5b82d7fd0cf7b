"""Throughput of ``tensorshape check`` on real model code, next to libcst's bare parse.

    python benchmarks/check_throughput.py                      # torchvision + timm
    python benchmarks/check_throughput.py --packages transformers --limit 400
    python benchmarks/check_throughput.py --profile            # top functions of the cold run

The corpus comes from ``benchmarks/corpus.py`` (downloaded wheels, never vendored).
Figures printed, per package:

* ``parse``: read + ``libcst.parse_module`` of every file, one process;
* ``cold``: the full analysis of every file, one process, no cache (it includes
  its own parse of the file and of every project module it imports);
* ``cold -jN``: the same through the CLI's parallel runner (wall clock);
* ``warm``: the CLI re-run on the unchanged tree with a populated cache
  (a fresh process, so interpreter start-up is included);

with lines per second, the ratio cold / parse (target: at most 1.5x) and the peak
resident memory (MB) of the single-process run and of the ``-jN`` run's largest process.
``--corpus DIR`` reads the unpacked packages from another folder (a shared copy).
The two single-process timings alternate file by file, so load from other
processes on the machine affects both alike, and they are CPU seconds of this
process (the CLI figures are wall clock).

One-time start-up is printed on its own and kept out of both single-process
figures, as libcst's import is: the first analysis of a process imports sympy
and loads the op table (about 0.9 s on the reference machine), the first parse
loads libcst's native module.  Both sides are warmed up on a small snippet
before the files are timed; the CLI figures (``-jN``, warm) include everything.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import libcst

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpus import PACKAGES, ensure  # noqa: E402
from tensorshape.infer.api import CheckSettings, check_file, check_source  # noqa: E402
from tensorshape.infer.memory import settle, tune_gc  # noqa: E402
from tensorshape.infer.project import Project  # noqa: E402

#: Touches what a first analysis loads: torch and nn rules, sympy arithmetic, an annotation.
WARMUP = """
import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Block(nn.Module):
    def __init__(self, d: int):
        super().__init__()
        self.fc = nn.Linear(d, 2 * d)

    def forward(self, x: Float[Tensor, "b d"]):
        b, d = x.shape
        return self.fc(x).view(b, 2, d // 2, -1).sum(-1)
"""


def startup() -> float:
    """Warm both sides up (see the module's docstring); the seconds it took."""
    t = time.process_time()
    libcst.parse_module(WARMUP)
    check_source(WARMUP, "<warm-up>", CheckSettings())
    return time.process_time() - t


def files_of(folders: list[Path], limit: int | None) -> list[Path]:
    out = sorted(p for f in folders for p in f.rglob("*.py"))
    return out[:limit] if limit else out


def bare_parse(path: Path) -> float:
    t = time.process_time()
    src = path.read_bytes()
    libcst.parse_module(src)
    return time.process_time() - t


def measure(name: str, folders: list[Path], roots: list[Path], args: argparse.Namespace) -> dict[str, float]:
    files = files_of(folders, args.limit)
    lines = sum(p.read_bytes().count(b"\n") for p in files)
    settings = CheckSettings()
    project = Project(roots)
    tune_gc()  # as the CLI's runner does; the bare parse below runs in the same process
    first = startup()
    parse_s = 0.0
    cold_s = 0.0
    errors = 0
    prof = cProfile.Profile() if args.profile else None
    for p in files:
        parse_s += bare_parse(p)
        t = time.process_time()
        if prof:
            prof.enable()
        r = check_file(p, settings, project)
        if prof:
            prof.disable()
        settle()
        cold_s += time.process_time() - t
        errors += len(r.errors)
    row = {
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "files": len(files),
        "lines": lines,
        "parse_s": parse_s,
        "cold_s": cold_s,
        "errors": errors,
        "startup_s": first,
    }
    if not args.skip_cli:
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, XDG_CACHE_HOME=cache)
            cmd = [sys.executable, "-m", "tensorshape.cli.main", "check", "--format", "json", f"-j{args.jobs}"]
            cmd += [str(p) for p in files] if args.limit else [str(f) for f in folders]
            t = time.perf_counter()
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=False)
            row["cold_par_s"] = time.perf_counter() - t
            # Children's peak: the largest process the CLI run started (the main process or a worker).
            row["par_peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            t = time.perf_counter()
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=False)
            row["warm_s"] = time.perf_counter() - t
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packages", nargs="*", default=["torchvision", "timm"])
    ap.add_argument("--limit", type=int, default=None, help="first N files of each package")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--skip-cli", action="store_true", help="only the single-process figures")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument(
        "--corpus", type=Path, default=None, help="folder of unpacked packages (default: benchmarks/.corpus)"
    )
    args = ap.parse_args()
    if args.corpus is None:
        ensure(verbose=True)
    corpus = args.corpus or HERE / ".corpus"
    rows = []
    for dist, version, folders in PACKAGES:
        if dist not in args.packages:
            continue
        root = corpus / f"{dist}-{version}"
        rows.append((dist, measure(dist, [root / f for f in folders], [root], args)))
    print(
        f"{'package':<13}{'files':>6}{'lines':>9}{'parse s':>9}{'cold s':>9}{'ratio':>7}"
        f"{'cold l/s':>10}{'-j s':>7}{'warm s':>8}{'warm ms/kfile':>14}{'errors':>7}{'peak MB':>8}{'-j MB':>7}"
    )
    for dist, r in rows:
        ratio = r["cold_s"] / r["parse_s"]
        warm = r.get("warm_s")
        per_k = f"{1000 * warm / r['files'] * 1000:>14.0f}" if warm is not None else f"{'-':>14}"
        print(
            f"{dist:<13}{r['files']:>6.0f}{r['lines']:>9.0f}{r['parse_s']:>9.2f}{r['cold_s']:>9.2f}{ratio:>6.2f}x"
            f"{r['lines'] / r['cold_s']:>10.0f}{r.get('cold_par_s', float('nan')):>7.1f}"
            f"{warm if warm is not None else float('nan'):>8.2f}{per_k}{r['errors']:>7.0f}"
            f"{r['peak_mb']:>8.0f}{r.get('par_peak_mb', float('nan')):>7.0f}"
        )
    tot_parse = sum(r["parse_s"] for _, r in rows)
    tot_cold = sum(r["cold_s"] for _, r in rows)
    print(f"overall cold / bare parse: {tot_cold / tot_parse:.2f}x (target <= 1.5x)")
    print(f"start-up (first analysis of a process, not in the figures above): {rows[0][1]['startup_s']:.2f} s")


if __name__ == "__main__":
    main()
