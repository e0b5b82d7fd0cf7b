"""The pre-commit hook, run by pre-commit itself (``pre-commit try-repo``) on a temporary repository."""

from __future__ import annotations

import os
import re
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


def _documented_configs() -> list[str]:
    """The ``.pre-commit-config.yaml`` blocks of docs/ci.md."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```yaml\n(.*?)^```", text, re.M | re.S)
    return [b for b in blocks if b.startswith("# .pre-commit-config.yaml")]


def _user_repo(tmp_path: Path, config: str) -> tuple[Path, dict[str, str]]:
    repo = tmp_path / "user"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "model.py").write_text("import torch\n\ny = torch.zeros(2, 3) @ torch.zeros(4, 5)\n")
    (repo / "ok.py").write_text("import torch\n\ny = torch.zeros(2, 3) @ torch.zeros(3, 5)\n")
    (repo / ".pre-commit-config.yaml").write_text(config)
    _git(repo, "add", ".")
    bin_dir = str(Path(sys.executable).parent)  # where this environment's `tensorshape` is
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"), PATH=bin_dir + os.pathsep + os.environ["PATH"])
    return repo, env


def _pre_commit_run(repo: Path, env: dict[str, str]) -> None:
    cmd = [sys.executable, "-m", "pre_commit", "run", "--all-files"]
    out = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    text = out.stdout + out.stderr
    assert out.returncode == 1, text
    assert "model.py:3" in text and "TS101" in text and "ok.py" not in text, text


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_documented_local_hook_as_written(tmp_path: Path) -> None:
    (local,) = [c for c in _documented_configs() if "repo: local" in c]
    _pre_commit_run(*_user_repo(tmp_path, local))


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_documented_hook_pinned_to_a_commit(tmp_path: Path) -> None:
    """The URL and the placeholder SHA are replaced by this checkout and its commit (no git host here)."""
    (pinned,) = [c for c in _documented_configs() if "rev:" in c]
    sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    config = re.sub(r"repo: \S+", f"repo: {ROOT.as_posix()}", pinned)
    config = re.sub(r"rev: [0-9a-f]{40}", f"rev: {sha.strip()}", config)
    assert sha.strip() in config and ROOT.as_posix() in config
    _pre_commit_run(*_user_repo(tmp_path, config))
