"""How much the plugin adds to a mypy run: plain mypy vs mypy + tensorshape_mypy.

The tree is ``examples/`` plus a generated package of model code (``--modules``
files mixing jaxtyping-annotated functions, ``nn.Module`` classes and plain
torch code).  Each configuration runs in a subprocess with its own cache:

* cold: an empty cache (mypy analyses torch too);
* warm: the same command again, nothing changed;
* edit: one generated file changed, the rest from the cache;
* kept worker (``TENSORSHAPE_MYPY_WORKER_IDLE``: the worker stays between separate ``mypy``
  runs of the project): one file edited, and a cold run (empty cache) while the worker is alive,
  each counting the kept worker's CPU during the run (from ``/proc``), against plain mypy's edit
  and cold runs;
* daemon edit: what the plugin adds to a ``dmypy`` build after an edit, whose worker is kept
  between builds: the CPU of a new worker (interpreter, the analysis's imports, one module)
  against the kept worker analysing the edited module again (the analysis only: the daemon's
  own build is the same with and without the plugin).

tensorshape's own modules are compiled to bytecode first, as an installed wheel has them.

Warm runs are short (well under a second) and noisy on a shared machine, so
they are repeated (``--warm-runs``, alternating plain and plugin) and the
medians are compared, for wall time and for CPU time (user + system).

    python benchmarks/mypy_overhead.py [--modules 60] [--repeat 1] [--warm-runs 15]

Targets: plugin/plain at most 1.1x, cold and warm (a warm run re-checks, re-parses and
re-analyses nothing).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_MODULE = '''
"""Generated model code #{i}."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


def attention{i}(q: Float[Tensor, "b h t e"], k: Float[Tensor, "b h s e"], v: Float[Tensor, "b h s e"]) -> Float[Tensor, "b h t e"]:
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    return F.softmax(scores, dim=-1) @ v


class Block{i}(nn.Module):
    def __init__(self, d: int = {d}, hidden: int = {h}) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)
        self.drop = nn.Dropout(0.1)

    def forward(self, x: Float[Tensor, "b t {d}"]) -> Float[Tensor, "b t {d}"]:
        h = self.fc1(self.norm(x))
        return x + self.fc2(self.drop(F.gelu(h)))


class Plain{i}(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Linear(16 * 16 * 16, 10)

    def forward(self, x: Tensor) -> Tensor:
        x = self.pool(torch.relu(self.conv(x)))
        return self.head(torch.flatten(x, 1))


def helper{i}(xs: list[Tensor], n: int) -> Tensor:
    total = torch.cat(xs, dim=0)
    counts = {{str(j): j * n for j in range(4)}}
    return total.view(n, -1).sum(dim=1) + len(counts)


def demo{i}() -> Tensor:
    a = torch.randn(2, 4, 10, 16)
    out = attention{i}(a, a, a)
    block = Block{i}()
    y = block(torch.randn(2, 10, {d}))
    return out.mean() + y.mean() + Plain{i}()(torch.randn(1, 3, 32, 32)).sum()
'''


def generate(root: Path, n: int) -> Path:
    pkg = root / "genmodels"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    for i in range(n):
        d = 32 * (1 + i % 4)
        (pkg / f"m{i:03d}.py").write_text(_MODULE.format(i=i, d=d, h=4 * d), encoding="utf-8")
    shutil.copytree(ROOT / "examples", root / "examples")
    return pkg


def _compile_bytecode() -> None:
    """Compile tensorshape's and the plugin's modules, as installing the wheel does, and the op table: in a source checkout
    run with ``PYTHONDONTWRITEBYTECODE`` set, every worker would compile them again (about 0.1 s of
    CPU a run), which no installed plugin pays.  mypy and the other packages are installed."""
    import compileall

    import tensorshape
    import tensorshape_mypy

    for package in (tensorshape, tensorshape_mypy):
        compileall.compile_dir(str(Path(package.__file__).parent), quiet=1)
    # The op table too, compiled by the first run of an installed plugin (not written under
    # PYTHONDONTWRITEBYTECODE, as bytecode is not).
    from tensorshape.rules import stubs

    root = stubs.stubs_dir()
    paths = sorted(root.glob("*.shapes.pyi"))
    stubs.write_table(stubs.parse_table(paths), root, stubs.table_key(root, paths))


def _config(root: Path, plugin: bool) -> Path:
    cfg = root / ("mypy-plugin.ini" if plugin else "mypy-plain.ini")
    lines = ["[mypy]", "check_untyped_defs = True"]
    if plugin:
        lines.append("plugins = tensorshape_mypy")
    cfg.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return cfg


def _run(root: Path, plugin: bool) -> float:
    return _run_cpu(root, plugin)[0]


def _run_cpu(root: Path, plugin: bool, kept: bool = False) -> tuple[float, float]:
    """Wall and CPU seconds of one mypy run (with ``kept``, the kept worker's CPU during it counts)."""
    cfg = _config(root, plugin)
    cache = root / (".cache-plugin" if plugin else ".cache-plain")
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(cfg), "--cache-dir", str(cache), "genmodels", "examples"]
    env = dict(os.environ, TENSORSHAPE_MYPY_WORKER_IDLE="600" if kept else "0")
    worker_before = _kept_cpu(cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1) or "error: INTERNAL" in proc.stdout + proc.stderr:
        raise SystemExit(f"mypy failed:\n{proc.stdout}\n{proc.stderr}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return elapsed, cpu + _kept_cpu(cache) - worker_before


def _kept_cpu(cache: Path) -> float:
    """CPU seconds so far of the worker kept for the project with this mypy cache (0: none)."""
    from tensorshape_mypy.channel import socket_path

    try:
        pid = int(socket_path(cache / "tensorshape").with_suffix(".pid").read_text(encoding="utf-8"))
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    except (OSError, ValueError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


_DAEMON = """
import sys, time
from pathlib import Path
t0 = time.process_time()
from tensorshape_mypy.session import Session
s = Session(None)
s.warm_up()
path = sys.argv[1]
s.result(path)
t1 = time.process_time()
p = Path(path)
p.write_text(p.read_text(encoding="utf-8") + "\\nDAEMON_EDIT = 1\\n", encoding="utf-8")
s.forget(path)
s.result(path)
print(t1 - t0, time.process_time() - t1)
"""


def _daemon_edit(target: Path) -> tuple[float, float]:
    """CPU seconds of a new worker (start, imports, one module) and of a kept one after an edit."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-c", _DAEMON, str(target)], capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    _, kept = (float(x) for x in proc.stdout.split())
    total = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return total - kept, kept


def _spread(samples: dict[str, dict[bool, list[tuple[float, float]]]]) -> str:
    """CPU seconds per phase: median and range of each configuration, and of the ratios of the pairs.

    Runs of a phase alternate plain and plugin, so the i-th plain run and the i-th plugin run saw
    about the same load: their ratio is the fairest figure on a shared machine, and the range of
    those ratios says whether a difference between the medians is more than noise.
    """
    lines = [
        f"{'CPU spread':<14} {'n':>3} {'plain median [min-max]':>26} {'plugin median [min-max]':>26} {'pair ratios median [min-max]':>32}"
    ]
    for phase, runs in samples.items():
        plain = [c for _, c in runs[False]]
        plug = [c for _, c in runs[True]]
        if not plain or not plug:
            continue
        ratios = [b / a for a, b in zip(plain, plug)]
        cells = [f"{statistics.median(xs):.2f}s [{min(xs):.2f}-{max(xs):.2f}]" for xs in (plain, plug)]
        r = f"{statistics.median(ratios):.2f}x [{min(ratios):.2f}-{max(ratios):.2f}]"
        lines.append(f"{phase:<14} {len(ratios):>3} {cells[0]:>26} {cells[1]:>26} {r:>32}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--modules", type=int, default=60, help="generated modules (default 60)")
    ap.add_argument("--repeat", type=int, default=1, help="take the best of N runs per phase")
    ap.add_argument("--warm-runs", type=int, default=15, help="warm runs per configuration (medians compared)")
    args = ap.parse_args(argv)
    _compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="ts-mypy-bench-") as tmp:
        root = Path(tmp)
        pkg = generate(root, args.modules)
        results: dict[tuple[str, bool], float] = {}
        # Cold runs interleaved (plain, plugin, plain, plugin...): a shared machine's load changes
        # over minutes, and both configurations see the same.
        cold: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
        for _ in range(args.repeat):
            for plugin in (False, True):
                shutil.rmtree(root / (".cache-plugin" if plugin else ".cache-plain"), ignore_errors=True)
                cold[plugin].append(_run_cpu(root, plugin))
        for plugin in (False, True):
            results[("cold", plugin)] = min(w for w, _ in cold[plugin])
            results[("cold cpu", plugin)] = min(c for _, c in cold[plugin])
            _run(root, plugin)  # the cache is complete after one warm run
        samples: dict[str, dict[bool, list[tuple[float, float]]]] = {"cold": cold}
        edits: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
        for r in range(args.repeat):
            for plugin in (False, True):
                target = pkg / "m000.py"
                target.write_text(target.read_text(encoding="utf-8") + f"\nEDIT_{plugin}_{r} = {r}\n", encoding="utf-8")
                edits[plugin].append(_run_cpu(root, plugin))
        samples["edit"] = edits
        for plugin in (False, True):
            results[("edit", plugin)] = min(w for w, _ in edits[plugin])
            results[("edit cpu", plugin)] = min(c for _, c in edits[plugin])
        warm: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
        for _ in range(args.warm_runs):
            for plugin in (False, True):
                warm[plugin].append(_run_cpu(root, plugin))
        samples["warm"] = warm
        for plugin in (False, True):
            results[("warm", plugin)] = statistics.median(w for w, _ in warm[plugin])
            results[("warm cpu", plugin)] = statistics.median(c for _, c in warm[plugin])
        # The worker kept between runs: started by a first run after an edit, then measured.
        kept_edits: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
        target = pkg / "m002.py"
        try:
            target.write_text(target.read_text(encoding="utf-8") + "\nKEPT_START = 0\n", encoding="utf-8")
            _run_cpu(root, True, kept=True)
            for r in range(args.repeat):
                for plugin in (False, True):
                    target.write_text(
                        target.read_text(encoding="utf-8") + f"\nKEPT_{plugin}_{r} = {r}\n", encoding="utf-8"
                    )
                    kept_edits[plugin].append(_run_cpu(root, plugin, kept=plugin))
            samples["kept edit"] = kept_edits
            results[("kept edit", False)] = min(w for w, _ in kept_edits[False])
            results[("kept edit", True)] = min(w for w, _ in kept_edits[True])
            results[("kept edit cpu", False)] = min(c for _, c in kept_edits[False])
            results[("kept edit cpu", True)] = min(c for _, c in kept_edits[True])
            # A cold pair again, interleaved: plain, then the plugin with the worker alive.
            for plugin in (False, True):
                shutil.rmtree(root / (".cache-plugin" if plugin else ".cache-plain"), ignore_errors=True)
                results[("kept cold", plugin)], results[("kept cold cpu", plugin)] = _run_cpu(root, plugin, kept=plugin)
        finally:
            from tensorshape_mypy.channel import stop_kept

            stop_kept(root / ".cache-plugin" / "tensorshape")
        fresh, kept = _daemon_edit(pkg / "m001.py")
        files = args.modules + len(list((root / "examples").rglob("*.py")))
        print(f"tree: {files} files (examples/ + {args.modules} generated modules)")
        print(f"{'phase':<14} {'plain':>8} {'plugin':>8} {'ratio':>7}   (warm: medians of {args.warm_runs} runs)")
        phases = ("cold", "cold cpu", "warm", "warm cpu", "edit", "edit cpu")
        kept_phases = ("kept edit", "kept edit cpu", "kept cold", "kept cold cpu")
        for phase in (*phases, *kept_phases):
            plain, plug = results[(phase, False)], results[(phase, True)]
            print(f"{phase:<14} {plain:>7.2f}s {plug:>7.2f}s {plug / plain:>6.2f}x")
        plain_edit = results[("edit cpu", False)]
        print(
            f"daemon edit: the plugin's CPU per build with a new worker {fresh:.2f}s, with the kept worker "
            f"{kept:.2f}s ({(plain_edit + kept) / plain_edit:.2f}x of plain mypy's edit CPU with the kept one)"
        )
        print(_spread(samples))
        print("kept: the worker kept between runs (TENSORSHAPE_MYPY_WORKER_IDLE), its CPU counted;")
        print("      kept cold: an empty mypy cache with the worker alive, against a plain cold run just before")
        print("targets: cold <= 1.10x, warm <= 1.10x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
