"""The release route: ``python -m build`` gives an sdist and a wheel that ``twine check`` accepts, and
the wheel, installed into a fresh virtual environment without torch, checks code with its own stubs."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from tensorshape import __version__

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def _run(*cmd: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, timeout=900)


def test_built_wheel_works_without_torch(tmp_path: Path) -> None:
    pytest.importorskip("build")
    pytest.importorskip("twine")
    dist = tmp_path / "dist"
    proc = _run(sys.executable, "-m", "build", "--outdir", dist, ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wheel = dist / f"tensorshape-{__version__}-py3-none-any.whl"
    sdist = dist / f"tensorshape-{__version__}.tar.gz"
    assert wheel.is_file() and sdist.is_file(), sorted(p.name for p in dist.iterdir())
    proc = _run(sys.executable, "-m", "twine", "check", "--strict", wheel, sdist)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    names = set(zipfile.ZipFile(wheel).namelist())
    stubs = {p.name for p in (ROOT / "stubs").iterdir() if p.is_file()}
    assert stubs and {f"tensorshape/_stubs/{s}" for s in stubs} <= names
    assert {"tensorshape/py.typed", "tensorshape/__main__.py", "tensorshape_mypy/__init__.py"} <= names

    venv = tmp_path / "venv"
    assert _run(sys.executable, "-m", "venv", venv).returncode == 0
    bin_ = venv / ("Scripts" if sys.platform == "win32" else "bin")
    proc = _run(bin_ / "python", "-m", "pip", "install", "-q", wheel)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _run(bin_ / "python", "-c", "import torch").returncode != 0, "the fresh environment must not have torch"

    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples" / "bugs", project / "bugs")
    proc = _run(bin_ / "tensorshape", "check", "bugs", "--no-cache", cwd=project)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.endswith("Found 13 errors in 13 files (checked 13 source files)\n"), proc.stdout
    assert "[TS101 shape-mismatch]" in proc.stdout
    proc = _run(bin_ / "python", "-m", "tensorshape", "--version", cwd=project)
    assert proc.stdout.strip() == f"tensorshape {__version__}"
