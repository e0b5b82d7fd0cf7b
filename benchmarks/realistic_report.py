"""Figures for the realistic suites (tests/realistic): shapes the checker gets, bugs, false errors, time.

    python benchmarks/realistic_report.py           # one line per file, then totals

Needs torch (each file runs once with real torch for the truth).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.realistic.harness import BUGS, PROGRAMS, check, marked_bug, probes, truth  # noqa: E402


def main() -> None:
    totals: Counter[str] = Counter()
    seconds = 0.0
    print(f"{'file':38} {'exact':>5} {'part':>5} {'unkn':>5} {'wrong':>5}  {'time':>6}  verdict")
    for path in PROGRAMS + BUGS:
        static = check(path)
        seconds += static.seconds
        counts = Counter(p.verdict for p in probes(path, static))
        totals.update(counts)
        if path in BUGS:
            marks = marked_bug(path)
            found = bool(marks & (static.errors | static.warnings))
            others = static.errors - marks
            totals["bugs"] += 1
            totals["bugs found"] += found
            totals["false errors"] += len(others)
            real = truth(path)["raised"] is not None
            verdict = ("found" if found else "MISSED") + ("" if real else " (torch does not raise!)")
        else:
            totals["programs"] += 1
            totals["false errors"] += len(static.errors)
            totals["programs with a false error"] += bool(static.errors)
            verdict = "clean" if not static.errors else f"FALSE ERRORS {sorted(static.errors)}"
        kind = "bug " if path in BUGS else "prog"
        print(
            f"{kind} {path.stem:33} {counts['exact']:5} {counts['partial']:5} {counts['unknown']:5} "
            f"{counts['wrong']:5}  {static.seconds:5.2f}s  {verdict}"
        )
    scored = sum(totals[k] for k in ("exact", "partial", "unknown", "wrong"))
    print()
    print(f"probes: {scored}; exact {totals['exact']} ({100 * totals['exact'] / max(scored, 1):.1f}%), "
          f"partial {totals['partial']}, unknown {totals['unknown']}, wrong {totals['wrong']}")
    print(f"bugs found: {totals['bugs found']} of {totals['bugs']}")
    print(f"false errors: {totals['false errors']} "
          f"({totals['programs with a false error']} of {totals['programs']} correct programs)")
    print(f"check time: {seconds:.2f} s in all, {seconds / max(len(PROGRAMS) + len(BUGS), 1):.2f} s per file")


if __name__ == "__main__":
    main()
