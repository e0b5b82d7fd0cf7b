"""The pre-commit hook, run by pre-commit itself (``pre-commit try-repo``) on a temporary repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_try_repo_flags_a_shape_bug(tmp_path: Path) -> None:
    repo = tmp_path / "user"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "model.py").write_text("import torch\n\ny = torch.zeros(2, 3) @ torch.zeros(4, 5)\n")
    (repo / "ok.py").write_text("import torch\n\ny = torch.zeros(2, 3) @ torch.zeros(3, 5)\n")
    _git(repo, "add", ".")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    cmd = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "tensorshape", "--all-files"]
    out = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    text = out.stdout + out.stderr
    assert out.returncode == 1, text
    assert "model.py:3" in text and "TS101" in text, text
    assert "ok.py" not in text.split("tensorshape (static shape check)")[-1].split("model.py")[0]
