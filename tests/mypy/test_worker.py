"""The plugin's worker process finds what the in-process analysis finds."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from tensorshape_mypy.channel import socket_path, stop_kept
from tensorshape_mypy.session import Session

from tests.expectations import ROOT

BUG = ROOT / "examples" / "bugs" / "bmm_batch.py"


def test_the_worker_finds_what_the_analysis_finds() -> None:
    here = Session(None).result(str(BUG))
    session = Session(None)
    session.prefetch(str(BUG))
    assert session._worker is not None
    there = session.result(str(BUG))
    assert there == here and there.diagnostics
    # Every file sent was collected: the worker has ended.
    assert session._worker is None


def test_reveal_type_shapes_come_from_the_worker(tmp_path: Path) -> None:
    f = tmp_path / "r.py"
    f.write_text("import torch\nreveal_type(torch.randn(2, 3))\nreveal_type((torch.randn(4), 1))\n", encoding="utf-8")
    session = Session(None)
    session.prefetch(str(f))
    assert session._worker is not None
    assert session.result(str(f)).reveals == [(2, 12, 0, ("2, 3",)), (3, 13, 1, ("4",))]


def test_a_kept_worker_sees_edits_of_the_file_and_of_what_it_imports(tmp_path: Path) -> None:
    """The daemon keeps its worker between builds: a file sent again is analysed again, and a module
    the analysis read in an earlier build is read again."""
    lib, main = tmp_path / "lib.py", tmp_path / "main.py"
    lib.write_text("import torch\n\ndef head(x):\n    return x.view(2, 4)\n", encoding="utf-8")
    main.write_text("import torch\nfrom lib import head\n\nhead(torch.randn(8)) @ torch.randn(4, 3)\n")
    session = Session(None, keep_worker=True)
    try:
        session.prefetch(str(main))
        assert session.result(str(main)).diagnostics == []
        worker = session._worker
        assert worker is not None and worker.running(), "the worker is kept"
        lib.write_text("import torch\n\ndef head(x):\n    return x.view(4, 2)\n", encoding="utf-8")
        session.prefetch(str(main))
        assert [d.code.id for d in session.result(str(main)).diagnostics] == ["TS101"]
        assert session._worker is worker
    finally:
        session._stop_worker()


def test_findings_are_kept_for_unchanged_files(tmp_path: Path) -> None:
    """mypy parses a module again whose files are all unchanged (a dependency's interface changed):
    the findings kept when mypy wrote its cache entry are used, and nothing is analysed."""
    cache = tmp_path / "cache"
    lib, main = tmp_path / "lib.py", tmp_path / "main.py"
    lib.write_text("import torch\n\ndef head(x):\n    return x.view(2, 4)\n", encoding="utf-8")
    main.write_text("import torch\nfrom lib import head\n\nhead(torch.randn(8)) @ torch.randn(4, 3)\n")
    first = Session(str(cache))
    first.config_data("main", str(main), is_check=False, checked=True)  # mypy writes its cache entry
    found = first.result(str(main))
    assert found.diagnostics == [] and found.dependencies

    again = Session(str(cache))
    again.prefetch(str(main), "main")
    assert again._worker is None and again.analysed == 0
    assert again.result(str(main)) == found

    lib.write_text("import torch\n\ndef head(x):\n    return x.view(4, 2)\n", encoding="utf-8")
    edited = Session(str(cache))
    edited.prefetch(str(main), "main")
    assert edited._worker is not None, "a file the analysis read changed: analysed again"
    assert [d.code.id for d in edited.result(str(main)).diagnostics] == ["TS101"]


def test_a_worker_kept_between_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With TENSORSHAPE_MYPY_WORKER_IDLE, the worker outlives the run and serves the next run of the
    same project (same mypy cache), from new projects: an edit of a file the analysis read is seen.
    A run while another holds it has a worker of its own; ``stop_kept`` ends it and its socket."""
    monkeypatch.setenv("TENSORSHAPE_MYPY_WORKER_IDLE", "60")
    cache = tmp_path / "cache"
    lib, main = tmp_path / "lib.py", tmp_path / "main.py"
    lib.write_text("import torch\n\ndef head(x):\n    return x.view(2, 4)\n", encoding="utf-8")
    main.write_text("import torch\nfrom lib import head\n\nhead(torch.randn(8)) @ torch.randn(4, 3)\n")
    sock = socket_path(cache / "tensorshape")
    try:
        first = Session(str(cache))
        first.prefetch(str(main))
        assert first._worker is not None and first._worker.kept
        assert first.result(str(main)).diagnostics == []
        assert first._worker is None and sock.exists(), "the run is done, the worker waits for the next"
        listening = sock.stat().st_ino

        lib.write_text("import torch\n\ndef head(x):\n    return x.view(4, 2)\n", encoding="utf-8")
        second = Session(str(cache))
        second.prefetch(str(main))
        assert second._worker is not None and second._worker.kept
        # Another run of the same project meanwhile: a worker of its own.
        third = Session(str(cache))
        third.prefetch(str(lib))
        assert third._worker is not None and not third._worker.kept
        assert third.result(str(lib)).diagnostics == []
        assert [d.code.id for d in second.result(str(main)).diagnostics] == ["TS101"]
        assert sock.stat().st_ino == listening, "the same worker served both runs"
    finally:
        assert stop_kept(cache / "tensorshape")
    for _ in range(200):
        if not sock.exists():
            break
        time.sleep(0.05)
    assert not sock.exists()
    assert not stop_kept(cache / "tensorshape")


def test_a_kept_worker_that_is_gone_leaves_the_analysis_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket with nobody behind it (a worker that died): a new worker is started; one that cannot
    be (nothing listens in time) leaves the analysis to this process, which still finds the error."""
    monkeypatch.setenv("TENSORSHAPE_MYPY_WORKER_IDLE", "60")
    cache = tmp_path / "cache"
    sock = socket_path(cache / "tensorshape")
    sock.write_text("", encoding="utf-8")  # stale: not a socket
    monkeypatch.setattr("tensorshape_mypy.channel._START", 0.0)
    monkeypatch.setattr("sys.executable", "/nonexistent/python")
    session = Session(str(cache))
    session.prefetch(str(BUG))  # neither a kept worker nor a child can start
    assert session._worker is None
    assert [d.code.id for d in session.result(str(BUG)).diagnostics] == [
        d.code.id for d in Session(None).result(str(BUG)).diagnostics
    ]
    sock.unlink(missing_ok=True)


_SYMPY_PROBE = """
import sys
from tensorshape_mypy.session import Session
session = Session(None)
session.warm_up()
before = "sympy" in sys.modules
found = [d.code.id for path in sys.argv[1:] for d in session.result(path).diagnostics]
print(before, "sympy" in sys.modules, found)
"""


def _sympy_probe(*paths: Path) -> str:
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-c", _SYMPY_PROBE, *map(str, paths)], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_the_worker_imports_sympy_only_where_symbols_meet(tmp_path: Path) -> None:
    """The worker's warm-up loads the analysis and the op table, not sympy (0.3 s): a module whose
    sizes are all ints never needs it; an annotated one does."""
    ints, named = tmp_path / "ints.py", tmp_path / "named.py"
    ints.write_text("import torch\n\nx = torch.randn(3, 4) @ torch.randn(5, 6)\n", encoding="utf-8")
    named.write_text(
        "import torch\nfrom jaxtyping import Float\nfrom torch import Tensor\n\n\n"
        'def f(x: Float[Tensor, "b t"]) -> Tensor:\n    return x @ torch.randn(3, 4)\n',
        encoding="utf-8",
    )
    assert _sympy_probe(ints) == "False False ['TS101']"
    assert _sympy_probe(ints, named) == "False True ['TS101', 'TS104']"


_FLOOD = """
import sys
from tensorshape_mypy.session import Session
paths = sys.argv[1:]
session = Session(None)
for p in paths:  # mypy parses every module before it type checks the first
    session.prefetch(p)
found = [d.code.id for p in paths for d in session.result(p).diagnostics]
print(len(found), session._worker is None, session.analysed)
"""


@pytest.mark.parametrize("kept", [False, True])
def test_a_project_whose_requests_and_answers_fill_both_pipes(
    tmp_path: Path, kept: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mypy parses every module (each sent to the worker) before it reads the first answer. With more
    requests than a pipe holds (64 KiB) and more answers than the other holds, the two processes once
    waited on each other for good (CI, 544 files, long temporary paths). Now every answer comes, from
    the worker: nothing is analysed in-process."""
    import subprocess
    import sys

    folder = tmp_path / ("a_rather_long_folder_name_of_a_generated_project_" * 4)
    folder.mkdir()
    paths = []
    for i in range(300):
        f = folder / f"module_{i:03d}.py"
        f.write_text(f"import torch\n\nx{i} = torch.randn(2, 8).view(4, 4) @ torch.randn(3, 5)\n", encoding="utf-8")
        paths.append(str(f))
    assert sum(2 * len(p) + 3 for p in paths) > 2 * 65536
    if kept:
        monkeypatch.setenv("TENSORSHAPE_MYPY_WORKER_IDLE", "30")
    script = _FLOOD if not kept else _FLOOD.replace("Session(None)", f"Session({str(tmp_path / 'cache')!r})")
    try:
        out = subprocess.run(
            [sys.executable, "-c", script, *paths], capture_output=True, text=True, check=True, timeout=240
        ).stdout.split()
    finally:
        if kept:
            stop_kept(tmp_path / "cache" / "tensorshape")
    assert out == ["300", "True", "0"]
