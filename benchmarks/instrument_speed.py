"""Time of ``tensorshape instrument --diff`` against file size: it must stay linear.

    python benchmarks/instrument_speed.py [KB ...]

Generates modules of the given sizes (default 100, 200, 400 KB) of small
functions, each with two runtime obligations, and prints for each size the
time of the analysis (``check_source``, which ``instrument`` calls once) and
of instrument's own work (finding the insertion points on libcst nodes,
inserting the lines, re-instrumenting an instrumented file, which first
removes the old lines, and the unified diff), in CPU seconds (``time.process_time``:
other processes on the machine do not count) and CPU seconds per MB of
instrument's own work, so that a super-linear step shows as a growing figure.  (Issue 17: a 1.3 MB file took
over 35 s before, from a per-obligation scan of all statements and difflib.)
"""

from __future__ import annotations

import sys
import time

from tensorshape.infer.api import CheckSettings, check_source
from tensorshape.instrument import instrument_source
from tensorshape.instrument.edit import split_lines
from tensorshape.instrument.files import unified_diff

FUNCTION = '''

def f{i}(x, w, b, mode):
    """Function {i}."""
    if mode:
        y = F.linear(x, w, b)
    else:
        y = x
    return F.linear(y, w) + y.sum()
'''


def module(kb: int) -> str:
    parts = ["import torch\nimport torch.nn.functional as F\n"]
    size, i = 0, 0
    while size < kb * 1000:
        parts.append(FUNCTION.format(i=i))
        size += len(parts[-1])
        i += 1
    return "".join(parts)


def main(sizes: list[int]) -> None:
    print(f"{'size':>8}{'analysis':>10}{'instrument':>12}{'again':>8}{'diff':>8}{'s/MB (own work)':>17}{'checks':>8}")
    for kb in sizes:
        src = module(kb)
        t0 = time.process_time()
        check_source(src, "m.py", CheckSettings(obligations=True))
        t1 = time.process_time()
        r = instrument_source(src, "m.py")
        t2 = time.process_time()
        instrument_source(r.source, "m.py")
        t3 = time.process_time()
        diff = "".join(unified_diff(split_lines(src), split_lines(r.source), split_lines(src), "a/m.py", "b/m.py"))
        t4 = time.process_time()
        assert diff.count("\n+ ") == r.checks
        analysis, total = t1 - t0, t2 - t1
        own = total - analysis  # instrument_source runs the analysis once itself
        mb = len(src) / 1e6
        print(
            f"{len(src) / 1000:>6.0f}KB{analysis:>10.2f}{total:>12.2f}{t3 - t2:>8.2f}{t4 - t3:>8.3f}"
            f"{(own + t4 - t3) / mb:>17.2f}{r.checks:>8}"
        )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [100, 200, 400])
