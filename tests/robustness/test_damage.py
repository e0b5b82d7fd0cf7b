"""The harness's damage checks are live: a damaging writer, injected into the ``instrument`` process,
makes each of them fire (and the same case with the real writer is clean).

The writer is replaced by a ``sitecustomize`` module on ``PYTHONPATH`` of the tool's processes only
(``python m.py`` runs with the case's folder as its path), so the tool runs exactly as a user's would,
with one function swapped: ``tensorshape.instrument.files.write_atomic``."""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import Case, run_case

#: Runs, and ``instrument`` puts a check before the ``F.linear`` call (its operands' shapes are unknown).
PROGRAM = """import torch
import torch.nn.functional as F


def f(x, w):
    return F.linear(x, w)


print(tuple(f(torch.zeros(2, 3), torch.zeros(4, 3)).shape))
"""

#: Each way to damage the rewrite (the text given to the writer) and what the harness must say.
INJECT = '''
import os
import re

import tensorshape.instrument.files as files

MARKER = "# tensorshape: instrument"
_write = files.write_atomic
_MODE = os.environ["TS_DAMAGE"]


def _damage(text):
    if MARKER not in text:  # ``--remove``: written as it is
        return text
    if _MODE == "runs":  # checks of instrument's own form, but for another size: they raise when run
        return "".join(
            re.sub(r'\\((\\w+), "', r'(\\1, "99 ', line) if line.rstrip().endswith(MARKER) else line
            for line in text.splitlines(keepends=True)
        )
    if _MODE == "parse":
        return text + "def (:\\n"
    if _MODE == "bytes":  # one of the user's blank lines lost
        return text.replace("\\n\\n\\n", "\\n\\n", 1)
    return text


def write_atomic(path, text, original):
    _write(path, _damage(text), original)


files.write_atomic = write_atomic
'''


@pytest.mark.parametrize(
    ("mode", "runs", "says"),
    [
        ("none", True, ""),
        ("runs", True, "m.py: the rewrite does not run as the original did (exit 1: "),
        ("parse", False, "m.py: the rewrite does not compile"),
        ("bytes", False, "m.py: `instrument --remove --write` does not give back the original bytes"),
    ],
)
def test_a_damaging_rewrite_is_seen(tmp_path: Path, mode: str, runs: bool, says: str) -> None:
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(INJECT, encoding="utf-8")

    def setup(d: Path) -> None:
        (d / "m.py").write_text(PROGRAM, encoding="utf-8")

    case = Case(
        f"damage:{mode}",
        ["instrument", "--write", "m.py"],
        setup,
        env={"PYTHONPATH": str(inject), "TS_DAMAGE": mode},
        writes=True,
        runs=runs,
    )
    out = run_case(case)
    assert "1 file(s) (wrote)" in out.output, out.output[-2000:]  # a check was inserted and written
    if mode == "none":
        assert out.kind == "clean", out.output[-2000:]
    else:
        assert out.kind == "damage", out.output[-2000:]
        assert says in out.output.split("\ndamaged: ")[-1], out.output[-2000:]
