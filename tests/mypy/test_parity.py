"""Both front ends (the libcst CLI and the mypy plugin) report the same problems.

One mypy run covers the examples and the mypy test cases; every file is then
compared with ``tensorshape.infer.check_file``: the same codes at the same lines,
with the same messages.  Intentional differences are listed in docs/mypy.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tensorshape.infer import check_file
from tensorshape.model.codes import lookup
from tensorshape.model.diagnostics import Severity

from tests.expectations import EXAMPLES, ROOT, expected, expected_notes
from tests.mypy.runner import Mypy, Run

pytestmark = pytest.mark.mypy

CASES = ROOT / "tests" / "mypy" / "cases"
#: Not for mypy: functorch.dim is untyped (``import-untyped``), its ``Tensor.order`` is
#: not on torch's ``Tensor``, and the plugin does not follow first-class dims (docs/mypy.md).
NOT_MYPY = {EXAMPLES / "first_class_dims.py"}
CORPUS = sorted(p for p in [*EXAMPLES.rglob("*.py"), *CASES.glob("*.py")] if p not in NOT_MYPY)

#: Problems only the CLI finds, by file: it analyses an unannotated function
#: with the arguments of its calls (``demo()`` passes concrete tensors), while
#: mypy checks each function once against its signature, where an unannotated
#: parameter is ``Any`` (docs/mypy.md, "Differences").
CLI_ONLY: dict[str, set[tuple[int, str]]] = {
    "examples/bugs/flatten_head.py": {(19, "TS101")},
    "examples/bugs/lstm_input.py": {(15, "TS101")},
    "examples/bugs/view_numel.py": {(8, "TS106")},
}


def _id(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


@pytest.fixture(scope="module")
def corpus_run(mypy_runner: Mypy) -> Run:
    return mypy_runner.run(CORPUS)


def _mypy_problems(run: Run, path: Path) -> dict[tuple[int, str], str]:
    out = {}
    for m in run.for_file(path):
        if m.severity == "error" and m.code is not None:
            code = lookup(m.code)
            assert code is not None, f"mypy error without a tensorshape code: {m}"
            out[(m.line, code.id)] = m.message
        elif m.severity == "note" and m.message.startswith("revealed shape: "):
            out[(m.line, "TS900")] = m.message
    return out


@pytest.mark.parametrize("path", CORPUS, ids=_id)
def test_same_problems_as_the_cli(corpus_run: Run, path: Path) -> None:
    cli = {
        (d.span.line, d.code.id): d.message
        for d in check_file(path).diagnostics
        if d.severity >= Severity.WARNING or d.code.id == "TS900"
    }
    mine = _mypy_problems(corpus_run, path)
    only_cli = CLI_ONLY.get(_id(path), set())
    assert set(cli) - only_cli == set(mine), corpus_run.stdout
    for key, message in mine.items():
        assert message == cli[key], key


@pytest.mark.parametrize("path", sorted(CASES.glob("*.py")), ids=_id)
def test_cases_match_their_expectations(corpus_run: Run, path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    got = _mypy_problems(corpus_run, path)
    assert {k for k in got if k[1] != "TS900"} == expected(source), corpus_run.stdout
    assert {(line, msg) for (line, code), msg in got.items() if code == "TS900"} == expected_notes(source)


def test_mypy_reports_only_plugin_codes_on_the_corpus(corpus_run: Run) -> None:
    """The examples are well typed for mypy itself; only shape errors appear."""
    assert corpus_run.stderr == ""
    assert all(m.code is None or lookup(m.code) is not None for m in corpus_run.messages), corpus_run.stdout
