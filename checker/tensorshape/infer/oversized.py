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

What makes such a statement big is nearly always one long list or tuple literal.  Each literal
longer than :data:`MAX_SEQUENCE_CHARS` is kept as one :class:`OpaqueSequence` (its text, its
item count, and its items' names when each is a plain name), and the rest of the statement is
parsed as usual when it is then short: ``torch.cat([x, x, ...])`` of 100,000 items is a call of
a list of 100,000 tensors shaped like ``x``, found by Python's own parser in linear time.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import libcst as cst
from libcst._nodes.internal import visit_sequence
from libcst._visitors import CSTVisitorT

__all__ = ["LINE_BREAK", "MAX_STATEMENT_CHARS", "OpaqueCode", "OpaqueSequence", "opaque_statement"]

#: A top-level statement longer than this (in characters) is not parsed by libcst.
MAX_STATEMENT_CHARS = 64 * 1024
#: In such a statement, a list or tuple literal longer than this is kept as text (:class:`OpaqueSequence`).
MAX_SEQUENCE_CHARS = 4 * 1024
#: The most distinct item names an :class:`OpaqueSequence` keeps (more: its items are unknown).
MAX_SEQUENCE_NAMES = 64

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


@dataclass(frozen=True)
class OpaqueSequence(OpaqueCode):
    """A list or tuple literal kept as text: ``length`` items, each one of ``names`` when every item
    is a plain name (``None`` otherwise, or when there are more than :data:`MAX_SEQUENCE_NAMES`)."""

    length: int = 0
    is_tuple: bool = False
    names: tuple[str, ...] | None = None

    def _visit_and_replace_children(self, visitor: CSTVisitorT) -> OpaqueSequence:
        return OpaqueSequence(
            lpar=visit_sequence(self, "lpar", self.lpar, visitor),
            value=self.value,
            rpar=visit_sequence(self, "rpar", self.rpar, visitor),
            length=self.length,
            is_tuple=self.is_tuple,
            names=self.names,
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
    line_break = cst.Newline(newline.group() if newline is not None else None)
    parsed = _with_sequences_as_text(stmt, lines, code)
    if parsed is not None:
        tail = parsed.trailing_whitespace.with_changes(newline=line_break)
        return parsed.with_changes(trailing_whitespace=tail), rest
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
    line = cst.SimpleStatementLine(body=[small], trailing_whitespace=cst.TrailingWhitespace(newline=line_break))
    return line, rest


def _with_sequences_as_text(stmt: ast.stmt, lines: list[str], code: str) -> cst.SimpleStatementLine | None:
    """The statement ``code`` (Python's ``stmt``) parsed by libcst with each list or tuple literal
    longer than :data:`MAX_SEQUENCE_CHARS` kept as an :class:`OpaqueSequence`; None when there is
    none, or when what is left is still too long (or does not parse as one statement)."""
    # Byte offsets of the lines (``ast`` columns are UTF-8 bytes): a node's length in O(1).
    at_line = [0]
    for text in lines:
        at_line.append(at_line[-1] + len(text.encode("utf-8")))
    long: list[ast.List | ast.Tuple] = []
    inner: set[int] = set()  # long literals holding a long literal (the inner one is kept instead)
    todo: list[tuple[ast.AST, ast.AST | None]] = [(stmt, None)]
    while todo:
        node, outer = todo.pop()
        if (
            isinstance(node, (ast.List, ast.Tuple))
            and node.end_lineno is not None
            and at_line[node.end_lineno - 1] + (node.end_col_offset or 0) - at_line[node.lineno - 1] - node.col_offset
            > MAX_SEQUENCE_CHARS
            and not any(isinstance(e, ast.Starred) for e in node.elts)
        ):
            long.append(node)
            if outer is not None:
                inner.add(id(outer))
            outer = node
        todo.extend((child, outer) for child in ast.iter_child_nodes(node))
    found = [
        (_offset(lines, n.lineno, n.col_offset), _offset(lines, n.end_lineno or 0, n.end_col_offset or 0), n)
        for n in long
        if id(n) not in inner
    ]
    if not found:
        return None
    found.sort(key=lambda f: f[0])
    parts, kept, at = [], {}, 0
    for i, (start, end, node) in enumerate(found):
        placeholder = f"__tensorshape_sequence_{i}__"
        parts += [code[at:start], placeholder]
        names = tuple(dict.fromkeys(e.id for e in node.elts if isinstance(e, ast.Name)))
        complete = all(isinstance(e, ast.Name) for e in node.elts) and len(names) <= MAX_SEQUENCE_NAMES
        kept[placeholder] = OpaqueSequence(
            code[start:end],
            length=len(node.elts),
            is_tuple=isinstance(node, ast.Tuple),
            names=names if complete else None,
        )
        at = end
    reduced = "".join([*parts, code[at:]])
    if len(reduced) > MAX_STATEMENT_CHARS or any(p in code for p in kept):
        return None
    first_break = LINE_BREAK.search(code)
    eol = first_break.group() if first_break is not None else "\n"  # what libcst takes for the default
    try:
        module = cst.parse_module(reduced + eol)
    except Exception:  # noqa: BLE001 - parsed as a whole as before (libcst's own errors)
        return None
    if len(module.body) != 1 or module.header or module.footer:
        return None
    line = module.body[0]
    if type(line) is not cst.SimpleStatementLine or line.leading_lines:
        return None
    out = line.visit(_Restore(kept))
    if type(out) is not cst.SimpleStatementLine or module.with_changes(body=[out]).code not in (
        code + eol,
        code if eol == "\r" else None,
    ):
        return None  # never a byte lost (libcst drops the last line break of a CR-only text)
    return out


class _Restore(cst.CSTTransformer):
    """Put each kept literal back where its placeholder name was (with the brackets around it)."""

    def __init__(self, kept: dict[str, OpaqueSequence]) -> None:
        super().__init__()
        self.kept = kept

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        found = self.kept.get(original_node.value)
        return updated_node if found is None else found.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)


def _offset(lines: list[str], lineno: int, col_offset: int) -> int:
    """The character offset of ``(lineno, col_offset)`` (a UTF-8 byte column, as ``ast`` gives)."""
    before = sum(len(x) for x in lines[: lineno - 1])
    return before + len(lines[lineno - 1].encode("utf-8")[:col_offset].decode("utf-8", "replace"))
