"""The seeded bugs of the realistic suite, generated from ``bugs.toml`` and the programs they patch.

Each ``[name]`` table of ``bugs.toml`` describes one bug as a patch of a correct program::

    [unet_down_channels]
    program = "unet_skip_pad"                  # programs/unet_skip_pad.py
    bug = "the second encoder stage ..."       # becomes "Bug: ..." atop the docstring
    known-miss = "why it is not found yet"     # optional header (the test is then an xfail)
    raises = "return self.double_conv(x)"      # the line torch raises on ...
    code = "TS101"                             # ... gets "# E: TS101" (the code the checker must report)

    [[unet_down_channels.replace]]             # one or more edits
    old = "self.down2 = Down(32, 64)"
    new = "self.down2 = Down(16, 64)"

Lines are compared with their indentation stripped: ``old`` (one or more lines) must
match exactly one run of lines of the program, and ``new`` takes the indentation of the
first line it replaces; ``raises`` must match exactly one line once the edits are made
(a trailing comment on it gives way to the marker), or, where that line is not unique,
exactly one run of lines ending in it (the lines before it are context).  So an edit of a program cannot
silently de-sync a bug: generation fails, naming the bug.

``python -m tests.realistic.seeded DIR`` writes the bug files into DIR, to read or run one.
"""

from __future__ import annotations

import atexit
import functools
import re
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
PROGRAMS_DIR = HERE / "programs"
BUGS_TOML = HERE / "bugs.toml"

#: Header comments of a program that say nothing about a bug made from it.
_PROGRAM_HEADER = re.compile(r"^#\s*(exact-at-least|known-false-error|known-low-coverage):.*$")
#: Header fields a bug may carry (``harness.header`` reads them from the generated file).
HEADERS = ("known-miss",)


class BugSpecError(ValueError):
    """``bugs.toml`` does not fit the program it patches."""


def _find(lines: list[str], want: list[str], what: str, name: str) -> int:
    stripped = [line.strip() for line in lines]
    key = [w.strip() for w in want]
    hits = [i for i in range(len(lines) - len(key) + 1) if stripped[i : i + len(key)] == key]
    if len(hits) != 1:
        where = "not found" if not hits else f"found {len(hits)} times (lines {', '.join(str(h + 1) for h in hits)})"
        raise BugSpecError(f"bug {name!r}: the {what} {chr(10).join(key)!r} is {where} in the program")
    return hits[0]


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def render(name: str, spec: dict[str, Any], program: str) -> str:
    """The source of bug ``name``: its program with the edits, the marker and the headers."""
    lines = program.splitlines()
    while lines and _PROGRAM_HEADER.match(lines[0]):
        lines.pop(0)
    edits = spec.get("replace", [])
    if not edits:
        raise BugSpecError(f"bug {name!r}: no [[{name}.replace]] edit")
    for edit in edits:
        old = str(edit["old"]).strip("\n").splitlines()
        at = _find(lines, old, "line to replace", name)
        pad = _indent(lines[at])
        new = [pad + line if line else line for line in textwrap.dedent(str(edit["new"]).strip("\n")).splitlines()]
        lines[at : at + len(old)] = new
    raises = str(spec["raises"]).strip("\n").splitlines()
    code_part = [line.split("  #", 1)[0] for line in lines]
    at = _find(code_part, raises, "raising line", name) + len(raises) - 1
    lines[at] = f"{code_part[at].rstrip()}  # E: {spec['code']}"
    if not lines or not lines[0].startswith('"""'):
        raise BugSpecError(f"bug {name!r}: the program does not start with its docstring")
    lines[0] = f'"""Bug: {spec["bug"]}\n\n{lines[0][3:]}'
    headers = [f"# {key}: {spec[key]}" for key in HEADERS if key in spec]
    return "\n".join([*headers, *lines]) + "\n"


def specs(toml: Path = BUGS_TOML) -> dict[str, dict[str, Any]]:
    return tomllib.loads(toml.read_text(encoding="utf-8"))


def generate(dest: Path, suite: Path = HERE) -> list[Path]:
    """Write every bug of ``suite``'s ``bugs.toml`` (this suite's by default; tests/wholeprograms
    is another) into ``dest`` as ``NAME.py``; the paths, sorted."""
    dest.mkdir(parents=True, exist_ok=True)
    out = []
    for name, spec in specs(suite / "bugs.toml").items():
        program = (suite / "programs" / f"{spec['program']}.py").read_text(encoding="utf-8")
        path = dest / f"{name}.py"
        path.write_text(render(name, spec, program), encoding="utf-8")
        out.append(path)
    return sorted(out)


@functools.cache
def bug_files(suite: Path = HERE) -> list[Path]:
    """The bugs generated once per process into a temporary directory (removed at exit)."""
    tmp = Path(tempfile.mkdtemp(prefix=f"tensorshape-{suite.name}-bugs-")).resolve()
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    return generate(tmp / "bugs", suite)


if __name__ == "__main__":
    for p in generate(Path(sys.argv[1] if len(sys.argv) > 1 else "realistic-bugs")):
        print(p)
