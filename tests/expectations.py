"""Inline expectations shared by the front-end tests and the mypy parity test.

A line ending in ``# E: TS101`` (or several codes, ``# E: TS101 TS102``) expects
those error/warning codes reported on that line, and nothing else is expected
anywhere in the file.  ``# N: text`` expects a note (``reveal_shape``) with that text.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["expected", "expected_notes", "ROOT", "EXAMPLES"]

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

_E = re.compile(r"#\s*E:\s*([A-Za-z0-9 ,\-]+?)\s*$")
_N = re.compile(r"#\s*N:\s*(.+?)\s*$")


def expected(source: str) -> set[tuple[int, str]]:
    out: set[tuple[int, str]] = set()
    for i, line in enumerate(source.splitlines(), 1):
        m = _E.search(line)
        if m:
            for code in re.split(r"[ ,]+", m.group(1).strip()):
                out.add((i, code))
    return out


def expected_notes(source: str) -> set[tuple[int, str]]:
    """``# N: revealed shape: [2 3]``: a note with that text on that line."""
    out: set[tuple[int, str]] = set()
    for i, line in enumerate(source.splitlines(), 1):
        m = _N.search(line)
        if m:
            out.add((i, m.group(1)))
    return out
