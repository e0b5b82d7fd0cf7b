"""Small programs checked against torch: shared by the inference tests that need the truth.

Each case is a program body.  The checker's ``reveal_shape`` notes must match what
torch gives at that line (every observation; a note may have several views, as a
loader's last batch adds one), a line marked ``# E: <code>`` (one or more codes)
must be reported with those codes and be the line torch raises on, and a case with
no mark must check clean and run clean.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tensorshape.infer import CheckSettings, check_file
from tensorshape.infer.project import Project
from tensorshape.model.diagnostics import Severity

from tests.expectations import expected
from tests.realistic.harness import classify, torch_truth

__all__ = ["write_cases", "assert_agrees_with_torch"]


def write_cases(root: Path, header: str, cases: dict[str, str]) -> dict[str, Path]:
    out = {}
    for name, body in cases.items():
        path = root / f"{name}.py"
        path.write_text(header + textwrap.dedent(body), encoding="utf-8")
        out[name] = path
    return out


def _static(path: Path) -> tuple[dict[int, list[str]], set[tuple[int, str]]]:
    result = check_file(path, CheckSettings(), Project([path.parent]))
    reveals: dict[int, list[str]] = {}
    problems: set[tuple[int, str]] = set()
    for d in result.diagnostics:
        if d.code.id == "TS900":
            reveals.setdefault(d.span.line, []).extend(d.message.removeprefix("revealed shape: ").split("; "))
        elif d.severity >= Severity.WARNING:
            problems.add((d.span.line, d.code.id))
    return reveals, problems


def assert_agrees_with_torch(path: Path, every: dict[str, Path]) -> None:
    """The checker's view of ``path`` against torch's run of it (all of ``every`` run in one process)."""
    pytest.importorskip("torch")
    truth = torch_truth(tuple(every[n] for n in sorted(every)))[str(path)]
    reveals, problems = _static(path)
    marks = expected(path.read_text(encoding="utf-8"))
    assert problems == marks
    raised = truth["raised"]
    if marks:
        (line,) = {line for line, _ in marks}
        assert raised is not None and raised["line"] == line, raised
    else:
        assert raised is None, raised
    assert set(reveals) >= {int(k) for k in truth["reveals"]}, "a probe torch reached was not revealed"
    for line_text, observations in truth["reveals"].items():
        views = reveals[int(line_text)]
        for actual in observations:
            assert "exact" in [classify(v, actual) for v in views], (int(line_text), views, actual)
        for v in views:
            assert any(classify(v, actual) == "exact" for actual in observations), (int(line_text), v, observations)
