"""The bundled examples produce exactly the documented diagnostics, and their
``demo()`` shows under real torch that the reported bugs are real."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from tensorshape.infer import check_file
from tensorshape.model.diagnostics import Severity

from tests.expectations import EXAMPLES, expected

# examples/vollo expects its diagnostics with --vollo: tests/vollo/test_examples.py.
FILES = sorted(p for p in EXAMPLES.rglob("*.py") if "vollo" not in p.parts)


def _id(p: Path) -> str:
    return p.relative_to(EXAMPLES).as_posix()


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_diagnostics_match_expectations(path: Path) -> None:
    result = check_file(path)
    got = {(d.span.line, d.code.id) for d in result.diagnostics if d.severity >= Severity.WARNING}
    assert got == expected(path.read_text(encoding="utf-8")), "\n".join(
        f"{d.span.line}:{d.span.column + 1} {d.code.id} {d.message}" for d in result.diagnostics
    )


def _load(path: Path) -> object:
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.torch
@pytest.mark.parametrize("path", [p for p in FILES if "vollo" not in p.parts], ids=_id)
def test_demo_runs_or_raises_the_predicted_error(path: Path) -> None:
    pytest.importorskip("torch")
    if "einops" in path.read_text(encoding="utf-8"):
        pytest.importorskip("einops")
    mod = _load(path)
    demo = getattr(mod, "demo", None)
    assert demo is not None, "every example has a demo()"
    if expected(path.read_text(encoding="utf-8")):
        with pytest.raises((RuntimeError, IndexError, ValueError, AssertionError)):
            demo()
    else:
        demo()
