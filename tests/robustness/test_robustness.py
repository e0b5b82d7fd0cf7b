"""Every hostile input ends cleanly: no traceback, no hang, no native crash (see harness.py).

The default run takes the fast subset; ``-m slow`` adds the long sweeps (every nesting kind at
five depths through check, instrument and shapefn; 200 mutants; 60 random LSP sessions)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .harness import TIMEOUT, Case, _damage, _snapshot, all_cases, run_case

_FAST = {c.name for c in all_cases(full=False)}
_CASES = [
    pytest.param(c, id=c.name, marks=[pytest.mark.slow] if c.name not in _FAST else [])
    for c in {c.name: c for c in [*all_cases(full=False), *all_cases(full=True)]}.values()
]


@pytest.mark.parametrize("case", _CASES)
def test_ends_cleanly(case: Case) -> None:
    # The long sweeps' biggest texts (100,000 lines through annotate or the language server) take about
    # a minute of CPU; sharing two cores with another test worker, they get three times the bound.
    out = run_case(case, timeout=TIMEOUT * 3 if case.slow else TIMEOUT)
    assert out.kind == "clean", f"{out.kind} (exit {out.returncode}):\n{out.output[-3000:]}"
    if case.expect:
        assert out.returncode in case.expect, f"exit {out.returncode}, expected {case.expect}:\n{out.output[-2000:]}"
    assert case.says in out.output, out.output[-2000:]


def test_damage_is_seen(tmp_path: Path) -> None:
    """The classifier itself: a rewrite that does not compile, and one the tool cannot take back."""
    src = "import torch\n\n\ndef f(x):\n    return x\n"
    for name in ("broken", "edited", "kept"):
        (tmp_path / f"{name}.py").write_text(src)
    before = _snapshot(tmp_path)
    (tmp_path / "broken.py").write_text(src + "def (:\n")
    (tmp_path / "edited.py").write_text(src.replace("return x", "return x + 1"))
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / ".cache")}
    assert _damage(tmp_path, before, env) == {
        "broken.py": "the rewrite does not compile",
        "edited.py": "`instrument --remove --write` does not give back the original bytes",
    }
