"""Following installed model libraries (issue 22): the programs of ``tests/libraries/programs``
checked against pinned torchvision, timm and transformers installed from the package registry.

    python benchmarks/libraries.py

Prints, per program and in total: revealed shapes exact (as the ``# [..]`` comment says), seeded
bugs (``# E: code``) reported at the user's line, errors on other lines (false errors), revealed
shapes that are fully known but differ from the comment (silently wrong), and the time of a first
check and of a later check with the result cache warm.  The expected shapes in the comments were
written from torch's documented behaviour; checking them with real torch is not done yet.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "tests" / "libraries" / "programs"
SITE = ROOT / "benchmarks" / ".libs"
PINS = ("torchvision==0.28.0", "timm==1.0.31", "transformers==5.23.0")
_EXPECT = re.compile(r"reveal_shape\(.*\)\s*#\s*(\[.*\])")
_ERROR = re.compile(r"#\s*E:\s*(TS\d+)")


def install() -> None:
    """The pinned packages, once, into ``benchmarks/.libs`` (no dependencies: torch is there already)."""
    if (SITE / ".pins").is_file() and (SITE / ".pins").read_text() == "\n".join(PINS):
        return
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--upgrade", "--target", str(SITE), *PINS],
        check=True,
    )
    (SITE / ".pins").write_text("\n".join(PINS))


def check(paths: list[Path], cache: Path) -> tuple[dict[str, list[dict[str, object]]], float]:
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "pyproject.toml").write_text(f'[tool.tensorshape]\npython_path = ["{SITE}"]\n')
        t = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-m", "tensorshape", "check", "--format", "json", "--config", f"{d}/pyproject.toml",
             "--cache-dir", str(cache), "--jobs", "1", *map(str, paths)],
            capture_output=True,
            text=True,
        )
        took = time.perf_counter() - t
    by_file: dict[str, list[dict[str, object]]] = {str(p): [] for p in paths}
    for diag in json.loads(out.stdout)["diagnostics"]:
        by_file.setdefault(str(diag["path"]), []).append(diag)
    return by_file, took


def main() -> None:
    install()
    paths = sorted(PROGRAMS.glob("*.py"))
    with tempfile.TemporaryDirectory() as cache:
        results, first = check(paths, Path(cache))
        _, warm = check(paths, Path(cache))
    _, bare = check([ROOT / "examples" / "cnn.py"], Path(tempfile.mkdtemp()))
    exact = reveals = bugs = found = false = wrong = 0
    for p in paths:
        lines = p.read_text().splitlines()
        diags = results.get(str(p), [])
        marks = {i + 1: m.group(1) for i, line in enumerate(lines) if (m := _ERROR.search(line))}
        row = []
        for i, line in enumerate(lines, 1):
            m = _EXPECT.search(line)
            if not m:
                continue
            reveals += 1
            got = next((str(d["message"]) for d in diags if d["line"] == i and d["code"] == "TS900"), "")
            shown = got.removeprefix("revealed shape: ")
            if shown == m.group(1):
                exact += 1
            elif "..." not in shown and "unknown" not in shown and shown and not re.search(r"[a-z_]", shown):
                wrong += 1
            row.append(f"{i}: {shown or '-'} (want {m.group(1)})")
        errors = [d for d in diags if d["severity"] == "error"]
        bugs += len(marks)
        found += sum(1 for ln, code in marks.items() if any(d["line"] == ln and d["code"] == code for d in errors))
        false += sum(1 for d in errors if d["line"] not in marks)
        print(f"{p.name}: {'; '.join(row) or 'no reveals'}; bugs {len(marks)}, errors {[d['line'] for d in errors]}")
    pct = 100.0 * exact / reveals if reveals else 0.0
    print(f"revealed shapes exact: {exact}/{reveals} ({pct:.0f}%)")
    print(f"seeded bugs found at the user's line: {found}/{bugs}")
    print(f"false errors: {false}")
    print(f"silently wrong shapes: {wrong}")
    print(f"time: first check {first:.2f} s, warm cache {warm:.2f} s, a file without libraries {bare:.2f} s")


if __name__ == "__main__":
    main()
