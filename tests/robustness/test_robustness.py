"""Every hostile input ends cleanly: no traceback, no hang, no native crash (see harness.py).

The default run takes the fast subset; ``-m slow`` adds the long sweeps (every nesting kind at
five depths through check, instrument and shapefn; 200 mutants; 60 random LSP sessions)."""

from __future__ import annotations

import pytest

from .harness import Case, all_cases, run_case

_FAST = {c.name for c in all_cases(full=False)}
_CASES = [
    pytest.param(c, id=c.name, marks=[pytest.mark.slow] if c.name not in _FAST else [])
    for c in {c.name: c for c in [*all_cases(full=False), *all_cases(full=True)]}.values()
]


@pytest.mark.parametrize("case", _CASES)
def test_ends_cleanly(case: Case) -> None:
    out = run_case(case)
    assert out.kind == "clean", f"{out.kind} (exit {out.returncode}):\n{out.output[-3000:]}"
    if case.expect:
        assert out.returncode in case.expect, f"exit {out.returncode}, expected {case.expect}:\n{out.output[-2000:]}"
    assert case.says in out.output, out.output[-2000:]
