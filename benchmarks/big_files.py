"""Time and peak memory of `tensorshape check` on generated files of growing size (is it linear?).

    python benchmarks/big_files.py                 # 0.25, 0.5 and 1 MB model files, and cat lists
    python benchmarks/big_files.py --sizes 1 2 5   # sizes in MB

Each run is a fresh `tensorshape check --no-cache -j 1` subprocess; the figures are wall seconds,
seconds per MB, and peak RSS (MB).  The ratio column compares seconds per MB with the smallest
size: about 1.0 means linear.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BLOCK = '''
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

'''


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


def measure(source: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "m.py"
        f.write_text(source, encoding="utf-8")
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "tensorshape.cli.main", "check", "--no-cache", "-j", "1", str(f)],
            capture_output=True,
            check=False,
        )
        wall = time.perf_counter() - t
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        return wall, max(rss, before) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=float, nargs="*", default=[0.25, 0.5, 1.0], help="model file sizes in MB")
    ap.add_argument("--cat", type=int, nargs="*", default=[1000, 10_000, 100_000], help="torch.cat list lengths")
    args = ap.parse_args()
    print(f"{'input':<22}{'bytes':>11}{'seconds':>9}{'s/MB':>8}{'ratio':>7}{'peak MB':>9}")
    base = None
    for mb in args.sizes:
        src = model_source(mb)
        wall, rss = measure(src)
        per = wall / (len(src) / 1e6)
        base = base or per
        print(f"{f'model {mb:g} MB':<22}{len(src):>11,}{wall:>9.1f}{per:>8.1f}{per / base:>7.2f}{rss:>9.0f}")
    base = None
    for n in args.cat:
        src = cat_source(n)
        wall, rss = measure(src)
        per = wall / n * 1000
        base = base or per
        print(f"{f'cat of {n:,}':<22}{len(src):>11,}{wall:>9.1f}{'':>8}{per / base:>7.2f}{rss:>9.0f}")
    print("(peak MB is the largest child so far: it never decreases down the table)")


if __name__ == "__main__":
    main()
