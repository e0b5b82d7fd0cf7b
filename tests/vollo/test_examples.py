"""examples/vollo: each problem is reported where the file says, the fixed models are clean and compile."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path
from typing import Any

import pytest
from tensorshape.infer.api import CheckSettings, check_file
from tensorshape.rules.context import Options

from tests.expectations import expected

pytestmark = pytest.mark.vollo

DIR = Path(__file__).resolve().parents[2] / "examples" / "vollo"


def _errors(path: Path, adw: bool) -> set[tuple[int, str]]:
    r = check_file(path, CheckSettings(Options(vollo=True, allow_dynamic_weights=adw)))
    return {(d.span.line, d.code.id) for d in r.errors}


def test_problems_reported_at_their_lines() -> None:
    path = DIR / "problems.py"
    assert _errors(path, False) == expected(path.read_text())


def test_fixed_models_are_clean() -> None:
    path = DIR / "fixed.py"
    assert _errors(path, True) == set()
    assert {c for _, c in _errors(path, False)} == {"TS303"}  # attention needs dynamic weights


def test_without_vollo_the_examples_are_clean() -> None:
    for path in DIR.glob("*.py"):
        assert check_file(path).errors == []


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"_vollo_{name}", DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.torch
def test_compiler_rejects_problems_and_accepts_fixes() -> None:
    pytest.importorskip("vollo_compiler")
    import torch

    from .compiler import compiles

    problems, fixed = _load("problems"), _load("fixed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for cls, shape in problems.MODELS:
            ok, _ = compiles(cls(), torch.randn(*shape), False)
            assert not ok, cls.__name__
        for cls, shape in fixed.MODELS:
            ok, why = compiles(cls(), torch.randn(*shape), True)
            assert ok, (cls.__name__, why)


def test_cli_flag_and_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tensorshape.cli.main import main

    problems = str(DIR / "problems.py")
    assert main(["check", "--no-cache", problems]) == 0
    assert main(["check", "--no-cache", "--vollo", problems]) == 1
    assert "vollo-reduce-keepdim" in capsys.readouterr().out
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "pyproject.toml").write_text("[tool.tensorshape]\nvollo = true\nallow_dynamic_weights = true\n")
    (proj / "m.py").write_text((DIR / "fixed.py").read_text())
    (proj / "p.py").write_text((DIR / "problems.py").read_text())
    import os

    cwd = os.getcwd()
    os.chdir(proj)
    try:
        assert main(["check", "--no-cache", "m.py"]) == 0
        assert main(["check", "--no-cache", "--vollo", "m.py"]) == 0
        assert main(["check", "--no-cache", "p.py"]) == 1  # vollo = true from the configuration
    finally:
        os.chdir(cwd)
