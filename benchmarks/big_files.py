"""Time and peak memory of `tensorshape check` on generated files of growing size (is it linear?).

    python benchmarks/big_files.py                 # 1, 2 and 5 MB model files, cat lists, instrument --diff
    python benchmarks/big_files.py --sizes 0.25 1  # sizes in MB

Each run is a fresh `tensorshape check --no-cache -j 1` subprocess with `file_timeout = 0` (the
time bound would skip the biggest files).  Figures: wall seconds, CPU seconds and CPU seconds per
MB (the machine may be shared: CPU time is the steadier figure), the ratio of seconds per MB to
the smallest size (about 1.0 means linear), the child's peak RSS, and MB of peak RSS per MB of
source above an empty file's run (the interpreter and its imports).  The last rows time
`tensorshape instrument --diff` end to end on a 1.3 MB module of small functions with runtime
obligations (issue 17 item 9: over 35 s before).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from instrument_speed import module as instrument_module  # noqa: E402

BLOCK = """
class Block{i}(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear({a}, {b})
        self.fc2 = nn.Linear({b}, {a})
        self.norm = nn.LayerNorm({a})

    def forward(self, x: Float[Tensor, "batch {a}"]) -> Float[Tensor, "batch {a}"]:
        h = torch.relu(self.fc1(x))
        y = self.fc2(h) + x
        return self.norm(y)

"""


def model_source(megabytes: float) -> str:
    head = "import torch\nfrom torch import nn, Tensor\nfrom jaxtyping import Float\n"
    parts = [head]
    size, i = len(head), 0
    while size < megabytes * 1_000_000:
        text = BLOCK.format(i=i, a=16 + i % 7, b=32 + i % 5)
        parts.append(text)
        size += len(text)
        i += 1
    return "".join(parts)


def cat_source(n: int) -> str:
    return "import torch\nx = torch.zeros(2, 3)\ny = torch.cat([" + ", ".join(["x"] * n) + "])\n"


def measure(source: str, command: tuple[str, ...] = ("check", "--no-cache", "-j", "1")) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MB) of one run of ``command`` on ``source`` in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "m.py"
        f.write_text(source, encoding="utf-8")
        (Path(tmp) / "pyproject.toml").write_text("[tool.tensorshape]\nfile_timeout = 0\n", encoding="utf-8")
        t = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "tensorshape.cli.main", *command, str(f)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=tmp,
        )
        _, _, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=float, nargs="*", default=[1.0, 2.0, 5.0], help="model file sizes in MB")
    ap.add_argument("--cat", type=int, nargs="*", default=[1000, 10_000, 100_000], help="torch.cat list lengths")
    ap.add_argument("--instrument", type=int, nargs="*", default=[1300], help="instrument --diff module sizes in KB")
    args = ap.parse_args()
    _, _, empty = measure("import torch\n")
    print(f"interpreter and imports: {empty:.0f} MB")
    print(f"{'input':<18}{'bytes':>11}{'wall s':>8}{'CPU s':>8}{'CPU s/MB':>9}{'ratio':>7}{'peak MB':>9}{'MB/MB':>7}")
    base = None
    for mb in args.sizes:
        src = model_source(mb)
        wall, cpu, rss = measure(src)
        size = len(src) / 1e6
        per = cpu / size
        base = base or per
        row = f"{f'model {mb:g} MB':<18}{len(src):>11,}{wall:>8.1f}{cpu:>8.1f}{per:>9.1f}{per / base:>7.2f}"
        print(f"{row}{rss:>9.0f}{(rss - empty) / size:>7.0f}")
    base = None
    for n in args.cat:
        src = cat_source(n)
        wall, cpu, rss = measure(src)
        per = cpu / n * 1000
        base = base or per
        print(f"{f'cat of {n:,}':<18}{len(src):>11,}{wall:>8.1f}{cpu:>8.1f}{'':>9}{per / base:>7.2f}{rss:>9.0f}")
    for kb in args.instrument:
        src = instrument_module(kb)
        wall, cpu, rss = measure(src, ("instrument", "--diff"))
        per = cpu / (len(src) / 1e6)
        row = f"{f'instrument {kb:,} KB':<18}{len(src):>11,}{wall:>8.1f}{cpu:>8.1f}{per:>9.1f}{'':>7}{rss:>9.0f}"
        print(f"{row}{(rss - empty) / (len(src) / 1e6):>7.0f}")
    print("(cat rows: ratio of CPU seconds per 1,000 items to the shortest list)")


if __name__ == "__main__":
    main()
