"""The plugin's worker process finds what the in-process analysis finds."""

from __future__ import annotations

from pathlib import Path

from tensorshape_mypy.session import Findings, Session

from tests.expectations import ROOT

BUG = ROOT / "examples" / "bugs" / "bmm_batch.py"


def test_the_worker_finds_what_the_analysis_finds() -> None:
    here = Session(None).result(str(BUG))
    session = Session(None)
    session.prefetch(str(BUG))
    there = session.result(str(BUG))
    assert isinstance(there, Findings)
    assert there.diagnostics == here.diagnostics and there.diagnostics
    assert there.dependencies == here.dependencies
    # Every file sent was collected: the worker has ended.
    assert session._worker is None


def test_a_file_with_reveal_type_is_analysed_in_process(tmp_path: Path) -> None:
    f = tmp_path / "r.py"
    f.write_text("import torch\nreveal_type(torch.randn(2, 3))\n", encoding="utf-8")
    session = Session(None)
    session.prefetch(str(f))
    assert session._worker is None
    assert not isinstance(session.result(str(f)), Findings)
