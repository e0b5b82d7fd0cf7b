"""Both transports of the one analysis (``tensorshape check`` and mypy + plugin) report the same problems.

One mypy run covers every file of ``examples/``, ``tests/mypy/cases/``,
``tests/realistic/`` (programs, and the bugs generated from them) and ``tests/mypy/realistic/`` (programs in the form tutorials and Q&A threads write
them: modules built in ``__init__``, unannotated ``forward``, ``ModuleList``,
argparse, DataLoaders; each bug is where torch raises, checked by running them);
every file is then compared with ``tensorshape.infer.check_file``: the same
codes at the same lines and columns, with the same messages (and the same
``reveal_shape`` notes).  The differences that remain are listed in
``ACCEPTED`` with their reason, and in docs/mypy.md ("Differences from the CLI").
"""

from __future__ import annotations

import runpy
import traceback
from pathlib import Path

import pytest
from tensorshape.infer import check_file
from tensorshape.model.codes import lookup
from tensorshape.model.diagnostics import Severity

from tests.expectations import EXAMPLES, ROOT, expected, expected_notes
from tests.mypy.runner import Mypy, Run
from tests.realistic.seeded import bug_files

pytestmark = pytest.mark.mypy

CASES = ROOT / "tests" / "mypy" / "cases"
REALISTIC = ROOT / "tests" / "mypy" / "realistic"
EXPECTING = sorted([*CASES.glob("*.py"), *REALISTIC.glob("*.py")])
#: The realistic suites of tests/realistic/ (their truth is checked there); the bugs are generated
#: from tests/realistic/bugs.toml into a temporary directory.
SUITES = sorted([*(ROOT / "tests" / "realistic" / "programs").glob("*.py"), *bug_files()])
CORPUS = sorted([*EXAMPLES.rglob("*.py"), *EXPECTING, *SUITES])

#: (path, line, mypy code) of mypy's own errors that remain, with the reason (docs/mypy.md).
ACCEPTED: dict[tuple[str, int, str], str] = {
    ("examples/first_class_dims.py", 10, "import-untyped"): (
        "functorch ships no py.typed: mypy's own import check, which no plugin hook reaches; "
        "users set ignore_missing_imports (or follow_untyped_imports) for functorch"
    ),
}


def _id(p: Path) -> str:
    if p.is_relative_to(ROOT):
        return p.relative_to(ROOT).as_posix()
    return f"tests/realistic/bugs.toml:{p.stem}"  # a generated bug


@pytest.fixture(scope="module")
def corpus_run(mypy_runner: Mypy) -> Run:
    return mypy_runner.run(CORPUS)


def _mypy_problems(run: Run, path: Path) -> dict[tuple[int, int, str], str]:
    out = {}
    for m in run.for_file(path):
        if m.severity == "error" and m.code is not None:
            code = lookup(m.code)
            if code is None:
                # The realistic suites are untyped code as people write it: mypy has its own say there.
                assert path in SUITES or (_id(path), m.line, m.code) in ACCEPTED, f"mypy's own error: {m}"
                continue
            out[(m.line, m.column, code.id)] = m.message
        elif m.severity == "note" and m.message.startswith("revealed shape: "):
            out[(m.line, m.column, "TS900")] = m.message
    return out


@pytest.mark.parametrize("path", CORPUS, ids=_id)
def test_same_problems_as_the_cli(corpus_run: Run, path: Path) -> None:
    cli = {
        (d.span.line, d.span.column, d.code.id): d.message
        for d in check_file(path).diagnostics
        if d.severity >= Severity.WARNING or d.code.id == "TS900"
    }
    assert _mypy_problems(corpus_run, path) == cli, corpus_run.stdout


@pytest.mark.parametrize("path", EXPECTING, ids=_id)
def test_cases_match_their_expectations(corpus_run: Run, path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    got = _mypy_problems(corpus_run, path)
    assert {(line, code) for line, _, code in got if code != "TS900"} == expected(source), corpus_run.stdout
    assert {(line, msg) for (line, _, code), msg in got.items() if code == "TS900"} == expected_notes(source)


@pytest.mark.parametrize("path", sorted(REALISTIC.glob("*.py")), ids=_id)
def test_realistic_programs_fail_where_torch_raises(path: Path) -> None:
    """The truth of the realistic suite: run with torch, each raises at its one expected line (or runs)."""
    source = path.read_text(encoding="utf-8")
    lines = {line for line, _ in expected(source)}
    try:
        runpy.run_path(str(path), run_name="__main__")
    except Exception as e:  # noqa: BLE001 - any error torch raises
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == str(path)]
        assert {frames[-1].lineno} == lines, f"{type(e).__name__}: {e}"
    else:
        assert lines == set()


def test_mypy_reports_only_plugin_codes_on_the_corpus(corpus_run: Run) -> None:
    """The corpus (but the realistic suites) is well typed for mypy itself: only shape errors, and the
    accepted differences."""
    assert corpus_run.stderr == ""
    suites = {_id(p) for p in SUITES}
    own = {
        (_id(Path(m.path).resolve()), m.line, m.code)
        for m in corpus_run.messages
        if m.severity == "error" and m.code is not None and lookup(m.code) is None
    }
    own = {o for o in own if o[0] not in suites}
    assert own == set(ACCEPTED), corpus_run.stdout
