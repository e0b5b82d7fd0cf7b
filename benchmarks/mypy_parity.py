"""Figures for the parity of the two transports: ``tensorshape check`` and mypy + tensorshape_mypy.

    python benchmarks/mypy_parity.py        # one line per suite, then totals and every difference

Runs mypy with the plugin (a fresh cache: mypy analyses torch, slow) and the CLI over the corpus of
tests/mypy/test_parity.py (tests/mypy/corpus.py) and counts, per suite: files, error lines (a
(line, code) of an error or warning) each transport reports, the lines both report, and the
differences (accepted ones, with their reason in docs/mypy.md, and others, which the parity test
fails on).
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.mypy.corpus import CORPUS, cli_problems, ident  # noqa: E402
from tests.mypy.runner import Mypy  # noqa: E402
from tests.mypy.test_parity import ACCEPTED, RULES, accepted_rule, mypy_problems  # noqa: E402


def _suite(name: str) -> str:
    if ":" in name:
        return name.split(":")[0]
    parts = name.split("/")
    return "/".join(parts[:3]) if parts[0] == "tests" else parts[0]


def _own_accepted() -> set[tuple[Path, int, str]]:
    by_name = {ident(p): p for p in CORPUS}
    return {(by_name[f], line, code) for f, line, code in ACCEPTED}


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="ts-mypy-parity-") as tmp:
        run = Mypy(Path(tmp)).run(CORPUS)
        cli = cli_problems(CORPUS)
        counts: dict[str, Counter[str]] = {}
        others: list[str] = []
        by_rule: Counter[str] = Counter()
        for path in CORPUS:
            name = ident(path)
            c = counts.setdefault(_suite(name), Counter())
            c["files"] += 1
            mine = {(k[0], k[2]) for k in mypy_problems(run, path) if k[2] != "TS900"}
            theirs = {(k[0], k[2]) for k in cli[path] if k[2] != "TS900"}
            c["cli"] += len(theirs)
            c["mypy"] += len(mine)
            c["equal"] += len(mine & theirs)
            for line, code in sorted(mine ^ theirs):
                rule = accepted_rule(path, line, code)
                if rule is not None:
                    c["accepted"] += 1
                    by_rule[rule] += 1
                else:
                    c["other"] += 1
                    side = "mypy only" if (line, code) in mine else "CLI only"
                    others.append(f"{name}:{line} {code} ({side})")
            notes = {k for k in mypy_problems(run, path) if k[2] == "TS900"}
            c["reveals"] += len(notes)
            c["reveals equal"] += len(notes & {k for k in cli[path] if k[2] == "TS900"})
        cols = ("files", "cli", "mypy", "equal", "accepted", "other", "reveals", "reveals equal")
        print(f"{'suite':28}" + "".join(f"{c:>9}" for c in ("files", "cli", "mypy", "equal", "accept", "other")))
        total: Counter[str] = Counter()
        for suite, c in counts.items():
            total.update(c)
            print(f"{suite:28}" + "".join(f"{c[k]:>9}" for k in cols[:6]))
        print(f"{'total':28}" + "".join(f"{total[k]:>9}" for k in cols[:6]))
        print(f"reveal_shape notes: {total['reveals equal']}/{total['reveals']} equal")
        for rule, reason in RULES.items():
            print(f"accepted ({rule}): {by_rule[rule]} lines: {reason}")
        own = sum(1 for m in run.messages if (Path(m.path).resolve(), m.line, m.code) in _own_accepted())
        print(f"mypy's own errors accepted on typed code: {own} ({len(ACCEPTED)} listed)")
        print("differences not accepted:", *(others or ["none"]), sep="\n  ")
        return 1 if others else 0


if __name__ == "__main__":
    raise SystemExit(main())
