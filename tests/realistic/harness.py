"""The realistic suites: programs written as their authors write them, checked against torch.

``programs/*.py`` are correct programs; the bugs, each one realistic shape bug
seeded into one of them, are generated from ``bugs.toml`` (``seeded.py``) into a
temporary directory, the line torch raises on ending in ``# E: <code>`` (the code
the checker must report there).  Each file runs as ``__main__`` with real torch on
small inputs (``run_with_torch.py``), and ``reveal_shape(x)`` probes record the
true shapes.  The checker's view of the same file is compared with that truth:

- a probe is **exact** when the checker's shape has the right rank and every dim
  agrees with torch's (an int equal to the size; a name bound consistently within
  the probe; an expression that evaluates to the size once its names are bound);
- **partial** when the rank is right and what is known agrees, but a dim is
  unknown (``?``) or cannot be evaluated;  a name the probe does not bind that is an
  ``argparse`` option of the program (``2*width``) takes the option's default, as it had
  when torch ran the file (``run_with_torch.py`` passes no arguments);
- **unknown** when the checker knows nothing (``[...]``, ``unknown``) or never
  revealed the line (the code was not analysed);
- **wrong** when anything disagrees with torch: a shape silently wrong.

A header comment ``# known-miss: <reason>`` in a bug (``known-miss`` in ``bugs.toml``) says the checker does
not report that bug yet (the test is then an expected failure, strict, so fixing
it is noticed); ``# known-false-error: <reason>`` likewise in a program.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tensorshape.infer import CheckSettings, check_file
from tensorshape.infer.libraries import Libraries
from tensorshape.infer.project import Project
from tensorshape.model.diagnostics import Severity

from tests.expectations import expected
from tests.realistic.seeded import bug_files

HERE = Path(__file__).resolve().parent
PROGRAMS = sorted((HERE / "programs").glob("*.py"))
BUGS = bug_files()

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_.']*")
_FUNCS = {"min", "max", "floor", "ceil"}


@dataclass
class Probe:
    line: int
    static: list[str]
    actual: list[Any]
    verdict: str


@dataclass
class StaticResult:
    errors: set[tuple[int, str]]
    warnings: set[tuple[int, str]]
    reveals: dict[int, list[str]]
    seconds: float
    stats: dict[str, int] = field(default_factory=dict)


def header(path: Path, key: str) -> str | None:
    m = re.search(rf"^#\s*{re.escape(key)}:\s*(.+)$", path.read_text(encoding="utf-8"), re.M)
    return m.group(1).strip() if m else None


@functools.cache
def check(path: Path, libraries: Libraries | None = None) -> StaticResult:
    """The checker's view of one file (cached: the tests share it); ``libraries``: the installed
    packages followed from source (none by default)."""
    import time

    start = time.perf_counter()
    result = check_file(path, CheckSettings(), Project([path.parent], libraries))
    seconds = time.perf_counter() - start
    errors: set[tuple[int, str]] = set()
    warnings: set[tuple[int, str]] = set()
    reveals: dict[int, list[str]] = {}
    for d in result.diagnostics:
        if d.code.id == "TS900":
            # A loader's last batch adds a second view: "[16 784]; [8 784] (on the last batch: ...)".
            reveals.setdefault(d.span.line, []).extend(d.message.removeprefix("revealed shape: ").split("; "))
        elif d.severity is Severity.ERROR:
            errors.add((d.span.line, d.code.id))
        elif d.severity is Severity.WARNING:
            warnings.add((d.span.line, d.code.id))
    return StaticResult(errors, warnings, reveals, seconds, dict(result.stats))


@functools.cache
def torch_truth(paths: tuple[Path, ...], python_path: tuple[str, ...] = ()) -> dict[str, Any]:
    """What torch does with each file: probes' shapes by line, and the raising line; ``python_path``:
    folders of installed packages the files import (appended to ``sys.path``)."""
    runner = HERE / "run_with_torch.py"
    extra = [a for p in python_path for a in ("--path", p)]
    proc = subprocess.run(
        [sys.executable, str(runner), *extra, *map(str, paths)], capture_output=True, text=True, timeout=900
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    data: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return data


def truth(path: Path) -> dict[str, Any]:
    all_files = tuple(PROGRAMS + BUGS)
    if path not in all_files:
        all_files = (path,)
    return torch_truth(all_files)[str(path)]  # type: ignore[no-any-return]


def _dims(text: str) -> list[str] | None:
    # A view's condition or origin: "(on the last batch: ...)", "(with a caller's sizes)".
    text = re.sub(r"\s+\((?:on the last batch|with a caller's sizes).*$", "", text.strip())
    if not (text.startswith("[") and text.endswith("]")):
        return None
    inner = text[1:-1].strip()
    return inner.split() if inner else []


@functools.cache
def argparse_defaults(path: Path) -> dict[str, int]:
    """The int defaults of the program's ``parser.add_argument("--hidden-dim", type=int, default=48)``
    calls, by destination (``hidden_dim``): the sizes torch ran the file with."""
    out: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_argument"
        ):
            continue
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        long = [f for f in flags if f.startswith("--")] or flags
        dest_node = keywords.get("dest")
        dest = dest_node.value if isinstance(dest_node, ast.Constant) else (long[0] if long else None)
        default = keywords.get("default")
        if (
            isinstance(dest, str)
            and isinstance(default, ast.Constant)
            and isinstance(default.value, int)
            and not isinstance(default.value, bool)
        ):
            out[dest.lstrip("-").replace("-", "_")] = default.value
    return out


def _agrees(dim: str, size: int, names: dict[str, int], defaults: dict[str, int] | None = None) -> str:
    """``exact``, ``partial`` (not decidable) or ``wrong`` for one dim against one size; ``defaults``:
    the values of names the probe does not bind (the program's option defaults)."""
    if dim == "?":
        return "partial"
    if re.fullmatch(r"-?\d+", dim):
        return "exact" if int(dim) == size else "wrong"
    tokens = [t for t in _TOKEN.findall(dim) if t not in _FUNCS]
    if len(tokens) == 1 and tokens[0] == dim:
        bound = names.setdefault(dim, size)
        return "exact" if bound == size else "wrong"
    known = {**(defaults or {}), **names}
    if any(t not in known for t in tokens):
        return "partial"
    env = {f"v{i}": known[t] for i, t in enumerate(tokens)}
    expr = dim
    for i, t in sorted(enumerate(tokens), key=lambda p: -len(p[1])):
        expr = expr.replace(t, f"v{i}")
    try:
        value = eval(expr, {"min": min, "max": max, "__builtins__": {}}, env)  # noqa: S307 - our own rendering
    except Exception:  # noqa: BLE001
        return "partial"
    return "exact" if value == size else "wrong"


def classify(static: str, actual: Any, defaults: dict[str, int] | None = None) -> str:
    """One probe observation: the checker's rendering against torch's shape (``defaults``: see
    :func:`argparse_defaults`)."""
    if not isinstance(actual, list) or any(not isinstance(a, int) for a in actual):
        return "unknown"  # tuples and other values are not scored
    dims = _dims(static)
    if dims is None or any(d.startswith("*") or d == "..." for d in dims):
        return "unknown"
    if len(dims) != len(actual):
        return "wrong"
    names: dict[str, int] = {}
    # Names alone bind first (a probe's ``batch`` is whatever torch saw); expressions are evaluated after.
    order = sorted(range(len(dims)), key=lambda i: not _TOKEN.fullmatch(dims[i]))
    verdict_at = {i: _agrees(dims[i], actual[i], names, defaults) for i in order}
    verdicts = [verdict_at[i] for i in range(len(dims))]
    if "wrong" in verdicts:
        return "wrong"
    return "partial" if "partial" in verdicts else "exact"


def probes(path: Path, static: StaticResult, seen: dict[str, Any] | None = None) -> list[Probe]:
    """Every probe torch saw, scored against every shape the checker revealed on that line
    (``seen``: torch's record of the file, when not that of :func:`truth`)."""
    seen = truth(path) if seen is None else seen
    out: list[Probe] = []
    for line_text, observations in seen["reveals"].items():
        line = int(line_text)
        shown = static.reveals.get(line, [])
        if not shown:
            out.append(Probe(line, [], observations, "unknown"))
            continue
        rank = {"exact": 0, "partial": 1, "unknown": 2, "wrong": 3}
        # The checker may reveal a line more than once (the generic analysis, a caller's
        # arguments, a loader's last batch), and torch may pass it more than once: every
        # observation is scored by the checker's best view of it, and a view that fits no
        # observation at all is wrong (in a program torch ran to the end).
        defaults = argparse_defaults(path)
        table = [[classify(s, actual, defaults) for s in shown] for actual in observations]
        worst = max((min(row, key=rank.__getitem__) for row in table), key=rank.__getitem__)
        # A program torch ran to the end passed every path the checker saw; in a bug file torch stops
        # at the raise, so a view of a later call (a second configuration) has nothing to match.
        completed = seen["raised"] is None
        if completed and any(all(row[j] == "wrong" for row in table) for j in range(len(shown))):
            worst = "wrong"
        out.append(Probe(line, shown, observations, worst))
    return sorted(out, key=lambda p: p.line)


def marked_bug(path: Path) -> set[tuple[int, str]]:
    return expected(path.read_text(encoding="utf-8"))


def assert_seeded_bug_reported(
    path: Path, raised: dict[str, Any] | None, errors: set[tuple[int, str]], warnings: set[tuple[int, str]]
) -> tuple[int, str]:
    """What every seeded-bug test asserts: the file marks one line, torch raises on that line, and the
    checker reports it there with the marked code (or the file says why not: ``# known-miss``, which
    must go once the bug is found).  Returns the marked ``(line, code)``."""
    marks = marked_bug(path)
    assert len(marks) == 1, "a bug file marks exactly one line with # E: <code>"
    ((line, code),) = marks
    assert raised is not None, "torch does not raise: the seeded bug is not a bug"
    assert raised["line"] == line, f"torch raises on line {raised['line']} ({raised['message']}), not {line}"
    reason = header(path, "known-miss")
    # A bug that fails only for some sizes the code allows (the last batch, an option's default)
    # is a warning that names the condition; the rest are errors.
    found = (line, code) in errors | warnings
    if reason:
        if found:
            pytest.fail(f"the bug is reported now: drop the known-miss header ({reason})")
        pytest.xfail(reason)
    assert found, f"not reported at line {line} as {code}; errors: {sorted(errors)}, warnings: {sorted(warnings)}"
    return line, code
