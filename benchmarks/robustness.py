"""Counts of outcomes (clean / traceback / hang / crash / damage) over the robustness suite's hostile
inputs and injected faults (a full disk, read-only files) on `instrument --write`.

    python benchmarks/robustness.py          # the fast subset (what CI runs)
    python benchmarks/robustness.py --full   # every case (a few minutes on 2 cores)

The interpreter running this script is the one whose ``tensorshape`` is tried: run it with
another checkout's venv to compare before and after.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "robustness"))

from harness import KINDS, all_cases, count, run_case  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", action="store_true", help="every case, not only the fast subset")
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds before a run counts as a hang")
    ap.add_argument("--verbose", "-v", action="store_true", help="name every case that is not clean")
    args = ap.parse_args()
    cases = all_cases(full=args.full)
    with ThreadPoolExecutor(args.jobs) as ex:
        outcomes = list(ex.map(lambda c: run_case(c, args.timeout), cases))
    by_group: dict[str, Counter[str]] = defaultdict(Counter)
    for c, o in zip(cases, outcomes):
        by_group[c.name.split(":")[0]][o.kind] += 1
        if args.verbose and o.kind != "clean":
            print(f"  {o.kind:<9} {c.name}: {o.output.strip().splitlines()[-1][:160] if o.output.strip() else ''}")
    total = count(outcomes)
    widths = [max(len(k), 5) + 1 for k in KINDS]
    print(f"{'group':<10} {'cases':>6}" + "".join(f"{k:>{w}}" for k, w in zip(KINDS, widths)))
    for g, k in [*sorted(by_group.items()), ("total", total)]:
        print(f"{g:<10} {sum(k.values()):>6}" + "".join(f"{k[kind]:>{w}}" for kind, w in zip(KINDS, widths)))


if __name__ == "__main__":
    main()
