"""Truth from torch for the library programs (``programs/*.py``, issue 22).

Each program runs with real torch (random weights, no downloads) through the realistic suites'
runner, and the checker's view of it (installed packages followed) is scored as there
(:mod:`tests.realistic.harness`): every ``reveal_shape`` line is exact, partial, unknown or wrong
(a silently wrong shape), every seeded bug (``# E: code`` on the line torch raises on) is found at
the user's line or missed, and any other error is a false error.  timm and transformers are
installed at pinned versions, without dependencies, into a cache folder (``benchmarks/.libs``), which
is what the checker follows; the torch run also needs transformers' own dependencies (tokenizers,
huggingface_hub, ...), installed beside it in ``.deps`` and seen by the run only.  torchvision is the
one of the test extras.
"""

from __future__ import annotations

import fcntl
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from tensorshape.infer.libraries import Libraries

from tests.realistic.harness import check, marked_bug, probes, torch_truth

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted((Path(__file__).parent / "programs").glob("*.py"))
SITE = ROOT / "benchmarks" / ".libs"
#: huggingface_hub is what transformers' configuration classes are decorated with (``@strict``): a
#: user's environment has it beside transformers, so the checker follows it too.
PINS = ("torchvision==0.28.0", "timm==1.0.31", "transformers==5.23.0", "huggingface_hub==2.4.0")
#: Packages whose dependencies the torch run needs (never torch: it is there already).
RUNTIME = ("transformers==5.23.0",)
DEPS = SITE / ".deps"
_HUB = re.compile(r"^\s*(?:import|from)\s+(timm|transformers)\b", re.M)


def needs_site(path: Path) -> bool:
    """Whether a program imports a package installed into the cache folder (timm, transformers)."""
    return _HUB.search(path.read_text(encoding="utf-8")) is not None


def install() -> Path | None:
    """The pinned packages, once, into the cache folder; ``None`` when they cannot be installed
    (offline)."""
    pins = SITE / ".pins"
    want = "\n".join((*PINS, "deps:", *RUNTIME))
    SITE.mkdir(parents=True, exist_ok=True)
    # One installer at a time: the test workers all ask for the folder at once, and two pips
    # writing one --target folder corrupt it (the others wait, then find the pins written).
    with (SITE.parent / ".libs.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if pins.is_file() and pins.read_text() == want:
            return SITE
        pip = [sys.executable, "-m", "pip", "install", "-q", "--upgrade", "--timeout", "60", "--target"]
        for cmd in ([*pip, str(SITE), "--no-deps", *PINS], [*pip, str(DEPS), *RUNTIME]):
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            except subprocess.TimeoutExpired:
                return None
            if done.returncode != 0:
                return None
        pins.write_text(want)
        return SITE


@dataclass
class Score:
    exact: int = 0
    partial: int = 0
    unknown: int = 0
    wrong: int = 0
    bugs: int = 0
    found: int = 0
    false_errors: int = 0
    #: Seeded bugs whose marked line is not the line torch raises on (the program is wrong).
    misplaced: list[str] = field(default_factory=list)
    rows: list[str] = field(default_factory=list)

    def add(self, other: Score) -> None:
        for name in ("exact", "partial", "unknown", "wrong", "bugs", "found", "false_errors"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.misplaced += other.misplaced
        self.rows += other.rows

    def summary(self) -> str:
        return (
            f"revealed shapes: {self.exact} exact, {self.partial} partial, {self.unknown} unknown, "
            f"{self.wrong} wrong; seeded bugs found at the user's line: {self.found}/{self.bugs}; "
            f"false errors: {self.false_errors}"
        )


def total(scores: dict[str, Score]) -> Score:
    out = Score()
    for one in scores.values():
        out.add(one)
    return out


def score(paths: list[Path], site: Path | None = None) -> dict[str, Score]:
    """Run ``paths`` with torch (in one process) and check them (installed packages followed, ``site``
    first): each file's score by name."""
    python_path = (str(site),) if site else ()
    seen = torch_truth(tuple(paths), (*python_path, str(DEPS)) if site else ())
    libraries = Libraries.of_environment(python_path=python_path)
    out: dict[str, Score] = {}
    for path in paths:
        one = Score()
        record = seen[str(path)]
        static = check(path, libraries)
        marks = marked_bug(path)
        raised = record["raised"]
        for line, _code in marks:
            if raised is None or raised["line"] != line:
                one.misplaced.append(f"{path.name}:{line} (torch: {raised})")
        if not marks and raised is not None:
            one.misplaced.append(f"{path.name}: torch raised {raised}")
        shown = []
        for probe in probes(path, static, record):
            setattr(one, probe.verdict, getattr(one, probe.verdict) + 1)
            shown.append(f"{probe.line}: {' | '.join(probe.static) or '-'} (torch {probe.actual[0]}) {probe.verdict}")
        one.bugs = len(marks)
        one.found = len(marks & static.errors)
        one.false_errors = len({line for line, _ in static.errors} - {line for line, _ in marks})
        errors = sorted(static.errors)
        one.rows.append(f"{path.name}: {'; '.join(shown) or 'no reveals'}; bugs {len(marks)}, errors {errors}")
        out[path.name] = one
    return out
