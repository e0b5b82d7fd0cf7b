"""ruff, flake8 and pyright on jaxtyping/tensorshape annotations, with the configuration in
docs/linters.md exactly as written: clean with it, the documented errors without it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.slow

MODEL = textwrap.dedent(
    """\
    import torch
    from jaxtyping import Float
    from torch import Tensor


    def mm(
        x: Float[Tensor, "batch dim"], w: Float[Tensor, "dim out"]
    ) -> Float[Tensor, "batch out"]:
        return x @ w


    def norm(x: Float[Tensor, " n"]) -> Float[Tensor, ""]:
        return x.norm()


    def head(
        x: Float[Tensor, "*batch 2*d"], y: Float[Tensor, "b data=d"]
    ) -> Float[Tensor, "..."]:
        return torch.cat([x, y])


    def demo() -> None:
        mm(torch.randn(2, 3), torch.randn(4, 5))
        norm(torch.randn(2, 3))
    """
)


def _blocks(lang: str) -> list[str]:
    text = (ROOT / "docs" / "linters.md").read_text(encoding="utf-8")
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.M | re.S)


def _project(tmp_path: Path, pyproject: str, model: str = MODEL) -> Path:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "model.py").write_text(model, encoding="utf-8")
    (project / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    return project


def _run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PATH=str(BIN) + os.pathsep + os.environ["PATH"])
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def _tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{name} is not installed (pip install '.[test]')")
    return str(path)


def test_ruff(tmp_path: Path) -> None:
    ruff = _tool("ruff")
    (block,) = [b for b in _blocks("toml") if "[tool.ruff.lint]" in b]
    user = '[tool.ruff.lint]\nselect = ["E", "F", "W"]\n'  # a user's own selection, with pyflakes on
    project = _project(tmp_path, user)
    bare = _run([ruff, "check", "--no-cache", "model.py"], project)
    assert bare.returncode == 1 and "F722" in bare.stdout, bare.stdout
    project = _project(tmp_path, block + 'select = ["E", "F", "W"]\n')
    proc = _run([ruff, "check", "--no-cache", "model.py"], project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    one_name = _project(tmp_path, block + 'select = ["E", "F", "W"]\n', MODEL.replace('" n"', '"n"'))
    proc = _run([ruff, "check", "--no-cache", "model.py"], one_name)
    assert proc.returncode == 1 and "F821" in proc.stdout, "why the leading space: " + proc.stdout


def test_flake8(tmp_path: Path) -> None:
    flake8 = _tool("flake8")
    (block,) = _blocks("ini")
    project = _project(tmp_path, "")
    bare = _run([flake8, "model.py"], project)
    assert bare.returncode == 1 and "F722" in bare.stdout, bare.stdout
    (project / ".flake8").write_text(block, encoding="utf-8")
    proc = _run([flake8, "model.py"], project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (project / "model.py").write_text(MODEL.replace('" n"', '"n"'), encoding="utf-8")
    proc = _run([flake8, "model.py"], project)
    assert proc.returncode == 1 and "F821" in proc.stdout, proc.stdout


def test_pyright(tmp_path: Path) -> None:
    pyright = _tool("pyright")
    start = _run([pyright, "--version"], tmp_path)
    if start.returncode != 0:
        pytest.skip(f"pyright cannot start here (it needs node and the npm registry): {start.stderr[-300:]}")
    (block,) = [b for b in _blocks("toml") if "[tool.pyright]" in b]
    project = _project(tmp_path, block)
    (project / ".venv").symlink_to(sys.prefix, target_is_directory=True)  # the environment with jaxtyping
    proc = _run([pyright, "model.py"], project)
    assert proc.returncode == 0 and "0 errors" in proc.stdout, proc.stdout + proc.stderr
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python:  # an interpreter without jaxtyping: the errors the page tells how to read
        (project / "pyproject.toml").write_text("", encoding="utf-8")
        proc = _run([pyright, "--pythonpath", python, "model.py"], project)
        assert proc.returncode == 1 and '"batch" is not defined' in proc.stdout, proc.stdout


def test_tensorshape_reads_the_linter_friendly_spelling(tmp_path: Path) -> None:
    project = _project(tmp_path, "")
    proc = _run([str(BIN / "tensorshape"), "check", "model.py", "--no-cache"], project)
    assert proc.returncode == 1 and "model.py:23:27: error: mm:" in proc.stdout, proc.stdout
    assert "model.py:24:" in proc.stdout, '`" n"` is the one-dim shape n: ' + proc.stdout
    assert proc.stdout.endswith("Found 2 errors in 1 file (checked 1 source file)\n"), proc.stdout
