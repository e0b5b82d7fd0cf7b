"""Both transports of the one analysis (``tensorshape check`` and mypy + plugin) report the same problems.

One mypy run covers the whole corpus (:mod:`tests.mypy.corpus`: ``examples/``, the mypy test
programs, the realistic suites and their generated bugs, the library programs, the inference tests'
programs); ``tensorshape check --format json`` runs over the same files.  For every file the two
must report the same codes at the same lines and columns, with the same messages (and the same
``reveal_shape`` notes), but for the differences listed in ``ACCEPTED`` with their reason (also in
docs/mypy.md, "Differences from the CLI").  ``benchmarks/mypy_parity.py`` prints the counts.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import runpy
import traceback
from collections import Counter
from pathlib import Path

import pytest
from tensorshape.model.codes import lookup

from tests.expectations import ROOT, expected, expected_notes
from tests.mypy.corpus import CORPUS, MYPY, TYPED, Problems, cli_problems, ident
from tests.mypy.runner import Mypy, Run

pytestmark = pytest.mark.mypy

EXPECTING = sorted([*(MYPY / "cases").glob("*.py"), *(MYPY / "realistic").glob("*.py")])

#: mypy's own errors on the typed part of the corpus, by (file, line, code), with the reason
#: (docs/mypy.md).
ACCEPTED: dict[tuple[str, int, str], str] = {
    ("examples/first_class_dims.py", 10, "import-untyped"): (
        "functorch ships no py.typed: mypy's own import check, which no plugin hook reaches; "
        "users set ignore_missing_imports (or follow_untyped_imports) for functorch"
    ),
}

_TYPE_IGNORE = re.compile(r"#\s*type:\s*ignore")
_MYPY_DISABLE = re.compile(r"^#\s*mypy:\s*disable-error-code\s*=\s*[\"']?([\w\-, ]+)", re.M)

#: Kinds of shape differences the two transports have by design, with the reason (docs/mypy.md):
#: each a test on (the file's source, line, code id).
RULES: dict[str, str] = {
    "type-ignore": (
        "a line with `# type: ignore`: mypy applies its own comments (a bare ignore silences every "
        "error of the line), so that --warn-unused-ignores counts them; the CLI reads a bare ignore "
        "only with `bare_type_ignore = true` (both read codes by name, `shape-mismatch`, and by id, `TS101`)"
    ),
    "mypy-disable": (
        "`# mypy: disable-error-code=...` is mypy's own per-file option (the CLI's is `[tool.tensorshape] severity`)"
    ),
}


@functools.cache
def _source(path: Path) -> tuple[list[str], frozenset[str]]:
    text = path.read_text(encoding="utf-8")
    disabled = {c.strip() for m in _MYPY_DISABLE.finditer(text) for c in m.group(1).split(",")}
    return text.splitlines(), frozenset(disabled)


def accepted_rule(path: Path, line: int, code: str) -> str | None:
    """The rule a difference on ``line`` with ``code`` (a tensorshape id) falls under, if any."""
    lines, disabled = _source(path)
    if 0 < line <= len(lines) and _TYPE_IGNORE.search(lines[line - 1]):
        return "type-ignore"
    found = lookup(code)
    if found is not None and (found.name in disabled or found.id in disabled):
        return "mypy-disable"
    return None


@pytest.fixture(scope="module")
def corpus_run(mypy_runner: Mypy) -> Run:
    return mypy_runner.run(CORPUS)


@pytest.fixture(scope="module")
def cli() -> dict[Path, Problems]:
    return cli_problems(CORPUS)


def mypy_problems(run: Run, path: Path) -> Problems:
    """The plugin's errors (mypy errors with a tensorshape code) and ``reveal_shape`` notes for ``path``."""
    out = {}
    for m in run.for_file(path):
        if m.severity == "error" and m.code is not None:
            code = lookup(m.code)
            if code is not None:
                out[(m.line, m.column, code.id)] = m.message
        elif m.severity == "note" and m.message.startswith("revealed shape: "):
            out[(m.line, m.column, "TS900")] = m.message
    return out


#: The installed packages the library programs follow: the counts depend on which are present.
_LIBRARIES = ("torchvision", "timm", "transformers")
#: The fenced block of docs/mypy.md that holds :func:`parity_table`'s output (after this marker line).
TABLE_MARKER = "<!-- parity table: the output of benchmarks/mypy_parity.py, checked by tests/mypy/test_parity.py -->"


def _suite(name: str) -> str:
    if ":" in name:
        return name.split(":")[0]
    parts = name.split("/")
    return "/".join(parts[:3]) if parts[0] == "tests" else parts[0]


def environment() -> str:
    """Which of the library programs' packages are installed (the counts are for this environment)."""
    have = [m for m in _LIBRARIES if importlib.util.find_spec(m) is not None]
    missing = [m for m in _LIBRARIES if m not in have]
    return f"installed: {', '.join(have) or 'none'}; not installed: {', '.join(missing) or 'none'}"


def parity_table(run: Run, cli: dict[Path, Problems]) -> tuple[list[str], list[str]]:
    """The parity figures per suite, as printed by benchmarks/mypy_parity.py and shown in docs/mypy.md,
    and the differences no rule accepts (each ``file:line code (side)``)."""
    counts: dict[str, Counter[str]] = {}
    others: list[str] = []
    by_rule: Counter[str] = Counter()
    for path in CORPUS:
        name = ident(path)
        c = counts.setdefault(_suite(name), Counter())
        c["files"] += 1
        found = mypy_problems(run, path)
        mine = {(k[0], k[2]) for k in found if k[2] != "TS900"}
        theirs = {(k[0], k[2]) for k in cli[path] if k[2] != "TS900"}
        c["cli"] += len(theirs)
        c["mypy"] += len(mine)
        c["equal"] += len(mine & theirs)
        for line, code in sorted(mine ^ theirs):
            rule = accepted_rule(path, line, code)
            if rule is not None:
                c["accepted"] += 1
                by_rule[rule] += 1
            else:
                c["other"] += 1
                side = "mypy only" if (line, code) in mine else "CLI only"
                others.append(f"{name}:{line} {code} ({side})")
        notes = {k for k in found if k[2] == "TS900"}
        c["reveals"] += len(notes)
        c["reveals equal"] += len(notes & {k for k in cli[path] if k[2] == "TS900"})
    cols = ("files", "cli", "mypy", "equal", "accepted", "other")
    lines = [
        environment(),
        f"{'suite':30}" + "".join(f"{c:>9}" for c in ("files", "cli", "mypy", "equal", "accept", "other")),
    ]
    total: Counter[str] = Counter()
    for suite, c in sorted(counts.items(), key=lambda item: (-item[1]["files"], item[0])):
        total.update(c)
        lines.append(f"{suite:30}" + "".join(f"{c[k]:>9}" for k in cols))
    lines.append(f"{'total':30}" + "".join(f"{total[k]:>9}" for k in cols))
    lines.append(f"reveal_shape notes: {total['reveals equal']} of {total['reveals']} equal")
    lines += [f"accepted ({rule}): {by_rule[rule]}" for rule in RULES]
    by_name = {ident(p): p for p in CORPUS}
    listed = {(by_name[f], line, code) for f, line, code in ACCEPTED}
    own = sum(1 for m in run.messages if (Path(m.path).resolve(), m.line, m.code) in listed)
    lines.append(f"mypy's own errors accepted on typed code: {own} ({len(ACCEPTED)} listed)")
    return lines, others


def documented_table() -> list[str]:
    """The parity table as docs/mypy.md shows it (the fenced block after :data:`TABLE_MARKER`)."""
    text = (ROOT / "docs" / "mypy.md").read_text(encoding="utf-8")
    _, _, after = text.partition(TABLE_MARKER + "\n```text\n")
    return after.partition("```")[0].splitlines()


def without_accepted(problems: Problems, path: Path) -> Problems:
    return {k: v for k, v in problems.items() if accepted_rule(path, k[0], k[2]) is None}


@pytest.mark.parametrize("path", CORPUS, ids=ident)
def test_same_problems_as_the_cli(corpus_run: Run, cli: dict[Path, Problems], path: Path) -> None:
    assert without_accepted(mypy_problems(corpus_run, path), path) == without_accepted(cli[path], path), (
        corpus_run.stdout
    )


def test_each_accepted_kind_of_difference_is_seen(corpus_run: Run, cli: dict[Path, Problems]) -> None:
    """Each rule of accepted differences explains a difference the corpus has (the list stays short
    and true)."""
    used = set()
    for path in CORPUS:
        mine = {(k[0], k[2]) for k in mypy_problems(corpus_run, path)}
        theirs = {(k[0], k[2]) for k in cli[path]}
        used |= {accepted_rule(path, line, code) for line, code in mine ^ theirs}
    assert used - {None} == set(RULES)


@pytest.mark.parametrize("path", EXPECTING, ids=ident)
def test_cases_match_their_expectations(corpus_run: Run, path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    got = mypy_problems(corpus_run, path)
    assert {(line, code) for line, _, code in got if code != "TS900"} == expected(source), corpus_run.stdout
    assert {(line, msg) for (line, _, code), msg in got.items() if code == "TS900"} == expected_notes(source)


@pytest.mark.parametrize("path", sorted((MYPY / "realistic").glob("*.py")), ids=ident)
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


def test_mypy_reports_only_plugin_codes_on_typed_code(corpus_run: Run) -> None:
    """The typed part of the corpus is well typed for mypy itself: only shape errors, and the accepted
    differences.  (On the untyped part mypy's own errors are its verdicts on the code.)"""
    assert corpus_run.stderr == ""
    typed = {ident(p) for p in TYPED}
    own = {
        (ident(Path(m.path).resolve()), m.line, m.code)
        for m in corpus_run.messages
        if m.severity == "error" and m.code is not None and lookup(m.code) is None
    }
    assert {o for o in own if o[0] in typed} == {k for k in ACCEPTED if lookup(k[2]) is None}, corpus_run.stdout


def test_the_corpus_covers_every_suite() -> None:
    names = [ident(p) for p in CORPUS]
    for suite in (
        "examples/",
        "tests/mypy/cases/",
        "tests/mypy/realistic/",
        "tests/mypy/mypy_only/",
        "tests/realistic/programs/",
        "tests/realistic/bugs.toml:",
        "tests/libraries/programs/",
        "tests/infer:",
    ):
        assert any(n.startswith(suite) for n in names), suite


def test_the_documented_counts_are_current(corpus_run: Run, cli: dict[Path, Problems]) -> None:
    """docs/mypy.md shows benchmarks/mypy_parity.py's table as it is: a change to the corpus or to
    either transport that changes a count fails here until the doc is updated (in an environment
    with other library packages installed the counts differ, and the check is skipped)."""
    documented = documented_table()
    assert documented, f"docs/mypy.md has no parity table after {TABLE_MARKER}"
    if documented[0] != environment():
        pytest.skip(f"the doc's counts are for {documented[0]!r}, this environment is {environment()!r}")
    got, _ = parity_table(corpus_run, cli)
    assert documented == got, "\n".join(["docs/mypy.md's parity table is stale; the current one:", *got])
