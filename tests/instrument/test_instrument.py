"""tensorshape instrument: checks exactly at obligations, idempotent, removable byte for byte, code still runs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from tensorshape.cli.main import main
from tensorshape.instrument import MARKER, instrument_source, remove

from tests.expectations import EXAMPLES

FILES = sorted(EXAMPLES.rglob("*.py"))

SAMPLE = """import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


def head(x: Float[Tensor, "b d"], w: Float[Tensor, "d k"]) -> Float[Tensor, "b k"]:
    return x @ w


def run(x, w):
    y = head(x, w)
    return y.sum()


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x) -> Float[Tensor, "b 4"]:
        h = self.fc(x)
        return h
"""


def test_checks_go_exactly_to_the_obligations() -> None:
    r = instrument_source(SAMPLE, "sample.py")
    added = [line.strip() for line in r.source.splitlines() if line.endswith(MARKER)]
    assert r.checks == 2 and r.decorated == 1 and r.skipped == []
    assert added[0].startswith(
        '__import__("tensorshape.runtime").runtime.check_shapes({"x": (x, "b d"), "w": (w, "d k")}'
    )
    assert '"x": (x, "*b 8")' in added[2]  # Linear(8, 4): the size is spelled out
    assert added[1].startswith("@") and "shapecheck" in added[1]
    # Nothing where the shape is proven: head's own body has no check.
    assert "x @ w" in r.source.split("def run")[0] and r.source.split("def run")[0].count(MARKER) == 0


def test_instrumented_code_checks_at_run_time(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from tensorshape.runtime import ShapeCheckError

    path = tmp_path / "sample_mod.py"
    path.write_text(instrument_source(SAMPLE, str(path)).source)
    mod = _load(path)
    assert mod.run(torch.zeros(3, 5), torch.zeros(5, 2)).shape == ()
    with pytest.raises(ShapeCheckError, match=r"sample_mod.py:12.*d=5 from x, but w has 6"):
        mod.run(torch.zeros(3, 5), torch.zeros(6, 2))
    assert mod.M()(torch.zeros(3, 8)).shape == (3, 4)
    with pytest.raises(ShapeCheckError, match="sample_mod.py:22"):
        mod.M()(torch.zeros(3, 9))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(EXAMPLES)))
@pytest.mark.parametrize("every", [False, True], ids=["obligations", "all"])
def test_examples_round_trip(path: Path, every: bool) -> None:
    source = path.read_text()
    r = instrument_source(source, str(path), every_boundary=every)
    compile(r.source, str(path), "exec")  # still parses
    assert instrument_source(r.source, str(path), every_boundary=every).source == r.source  # idempotent
    assert remove(r.source) == source  # exactly the original


@pytest.mark.torch
@pytest.mark.parametrize("path", [p for p in FILES if "bugs" not in p.parts], ids=lambda p: p.stem)
def test_instrumented_examples_still_run(tmp_path: Path, path: Path) -> None:
    pytest.importorskip("torch")
    out = tmp_path / path.name
    out.write_text(instrument_source(path.read_text(), str(path), every_boundary=True).source)
    mod = _load(out)
    mod.demo()


def test_cli_diff_write_remove(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "m.py"
    f.write_text(SAMPLE)
    assert main(["instrument", str(f)]) == 0
    out = capsys.readouterr()
    assert "+    __import__" in out.out and f.read_text() == SAMPLE
    assert main(["instrument", "--write", str(f)]) == 0
    assert f.read_text().count(MARKER) == 3
    assert main(["instrument", "--write", str(f)]) == 0  # idempotent
    assert f.read_text().count(MARKER) == 3
    assert main(["instrument", "--remove", "--write", str(f)]) == 0
    assert f.read_text() == SAMPLE
    assert main(["instrument", "--all", "--write", str(f)]) == 0
    assert f.read_text().count(MARKER) == 2  # head and forward


def _load(path: Path) -> object:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mod
    spec.loader.exec_module(mod)
    return mod


def test_in_process_checks_do_not_depend_on_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 17 (reported, not reproduced): ``instrument_source`` reads no configuration, so a
    ``pyproject.toml`` above the working directory (here one that excludes everything) changes
    nothing; the CLI, which reads it for ``file_timeout`` only, inserts the same checks."""
    src = "import torch.nn.functional as F\n\n\ndef f(x, w):\n    return F.linear(x, w)\n\n\ndef g(y, v):\n    return F.linear(y, v)\n"
    elsewhere = instrument_source(src, str(tmp_path / "elsewhere.py")).checks
    (tmp_path / "pyproject.toml").write_text('[tool.tensorshape]\nexclude = ["*"]\nfile_timeout = 0\n')
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "m.py").write_text(src)
    monkeypatch.chdir(bench)
    assert instrument_source(src, "m.py").checks == instrument_source(src).checks == elsewhere == 2
    assert main(["instrument", "m.py"]) == 0
    assert "2 checks and 0 decorated functions in 1 file(s)" in capsys.readouterr().err


RUN_RANKS = """import torch
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


def f(x: Float[Tensor, "*b d"]) -> Tensor:
    y = F.log_softmax(x, 3)
    z = F.max_pool2d(x, 2)
    return y + z.sum()
"""


def test_a_rank_a_run_must_reach_is_checked() -> None:
    """``log_softmax(x, 3)`` on ``[*b d]`` needs 4 dims: a check states it (``_ _ _ ... d``), and it
    raises at run time for a 2-d ``x`` (torch would raise on the next line); ``max_pool2d``'s 3 or
    4 dims have no shape string, and the skip says so."""
    r = instrument_source(RUN_RANKS, "runs.py")
    added = [line.strip() for line in r.source.splitlines() if line.endswith(MARKER)]
    assert r.checks == 1 and '"x": (x, "_ _ _ ... d")' in added[0], added
    assert any("no shape string states the requirement" in why and "max_pool2d" in why for why in r.skipped), r.skipped
    from tensorshape.runtime.errors import ShapeCheckError

    scope: dict[str, object] = {}
    exec(compile(r.source, "runs.py", "exec"), scope)
    torch = pytest.importorskip("torch")
    with pytest.raises(ShapeCheckError):
        scope["f"](torch.zeros(2, 4))  # type: ignore[operator]
    assert scope["f"](torch.zeros(1, 2, 4, 4)).shape == (1, 2, 4, 4)  # type: ignore[operator]
