"""The files both transports are compared on (tests/mypy/test_parity.py, benchmarks/mypy_parity.py).

Every program of the repository:

* typed code, where mypy itself must have nothing to say but the accepted differences:
  ``examples/``, ``tests/mypy/cases/``, ``tests/mypy/realistic/``;
* code as people write it (mypy's own errors are its verdicts on the code, not compared):
  ``tests/mypy/mypy_only/``, the realistic suites ``tests/realistic/programs/`` and the bugs
  generated from ``tests/realistic/bugs.toml``, the library programs ``tests/libraries/programs/``
  (installed packages followed by both, as far as the environment has them), the whole programs
  ``tests/wholeprograms/programs/`` and the bugs generated from ``tests/wholeprograms/bugs.toml``
  (complete unannotated training scripts), and the programs the inference tests of
  ``tests/infer/`` check, written out as files (:func:`infer_programs`).

The CLI side is ``tensorshape check --format json`` itself (:func:`cli_problems`), run once per
configuration (the nearest ``pyproject.toml``, as the plugin finds it for each file).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import json
import re
import shutil
import tempfile
import textwrap
from collections.abc import Iterable
from pathlib import Path

from tests.expectations import EXAMPLES, ROOT
from tests.realistic.seeded import bug_files

__all__ = ["TYPED", "UNTYPED", "CORPUS", "Problems", "cli_problems", "infer_programs", "ident"]

#: (line, column, code id) -> message: errors and warnings, and ``reveal_shape`` notes (TS900).
Problems = dict[tuple[int, int, str], str]

MYPY = ROOT / "tests" / "mypy"
INFER = ROOT / "tests" / "infer"
_PROGRAM = re.compile(r"\btorch\b|\bTensor\b")


def _write(folder: Path, name: str, text: str) -> Path:
    p = folder / f"{name}.py"
    p.write_text(text, encoding="utf-8")
    return p


def _strings(tree: ast.Module) -> Iterable[tuple[int, str]]:
    """Multi-line string literals, by where they start (line * 1000 + column)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "\n" in node.value:
            yield node.lineno * 1000 + node.col_offset, node.value


def harvest(test_file: Path) -> list[tuple[str, str]]:
    """The programs a test module of ``tests/infer`` checks: every multi-line string literal that
    is a Python program using torch, with the module's ``HEADER`` in front (what its helpers do)."""
    tree = ast.parse(test_file.read_text(encoding="utf-8"))
    header = ""
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["HEADER"]
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            header = node.value.value
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for where, text in _strings(tree):
        if text == header:
            continue
        body = textwrap.dedent(text)
        source = header + body
        if source in seen or not _PROGRAM.search(source):
            continue
        try:
            compile(source, test_file.name, "exec", dont_inherit=True)
        except SyntaxError:
            continue  # a fragment Python refuses (a template, an expression, a body without its def)
        seen.add(source)
        line, column = divmod(where, 1000)
        out.append((f"infer_{test_file.stem.removeprefix('test_')}_{line}" + (f"_{column}" if column else ""), source))
    return out


@functools.cache
def infer_programs() -> tuple[Path, ...]:
    """The inference tests' programs as files, once per process (a temporary folder removed at exit)."""
    import atexit

    folder = Path(tempfile.mkdtemp(prefix="tensorshape-infer-programs-")).resolve()
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return tuple(
        _write(folder, name, source) for test in sorted(INFER.glob("test_*.py")) for name, source in harvest(test)
    )


WHOLE = ROOT / "tests" / "wholeprograms"
#: The whole-program suite's generated bugs (named apart from the realistic suite's in reports).
WHOLE_BUGS = frozenset(bug_files(WHOLE))

TYPED = sorted([*EXAMPLES.rglob("*.py"), *(MYPY / "cases").glob("*.py"), *(MYPY / "realistic").glob("*.py")])
UNTYPED = sorted(
    [
        *(MYPY / "mypy_only").glob("*.py"),
        *(ROOT / "tests" / "realistic" / "programs").glob("*.py"),
        *bug_files(),
        *(ROOT / "tests" / "libraries" / "programs").glob("*.py"),
        *(WHOLE / "programs").glob("*.py"),
        *WHOLE_BUGS,
        *infer_programs(),
    ]
)
CORPUS = sorted([*TYPED, *UNTYPED])
# One mypy run: a module name (a file's stem, outside packages) must be unique.
_DUP = sorted(p for p in CORPUS if [q.stem for q in CORPUS].count(p.stem) > 1)
assert not _DUP, f"corpus files share a module name: {_DUP}"


def ident(p: Path) -> str:
    """A file's name in reports and in the accepted differences."""
    if p.is_relative_to(ROOT):
        return p.relative_to(ROOT).as_posix()
    if p.stem.startswith("infer_"):
        return f"tests/infer:{p.stem}"
    if p in WHOLE_BUGS:
        return f"tests/wholeprograms/bugs.toml:{p.stem}"
    return f"tests/realistic/bugs.toml:{p.stem}"  # a generated bug


def cli_problems(paths: Iterable[Path]) -> dict[Path, Problems]:
    """What ``tensorshape check --format json`` reports for each file, one run per configuration."""
    from tensorshape.cli.config import find_pyproject
    from tensorshape.cli.main import main

    groups: dict[Path | None, list[Path]] = {}
    for p in paths:
        groups.setdefault(find_pyproject(p.parent), []).append(p)
    out: dict[Path, Problems] = {p.resolve(): {} for ps in groups.values() for p in ps}
    for config, files in groups.items():
        args = ["check", "--format", "json", "--no-cache", "--progress", "never"]
        if config is not None:
            args += ["--config", str(config)]
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            status = main([*args, *map(str, files)])
        assert status in (0, 1), f"tensorshape check failed ({status}) on {files}"
        for d in json.loads(buf.getvalue())["diagnostics"]:
            if d["severity"] in ("error", "warning") or d["code"] == "TS900":
                out[Path(d["path"]).resolve()][(d["line"], d["column"] - 1, d["code"])] = d["message"]
    return out
