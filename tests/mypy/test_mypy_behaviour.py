"""What the plugin does as a mypy plugin: suppression, unchanged types, cache, daemon."""

from __future__ import annotations

import os
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


def test_an_ignore_that_suppresses_a_shape_error_is_used(mypy_runner: Mypy) -> None:
    run = mypy_runner.run([HERE / "ignores.py"], extra="[mypy-ignores]\nwarn_unused_ignores = True\n")
    # mypy prints no column for an unused ignore: the line is checked as text.
    assert [m for m in run.messages if m.severity == "error"] == [], run.stdout
    lines = [line for line in run.stdout.splitlines() if ": error: " in line]
    assert len(lines) == 1 and lines[0].endswith('ignores.py:9: error: Unused "type: ignore" comment  [unused-ignore]')


def test_enable_error_code_and_per_module_options(mypy_runner: Mypy, tmp_path: Path) -> None:
    """``enable_error_code`` turns on a code off by default (``unknown-op``, a note); a module's own
    section turns one off, by its name or by its id (``TS101``, as the CLI reads it)."""
    for name in ("loud", "quiet", "byid"):
        (tmp_path / f"{name}.py").write_text(BUGS, encoding="utf-8")
    # Per-module sections only: the other modules' options, and so the shared cache, stay as they are.
    extra = (
        "[mypy-loud]\nenable_error_code = unknown-op\n"
        "[mypy-quiet]\nenable_error_code = unknown-op\ndisable_error_code = shape-mismatch\n"
        "[mypy-byid]\ndisable_error_code = TS101\n"
    )
    run = mypy_runner.run([tmp_path / "loud.py", tmp_path / "quiet.py", tmp_path / "byid.py"], extra=extra)
    assert "Invalid error code" not in run.stdout + run.stderr, run.stdout
    got = {(Path(m.path).name, m.line, m.code) for m in run.messages if m.severity == "error"}
    # mypy prints no code for a note: ``unknown-op`` is recognised by its text.
    got |= {(Path(m.path).name, m.line, "unknown-op") for m in run.messages if "is not modelled" in m.message}
    assert got == {
        ("loud.py", 6, "shape-mismatch"),
        ("loud.py", 7, "unknown-op"),
        ("quiet.py", 7, "unknown-op"),
    }, run.stdout
    plain = mypy_runner.run([tmp_path / "loud.py"])
    assert not any("is not modelled" in m.message for m in plain.messages), plain.stdout


BUGS = """import torch


def f() -> None:
    a = torch.randn(2, 3)
    a @ a
    torch.histc(a)
"""


def test_first_class_dims_make_no_noise(mypy_runner: Mypy) -> None:
    run = mypy_runner.run([HERE / "dims.py"], extra="[mypy-functorch.*]\nignore_missing_imports = True\n")
    assert [m for m in run.messages if m.severity == "error"] == [], run.stdout


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
        # The core follows `z: Tensor = y` (mypy's type of `z` is plain `Tensor`).
        ("reveal.py", 20, f'Revealed type is "{t}[b, e]"'),
        ("reveal.py", 21, f'Revealed type is "{t}[2*b, e]"'),
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


HELPER = """
def crop(x):
    return x[:, :4]
"""

USER = """
import torch
from helper import crop

crop(torch.randn(3, 16)) @ torch.randn(4, 2)
"""


def test_a_dependency_that_changes_shapes_rechecks_its_dependents(mypy_runner: Mypy, tmp_path: Path) -> None:
    """The analysis of ``user`` inlines ``helper.crop``: editing its body (mypy's interface of ``helper``
    does not change) makes ``user`` stale; while nothing changes, both modules stay fresh."""
    (tmp_path / "helper.py").write_text(HELPER, encoding="utf-8")
    (tmp_path / "user.py").write_text(USER, encoding="utf-8")
    files = [tmp_path / "helper.py", tmp_path / "user.py"]
    first = mypy_runner.run(files)
    assert [m for m in first.messages if m.severity == "error"] == [], first.stdout
    again = mypy_runner.run(files, flags=["-v"])
    assert again.stdout == first.stdout
    assert "Metadata fresh for user" in again.stderr and "Metadata fresh for helper" in again.stderr
    (tmp_path / "helper.py").write_text(HELPER.replace(":4]", ":5]"), encoding="utf-8")
    edited = mypy_runner.run(files, flags=["-v"])
    assert "Metadata abandoned for user: plugin configuration differs" in edited.stderr
    got = [(Path(m.path).name, m.line, m.code) for m in edited.messages if m.severity == "error"]
    assert got == [("user.py", 5, "shape-mismatch")], edited.stdout
    replay = mypy_runner.run(files, flags=["-v"])
    assert "Metadata fresh for user" in replay.stderr
    assert replay.stdout == edited.stdout


def _edit(path: Path, text: str) -> None:
    """Write ``path`` as an editor saving it would, at least a second after its last save.

    The daemon sees that a file changed by its size or by its mtime in whole seconds (mypy's
    ``FileSystemWatcher``): an edit that keeps the size and lands in the same second as the previous
    one is not seen, by mypy's own checks either.  A daemon update takes about half a second here, so
    without this the test's two same-size versions of ``main.py`` fell in one second about every
    other run, and the third build reported the second one's result.
    """
    before = path.stat().st_mtime_ns if path.exists() else None
    path.write_text(text, encoding="utf-8")
    if before is not None and path.stat().st_mtime_ns // 10**9 <= before // 10**9:
        later = (before // 10**9 + 1) * 10**9
        os.utime(path, ns=(later, later))


def _dmypy_runs(folder: Path, edits: list[tuple[str, str]], files: list[str]) -> list[str]:
    """``dmypy run`` over ``files`` in ``folder`` after each edit (a file and its new text): the outputs."""
    dmypy = shutil.which("dmypy") or str(Path(sys.executable).with_name("dmypy"))
    if not Path(dmypy).exists():
        pytest.skip("dmypy is not installed")
    ini = "[mypy]\nplugins = tensorshape_mypy\nwarn_unused_ignores = True\n"
    (folder / "mypy.ini").write_text(ini, encoding="utf-8")
    base = [dmypy, "--status-file", str(folder / "dmypy.json")]
    runs = []
    try:
        for name, source in edits:
            _edit(folder / name, source)
            proc = subprocess.run(
                [*base, "run", "--", "--config-file", "mypy.ini", *files],
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=300,
            )
            runs.append(proc.stdout)
    finally:
        subprocess.run([*base, "stop"], cwd=folder, capture_output=True, timeout=60)
    return runs


MODEL = """
import torch


class Model:
    def forward(self) -> None:
        a = torch.randn(2, 3)
        a @ a
"""


#: Findings in targets whose re-check makes no call: a bad annotation on a function whose body makes
#: none, a shape error in an unannotated function (mypy does not type check its body, and asks for no
#: hook there), a `reveal_type`, and an ignore used only by a shape error (with `warn_unused_ignores`).
SHAPES = """import torch
from jaxtyping import Float
from torch import Tensor

N = "b 16"


def g(x: Float[Tensor, N]) -> None:
    pass


def f(x: Float[Tensor, "b 16"]) -> None:
    reveal_type(x)


def h() -> None:
    a = torch.randn(2, 3)
    a @ a  # type: ignore[shape-mismatch]


def u(x):
    return x @ x


u(torch.randn(2, 3))
"""


@pytest.mark.slow
def test_dmypy(tmp_path: Path) -> None:
    """Start, check, edit, check, stop.  An edit re-checks the edited module as a whole (its shape errors
    appear and go with the edit); the other modules' shape errors stay shown although the daemon clears
    every message at each update and re-checks only their functions that had errors, also where that
    re-check makes no call (a `config-error` of a module whose top level calls nothing, a bad annotation
    on a function whose body calls nothing), and `reveal_type` keeps its shape there."""
    (tmp_path / "lib.py").write_text(LIB, encoding="utf-8")
    (tmp_path / "main.py").write_text(MAIN, encoding="utf-8")
    (tmp_path / "user.py").write_text(MODEL, encoding="utf-8")
    (tmp_path / "shapes.py").write_text(SHAPES, encoding="utf-8")
    # A module under a broken `[tool.tensorshape]`: a config-error at its line 1, a top level without calls.
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "pyproject.toml").write_text("[tool.tensorshape]\nseverity = 5\n", encoding="utf-8")
    (tmp_path / "cfg" / "quiet.py").write_text('"""Nothing called here."""\n\nX = 1\n', encoding="utf-8")
    edits = [
        ("main.py", MAIN + "\n"),
        # The edit fixes the bad call: the daemon parses main.py again and its shape error goes away.
        ("main.py", MAIN.replace("randn(3, 15)", "randn(3, 16)")),
        ("main.py", MAIN),
        # shapes.py checked as a whole by the daemon: its ignore is used by the shape error.
        ("shapes.py", SHAPES + "\n"),
        # An edit elsewhere: the others are re-checked only where they had errors.
        ("lib.py", LIB + "# edited\n"),
        ("lib.py", LIB),
    ]
    runs = _dmypy_runs(tmp_path, edits, ["lib.py", "main.py", "user.py", "shapes.py", "cfg/quiet.py"])
    for out in runs:
        assert "main.py:6: note: revealed shape: [3 4]" in out, out
        assert "user.py:8: error:" in out and "[shape-mismatch]" in out, out
        assert "cfg/quiet.py:1: error:" in out and "[config-error]" in out, out
        assert "shapes.py:8: error:" in out and "[bad-annotation]" in out, out
        assert "shapes.py:22: error: matmul" in out, out
        assert 'shapes.py:13: note: Revealed type is "torch._tensor.Tensor[b, 16]"' in out, out
        assert "unused-ignore" not in out, out
    for out in (runs[0], *runs[2:]):
        assert "main.py:7: error:" in out and "[shape-mismatch]" in out, out
    assert "main.py:7: error:" not in runs[1], runs[1]
    # Each message once: a re-check reports a function's shape errors again, not twice.
    for out in runs:
        lines = [line for line in out.splitlines() if ": error: " in line or ": note: " in line]
        assert len(lines) == len(set(lines)), out


HELPERS = """import torch


def make(n):
    return torch.zeros(n, 4)
"""

#: Uses `helpers.make`, whose body is not in mypy's interface of `helpers`: only the analysis reads it.
USES = """import torch
from helpers import make


def run() -> torch.Tensor:
    return make(3) @ torch.randn(4, 2)


def bad() -> None:
    a = torch.randn(2, 3)
    a @ a
"""

LIB_DIMS = """from jaxtyping import Float
from torch import Tensor


def head(x: Float[Tensor, "b 16"]) -> Float[Tensor, "b 4"]:
    return x[:, :4]
"""

USES_DIMS = """import torch
from lib import head

y = head(torch.randn(3, 16)) @ torch.randn(4, 2)
"""


@pytest.mark.slow
def test_dmypy_follows_what_the_analysis_reads(tmp_path: Path) -> None:
    """An edit that changes only what another module's analysis reads (an unannotated callee's body, the
    dims of a jaxtyping annotation: mypy's interfaces of the edited modules do not change) re-checks and
    re-analyses the other module under the daemon, whose errors then are those of the new analysis."""
    (tmp_path / "helpers.py").write_text(HELPERS, encoding="utf-8")
    (tmp_path / "uses.py").write_text(USES, encoding="utf-8")
    (tmp_path / "lib.py").write_text(LIB_DIMS, encoding="utf-8")
    (tmp_path / "uses_dims.py").write_text(USES_DIMS, encoding="utf-8")
    edits = [
        ("helpers.py", HELPERS),
        ("helpers.py", HELPERS.replace("zeros(n, 4)", "zeros(n, 5)")),
        ("uses.py", USES + "\n"),
        ("helpers.py", HELPERS),
        ("lib.py", LIB_DIMS.replace('"b 4"', '"b 5"')),
        ("lib.py", LIB_DIMS),
    ]
    runs = _dmypy_runs(tmp_path, edits, ["helpers.py", "uses.py", "lib.py", "uses_dims.py"])
    matmul = "uses.py:6: error: matmul: cannot multiply [3 5] by [4 2]"
    dims = "uses_dims.py:4: error: matmul"
    for out in runs:
        # The error of the module's own code, in a function the edits do not touch, stays shown once.
        assert sum("uses.py:11: error: matmul" in line for line in out.splitlines()) == 1, out
        lines = [line for line in out.splitlines() if ": error: " in line]
        assert len(lines) == len(set(lines)), out
    assert [matmul in out for out in runs] == [False, True, True, False, False, False], runs
    assert [dims in out for out in runs] == [False, False, False, False, True, False], runs
