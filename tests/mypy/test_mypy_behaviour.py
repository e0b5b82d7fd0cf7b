"""What the plugin does as a mypy plugin: suppression, unchanged types, cache, daemon."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.expectations import ROOT
from tests.mypy.runner import Mypy

pytestmark = pytest.mark.mypy

HERE = ROOT / "tests" / "mypy" / "mypy_only"


def test_type_ignore_and_disable_error_code(mypy_runner: Mypy) -> None:
    path = HERE / "suppress.py"
    run = mypy_runner.run([path])
    got = {(m.line, m.code) for m in run.messages if m.severity == "error"}
    assert got == {(10, "shape-mismatch")}, run.stdout


def test_code_without_shapes_is_seen_as_without_the_plugin(mypy_runner: Mypy) -> None:
    """Same output, reveal_type included, with and without the plugin (only torch's own types)."""
    path = HERE / "plain.py"
    with_plugin = mypy_runner.run([path])
    without = mypy_runner.run([path], plugin=False, cache="plain")
    assert with_plugin.stdout == without.stdout
    assert 'Revealed type is "torch._tensor.Tensor"' in with_plugin.stdout
    assert "Incompatible types in assignment" in with_plugin.stdout


def test_reveal_type_shows_shapes(mypy_runner: Mypy) -> None:
    run = mypy_runner.run([HERE / "reveal.py", HERE / "reveal_nohook.py"])
    got = sorted((Path(m.path).name, m.line, m.message) for m in run.messages)
    # A second run takes both modules from the cache, which replays the rewritten notes.
    again = mypy_runner.run([HERE / "reveal.py", HERE / "reveal_nohook.py"])
    assert sorted((Path(m.path).name, m.line, m.message) for m in again.messages) == got, again.stdout
    t = "torch._tensor.Tensor"
    assert got == [
        ("reveal.py", 9, f'Revealed type is "{t}[b, 3]"'),
        ("reveal.py", 10, f'Revealed type is "{t}[()]"'),
        ("reveal.py", 15, f'Revealed type is "{t}[b, e]"'),
        ("reveal.py", 16, f'Revealed type is "list[{t}[b, e]]"'),
        ("reveal.py", 17, f'Revealed type is "tuple[{t}[b, e], Literal[1]?]"'),
        ("reveal.py", 18, f'Revealed type is "{t}[2, 5]"'),
        ("reveal.py", 20, f'Revealed type is "{t}"'),
        ("reveal.py", 21, f'Revealed type is "{t}"'),
        ("reveal_nohook.py", 8, f'Revealed type is "{t}[b, t, 4]"'),
    ], run.stdout


LIB = """
from jaxtyping import Float
from torch import Tensor


def head(x: Float[Tensor, "b 16"]) -> Float[Tensor, "b 4"]:
    return x[:, :4]
"""

MAIN = """
import torch
from lib import head
from tensorshape import reveal_shape

reveal_shape(head(torch.randn(3, 16)))
head(torch.randn(3, 15))
"""


def test_shapes_survive_the_incremental_cache(mypy_runner: Mypy, tmp_path: Path) -> None:
    """A second run loads ``lib`` from the cache: its annotated signature still carries the shapes."""
    (tmp_path / "lib.py").write_text(LIB, encoding="utf-8")
    main = tmp_path / "main.py"
    main.write_text(MAIN, encoding="utf-8")
    first = mypy_runner.run([tmp_path / "lib.py", main], flags=["--python-executable", sys.executable])
    main.write_text(MAIN + "\nreveal_shape(head(torch.zeros(2, 16)))\n", encoding="utf-8")
    second = mypy_runner.run([tmp_path / "lib.py", main], flags=["-v"])
    for run in (first, second):
        msgs = [(m.line, m.message) for m in run.messages if m.path.endswith("main.py")]
        assert (6, "revealed shape: [3 4]") in msgs, run.stdout
        assert any(line == 7 and "dim 1 is 15, expected 16" in msg for line, msg in msgs), run.stdout
    assert "Fresh" in second.stderr or "fresh" in second.stderr
    assert (9, "revealed shape: [2 4]") in [(m.line, m.message) for m in second.messages]


@pytest.mark.slow
def test_dmypy(tmp_path: Path) -> None:
    dmypy = shutil.which("dmypy") or str(Path(sys.executable).with_name("dmypy"))
    if not Path(dmypy).exists():
        pytest.skip("dmypy is not installed")
    (tmp_path / "lib.py").write_text(LIB, encoding="utf-8")
    (tmp_path / "main.py").write_text(MAIN, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text("[mypy]\nplugins = tensorshape_mypy\n", encoding="utf-8")
    status = tmp_path / "dmypy.json"
    base = [dmypy, "--status-file", str(status)]
    try:
        runs = []
        for _ in range(2):
            proc = subprocess.run(
                [*base, "run", "--", "--config-file", "mypy.ini", "lib.py", "main.py"],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=300,
            )
            runs.append(proc.stdout)
            (tmp_path / "main.py").write_text(MAIN + "\n", encoding="utf-8")
    finally:
        subprocess.run([*base, "stop"], cwd=tmp_path, capture_output=True, timeout=60)
    for out in runs:
        assert "main.py:6: note: revealed shape: [3 4]" in out, out
        assert "main.py:7: error:" in out and "[shape-mismatch]" in out, out
