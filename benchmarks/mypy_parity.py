"""Figures for the parity of the two transports: ``tensorshape check`` and mypy + tensorshape_mypy.

    python benchmarks/mypy_parity.py        # one line per suite, then totals and every difference

The lines up to the rules are the table docs/mypy.md shows (tests/mypy/test_parity.py checks it).

Runs mypy with the plugin (a fresh cache: mypy analyses torch, slow) and the CLI over the corpus of
tests/mypy/test_parity.py (tests/mypy/corpus.py) and counts, per suite: files, error lines (a
(line, code) of an error or warning) each transport reports, the lines both report, and the
differences (accepted ones, with their reason in docs/mypy.md, and others, which the parity test
fails on).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.mypy.corpus import CORPUS, cli_problems  # noqa: E402
from tests.mypy.runner import Mypy  # noqa: E402
from tests.mypy.test_parity import RULES, TABLE_MARKER, parity_table  # noqa: E402


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="ts-mypy-parity-") as tmp:
        run = Mypy(Path(tmp)).run(CORPUS)
        lines, others = parity_table(run, cli_problems(CORPUS))
        print(*lines, sep="\n")
        for rule, reason in RULES.items():
            print(f"rule {rule}: {reason}")
        print("differences not accepted:", *(others or ["none"]), sep="\n  ")
        print(f"(docs/mypy.md shows the lines above the rules, in the block after {TABLE_MARKER})")
        return 1 if others else 0


if __name__ == "__main__":
    raise SystemExit(main())
