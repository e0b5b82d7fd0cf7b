"""Every shell command shown in README.md and docs/*.md runs, exactly as written.

A command is a ``$ ``-line of a fenced ``console`` block or a line of a ``sh``/``bash``/``shell``
block.  The commands of one document run in order (``instrument --write`` then ``--remove``) with
``bash`` in a sandbox: a small user project with ``src/`` (models from ``examples/``), a
``model.py`` with a ``Block``, a copy of ``examples/`` and links to the repository's folders (for the
commands about developing tensorshape, such as benchmarks); ``tensorshape`` and ``python`` are this
environment's.  A command breaks when it exits with a status other than 0, or 1 for the commands
whose status 1 means "found errors" (``check``, ``shapefn``, ``merge-reports``), or prints a
traceback.

A block that cannot run here is marked on the line before its fence with
``<!-- not run offline: REASON -->`` (it installs from the package index, or runs the test suite
itself).  The README's first two lines (fresh-machine commands) are not fenced: .ci/run runs the
test one and ``tests/test_readme.py`` keeps the two in step.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.expectations import ROOT

MARK = re.compile(r"^<!-- not run offline: (.+) -->$")
FENCE = re.compile(r"^```(\w+)\s*$")
SHELLS = {"sh", "bash", "shell"}
#: Commands whose exit status 1 reports findings, not a failure.
FINDINGS = ("tensorshape check", "tensorshape shapefn", "tensorshape merge-reports")

MODEL = """\
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Block(nn.Module):
    def __init__(self, d: int = 64):
        super().__init__()
        self.fc = nn.Linear(d, 4 * d)

    def forward(self, x: Float[Tensor, "b t 64"]) -> Float[Tensor, "b t 256"]:
        return self.fc(x)
"""


@dataclass(frozen=True)
class Block:
    doc: str
    line: int
    commands: tuple[str, ...]
    skip: str | None


def shell_blocks(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i
        body = []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        if lang == "console":
            cmds = [b[2:] for b in body if b.startswith("$ ")]
        elif lang in SHELLS:
            cmds = [b for b in body if b.strip() and not b.lstrip().startswith("#")]
        else:
            continue
        prev = next((lines[k] for k in range(start - 1, -1, -1) if lines[k].strip()), "")
        mark = MARK.match(prev)
        out.append(Block(path.relative_to(ROOT).as_posix(), start + 1, tuple(cmds), mark.group(1) if mark else None))
    return out


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCKS = {p.relative_to(ROOT).as_posix(): shell_blocks(p) for p in DOCS}


def test_commands_are_found_and_skips_are_explained() -> None:
    runnable = [c for blocks in BLOCKS.values() for b in blocks if not b.skip for c in b.commands]
    assert len(runnable) >= 15 and any(c.startswith("tensorshape check") for c in runnable)
    for blocks in BLOCKS.values():
        for b in blocks:
            assert b.commands, f"{b.doc}:{b.line}: a shell block without a command"
            assert b.skip is None or len(b.skip) > 10, f"{b.doc}:{b.line}: say why the block cannot run"


#: The repository's own folders, linked into the sandbox for the commands about developing tensorshape
#: (a folder walk does not enter a link, so `tensorshape check .` still checks the user project only).
LINKED = ("benchmarks", "tests", "checker", "plugin", "stubs", "docs")


def _sandbox(tmp_path: Path) -> Path:
    box = tmp_path / "project"
    shutil.copytree(ROOT / "examples", box / "examples")
    for name in LINKED:
        (box / name).symlink_to(ROOT / name, target_is_directory=True)
    (box / "src").mkdir()
    for name in ("cnn.py", "mlp.py", "transformer_block.py"):
        shutil.copy(ROOT / "examples" / name, box / "src" / name)
    (box / "model.py").write_text(MODEL, encoding="utf-8")
    return box


@pytest.mark.parametrize("doc", [d for d, blocks in BLOCKS.items() if any(not b.skip for b in blocks)])
def test_documented_commands_run(doc: str, tmp_path: Path) -> None:
    box = _sandbox(tmp_path)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"), CI="true")
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env["PATH"]
    for block in BLOCKS[doc]:
        if block.skip:
            continue
        for cmd in block.commands:
            proc = subprocess.run(
                ["bash", "-c", cmd],
                cwd=box,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=300,
            )
            allowed = {0, 1} if cmd.startswith(FINDINGS) else {0}
            where = f"{block.doc}:{block.line}: `{cmd}` exited {proc.returncode}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
            assert proc.returncode in allowed, where
            assert "Traceback (most recent call last)" not in proc.stderr, where
