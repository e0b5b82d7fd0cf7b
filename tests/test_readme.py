"""The README's first lines give commands that work; .ci/run runs the test one."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    head = ROOT.joinpath("README.md").read_text(encoding="utf-8").splitlines()[:6]
    return [m.group(1) for line in head for m in re.finditer(r"`([^`]*python3 -m venv[^`]*)`", line)]


def test_ci_runs_the_readme_test_command() -> None:
    cmds = readme_commands()
    test_cmds = [c for c in cmds if "pytest" in c]
    assert test_cmds, "the README's first lines must give the test command"
    ci = ROOT.joinpath(".ci", "run").read_text(encoding="utf-8")
    assert test_cmds[0] in ci
