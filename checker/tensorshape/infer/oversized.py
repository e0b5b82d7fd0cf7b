"""Top-level statements too big to analyse, kept as opaque text (issue 17 item 9).

libcst's native parser holds about 600 bytes of memory per byte of source while it parses one
piece of a file, and positions cost as much again: a single 300 KB statement (a generated
``torch.cat([x, x, ...])`` of 100,000 items) took 585 MB and 8 s.  Files are parsed a few
kilobytes of statements at a time (:func:`tensorshape.infer.project.parse_pieces`), so only a
single statement can be that big.  A top-level simple statement longer than
:data:`MAX_STATEMENT_CHARS` is therefore never handed to libcst: it becomes a statement whose
value is one :class:`OpaqueCode` (a ``Name`` whose value is the statement's text), so the module
still generates every byte of the file.  An assignment ``name = <huge>`` keeps its target (bound to an unknown
value), and the analysis counts the statement as ``expression-bound`` and goes on.
"""

from __future__ import annotations

import ast
import re

import libcst as cst
from libcst._nodes.internal import visit_sequence
from libcst._visitors import CSTVisitorT

__all__ = ["LINE_BREAK", "MAX_STATEMENT_CHARS", "OpaqueCode", "opaque_statement"]

#: A top-level statement longer than this (in characters) is not parsed by libcst.
MAX_STATEMENT_CHARS = 64 * 1024

_SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)
_EQUALS = re.compile(r"([ \t]*)=([ \t]*)")
LINE_BREAK = re.compile(r"\r\n|\r|\n")


class OpaqueCode(cst.Name):
    """Source text kept as it is: a ``Name`` whose value need not be an identifier.  Visitors and
    transformers pass it by (there is no ``visit_OpaqueCode``) and keep it an ``OpaqueCode``."""

    def _validate(self) -> None:
        return None

    def _visit_and_replace_children(self, visitor: CSTVisitorT) -> OpaqueCode:
        return OpaqueCode(
            lpar=visit_sequence(self, "lpar", self.lpar, visitor),
            value=self.value,
            rpar=visit_sequence(self, "rpar", self.rpar, visitor),
        )


def opaque_statement(text: str) -> tuple[cst.SimpleStatementLine, str] | None:
    """The statement that starts ``text`` (at column 0) as opaque text, and the text after it (blank
    and comment lines); None when it is not one simple statement ending with a line break or with
    the text (then it is parsed as usual).  The statement on the last line of a file without a final
    line break has the default newline (``Newline()``): its module has no trailing newline."""
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if len(body) != 1 or not isinstance(body[0], _SIMPLE):
        return None
    stmt = body[0]
    lines = text.splitlines(keepends=True)  # the same line breaks as Python's parser for valid code
    if stmt.end_lineno is None or stmt.end_lineno > len(lines):
        return None
    last = lines[stmt.end_lineno - 1]
    newline = LINE_BREAK.search(last)
    if newline is not None and newline.end() != len(last):
        return None
    rest = "".join(lines[stmt.end_lineno :])
    if newline is None and rest:
        return None
    code = "".join(lines[: stmt.end_lineno])
    if newline is not None:
        code = code[: -len(newline.group())]
    value: cst.BaseExpression = OpaqueCode(code)
    small: cst.BaseSmallStatement = cst.Expr(value)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        target = stmt.targets[0]
        start = _offset(lines, stmt.value.lineno, stmt.value.col_offset)
        end = _offset(lines, 1, target.end_col_offset or 0)
        between = _EQUALS.fullmatch(code[end:start]) if target.end_lineno == 1 else None
        if between is not None and start > 0:
            small = cst.Assign(
                targets=[
                    cst.AssignTarget(
                        cst.Name(target.id),
                        whitespace_before_equal=cst.SimpleWhitespace(between.group(1)),
                        whitespace_after_equal=cst.SimpleWhitespace(between.group(2)),
                    )
                ],
                value=OpaqueCode(code[start:]),
            )
    line_break = cst.Newline(newline.group() if newline is not None else None)
    line = cst.SimpleStatementLine(body=[small], trailing_whitespace=cst.TrailingWhitespace(newline=line_break))
    return line, rest


def _offset(lines: list[str], lineno: int, col_offset: int) -> int:
    """The character offset of ``(lineno, col_offset)`` (a UTF-8 byte column, as ``ast`` gives)."""
    before = sum(len(x) for x in lines[: lineno - 1])
    return before + len(lines[lineno - 1].encode("utf-8")[:col_offset].decode("utf-8", "replace"))
