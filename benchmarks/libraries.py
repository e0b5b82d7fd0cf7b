"""Following installed model libraries (issue 22): the programs of ``tests/libraries/programs``
checked against pinned torchvision, timm and transformers installed from the package registry.

    python benchmarks/libraries.py

Each program also runs with real torch (random weights, no downloads) for the truth
(``tests/libraries/truth.py``).  Prints, per program and in total: revealed shapes exact, partial,
unknown and wrong (silently wrong: must be 0) against torch's, seeded bugs (``# E: code`` on the
line torch raises on) reported at the user's line, errors on other lines (false errors), and the
time of a first check and of a later check with the result cache warm.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.libraries.truth import PROGRAMS, SITE, install, score, total  # noqa: E402


def check(paths: list[Path], cache: Path) -> float:
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "pyproject.toml").write_text(f'[tool.tensorshape]\npython_path = ["{SITE}"]\n')
        t = time.perf_counter()
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "tensorshape",
                "check",
                "--format",
                "json",
                "--config",
                f"{d}/pyproject.toml",
                "--cache-dir",
                str(cache),
                "--jobs",
                "1",
                *map(str, paths),
            ],
            capture_output=True,
            text=True,
        )
        took = time.perf_counter() - t
    json.loads(out.stdout)  # a run that failed has no report
    return took


def main() -> None:
    site = install()
    if site is None:
        sys.exit("cannot install the pinned packages (offline?)")
    paths = list(PROGRAMS)
    with tempfile.TemporaryDirectory() as cache:
        first = check(paths, Path(cache))
        warm = check(paths, Path(cache))
    bare = check([ROOT / "examples" / "cnn.py"], Path(tempfile.mkdtemp()))
    scores = score(paths, site)
    for one in scores.values():
        print("\n".join(one.rows))
    all_ = total(scores)
    reveals = all_.exact + all_.partial + all_.unknown + all_.wrong
    pct = 100.0 * all_.exact / reveals if reveals else 0.0
    print(
        f"revealed shapes (against torch): {all_.exact}/{reveals} exact ({pct:.0f}%), {all_.partial} partial, "
        f"{all_.unknown} unknown, {all_.wrong} wrong (silently wrong: must be 0)"
    )
    print(f"seeded bugs found at the user's line: {all_.found}/{all_.bugs}")
    print(f"false errors: {all_.false_errors}")
    if all_.misplaced:
        print(f"programs whose marks disagree with torch: {all_.misplaced}")
    print(f"time: first check {first:.2f} s, warm cache {warm:.2f} s, a file without libraries {bare:.2f} s")


if __name__ == "__main__":
    main()
