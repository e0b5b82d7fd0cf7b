"""Top-level statements of Python source found by a line scan, without parsing.

A line starts a top-level statement when it has no indentation and is not inside
brackets, a string or a backslash continuation; decorators and ``else``/``elif``/
``except``/``finally`` clauses belong to the statement they precede or follow.
The scan is linear and light: the language server splits documents into chunks
with it (:mod:`tensorshape.lsp.chunks`), and the project parses big files a group
of statements at a time (:func:`.project.parse_source`), so that libcst's native
parser never holds a whole big file at once.  A wrong boundary (an odd f-string)
can only make a piece fail to parse; callers then parse the whole text.
"""

from __future__ import annotations

import re

__all__ = ["LineScanner", "split", "split_lines", "statement_starts"]

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_CODE = re.compile(r"""[#'"()\[\]{}\\]""")
_STRING_END = {q: re.compile(r"\\|" + re.escape(q) + ("|\n" if len(q) == 1 else "")) for q in ('"', "'", '"""', "'''")}
_CLAUSE = re.compile(r"(else|elif|except|finally)\b")

#: Scanner state at a line start: (bracket depth, open string delimiter or "", backslash continuation).
_State = tuple[int, str, bool]
_TOP: _State = (0, "", False)


def split_lines(source: str) -> list[str]:
    """Lines with their endings, split where Python splits them (``\\n``, ``\\r\\n``, ``\\r`` only)."""
    return _LINE.findall(source)


def _scan(state: _State, line: str) -> _State:
    """The scanner state after ``line``."""
    depth, quote, _ = state
    i, n = 0, len(line)
    while i < n:
        if quote:
            m = _STRING_END[quote].search(line, i)
            if m is None:
                return depth, quote if len(quote) == 3 else "", False
            s = m.group()
            if s == "\\":
                i = m.end() + 1  # the escaped character, or the newline of a continued string
            elif s == "\n":
                quote = ""  # an unterminated one-line string: Python reports it
                i = m.end()
            else:
                quote = ""
                i = m.end()
            continue
        m = _CODE.search(line, i)
        if m is None:
            break
        c = m.group()
        if c == "#":
            break
        if c in "\"'":
            triple = line.startswith(c * 3, m.start())
            quote = c * 3 if triple else c
            i = m.start() + len(quote)
        elif c in "([{":
            depth += 1
            i = m.end()
        elif c in ")]}":
            depth = max(depth - 1, 0)
            i = m.end()
        else:  # a backslash outside a string
            if not line[m.end() :].strip("\r\n"):
                return depth, "", True
            i = m.end() + 1
    return depth, quote, False


class LineScanner:
    """``_scan`` memoised by (state, line text): unchanged lines cost a dictionary look-up."""

    def __init__(self) -> None:
        self._memo: dict[tuple[_State, str], _State] = {}

    def starts(self, lines: list[str]) -> list[bool]:
        """For each line: does it start at the top level (not in brackets, a string or a continuation)?"""
        memo: dict[tuple[_State, str], _State] = {}
        old = self._memo
        out = []
        state = _TOP
        for line in lines:
            out.append(state == _TOP)
            key = (state, line)
            nxt = memo.get(key)
            if nxt is None:
                nxt = old.get(key)
                if nxt is None:
                    nxt = _scan(state, line)
                memo[key] = nxt
            state = nxt
        self._memo = memo  # keep only what the current document uses
        return out


def _is_trivia(line: str) -> bool:
    s = line.lstrip(" \t\f")
    return not s.strip() or s.startswith("#")


def statement_starts(
    lines: list[str], top: list[bool], indent: str = "", lo: int = 0, hi: int | None = None
) -> list[int]:
    """The lines (0-based, of ``lines[lo:hi]``) where a statement indented by exactly ``indent`` starts:
    its first decorator's line, ``else``/``elif``/``except``/``finally`` clauses left with their statement.
    With an ``indent``, the members of a block whose lines are ``lo`` to ``hi``."""
    starts: list[int] = []
    decorated = False
    n = len(indent)
    for i in range(lo, len(lines) if hi is None else hi):
        line = lines[i]
        if not top[i] or (n and not line.startswith(indent)):
            continue
        rest = line[n:] if n else line
        if not rest or rest[0] in " \t\f\r\n#":
            continue
        if decorated or _CLAUSE.match(rest):
            decorated = decorated and rest.startswith("@")
            continue
        starts.append(i)
        decorated = rest.startswith("@")
    return starts


def split(lines: list[str], top: list[bool]) -> list[tuple[int, bool, int]]:
    """The chunks of a document as ``(first line, is code, line count)`` (0-based lines)."""
    starts = statement_starts(lines, top)
    bounds: list[tuple[int, bool, int]] = []
    ends = starts[1:] + [len(lines)]
    pos = 0
    for s, e in zip(starts, ends):
        if s > pos:
            bounds.append((pos, False, s - pos))
        # The blank and comment lines closing a statement belong to the next trivia chunk.
        k = e
        while k > s + 1 and top[k - 1] and _is_trivia(lines[k - 1]):
            k -= 1
        bounds.append((s, True, k - s))
        pos = k
    if pos < len(lines):
        bounds.append((pos, False, len(lines) - pos))
    return bounds
