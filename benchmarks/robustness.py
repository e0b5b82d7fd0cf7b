"""Counts of outcomes (clean / traceback / hang / crash) over the robustness suite's hostile inputs.

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

from harness import all_cases, count, run_case  # noqa: E402


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
    print(f"{'group':<10} {'cases':>6} {'clean':>6} {'traceback':>10} {'hang':>5} {'crash':>6}")
    for g, k in sorted(by_group.items()):
        print(f"{g:<10} {sum(k.values()):>6} {k['clean']:>6} {k['traceback']:>10} {k['hang']:>5} {k['crash']:>6}")
    print(
        f"{'total':<10} {len(cases):>6} {total['clean']:>6} {total['traceback']:>10} {total['hang']:>5} {total['crash']:>6}"
    )


if __name__ == "__main__":
    main()
