"""Small readings of libcst syntax shared by the interpreter's parts."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence

import libcst as cst

__all__ = ["simple_text", "blocks", "definitions", "suite_body", "code_children"]

#: Fields of libcst nodes that hold only layout (whitespace, comments, brackets, punctuation).
_LAYOUT_FIELDS = frozenset(
    {
        "leading_lines", "lines_after_decorators", "header", "footer", "empty_lines", "trailing_whitespace",
        "newline", "indent", "lpar", "rpar", "lbrace", "rbrace", "lbracket", "rbracket", "comma",
        "trailing_comma", "colon", "first_colon", "second_colon", "dot", "equal", "semicolon", "operator",
        "asynchronous", "posonly_ind", "separator", "comment",
    }
)  # fmt: skip
#: The code-holding field names of each node class (libcst nodes are dataclasses).
_FIELDS: dict[type, tuple[str, ...]] = {}


def code_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes held by ``node``'s fields other than layout (whitespace, comments, brackets,
    punctuation): every child of ``node.children`` that can hold a name or an expression, without
    the visitor pass ``children`` costs."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(
            f.name
            for f in dataclasses.fields(node)
            if f.name not in _LAYOUT_FIELDS and not f.name.startswith("whitespace")
        )
    out: list[cst.CSTNode] = []
    for name in names:
        v = getattr(node, name)
        if isinstance(v, cst.CSTNode):
            out.append(v)
        elif isinstance(v, (tuple, list)):
            out.extend(x for x in v if isinstance(x, cst.CSTNode))
    return out


def simple_text(node: cst.CSTNode | None) -> str | None:
    """Source text of a name or attribute chain (``x``, ``self.proj``), else ``None``."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = simple_text(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


Statement = cst.BaseStatement | cst.BaseSmallStatement


def suite_body(suite: cst.BaseSuite) -> Sequence[Statement]:
    """The statements of an indented block or of a one-line suite."""
    return suite.body


def blocks(stmt: cst.CSTNode) -> list[Sequence[Statement]]:
    """The statement lists a compound statement holds, in source order (not function or class bodies).

    ``if``/``elif``/``else``, ``for``/``while`` (and their ``else``), ``with``,
    ``try``/``except``/``else``/``finally`` (``except*`` too) and ``match`` cases.
    """
    out: list[Sequence[Statement]] = []
    if isinstance(stmt, cst.If):
        out.append(suite_body(stmt.body))
        orelse = stmt.orelse
        if isinstance(orelse, cst.If):
            out.extend(blocks(orelse))
        elif isinstance(orelse, cst.Else):
            out.append(suite_body(orelse.body))
    elif isinstance(stmt, (cst.For, cst.While)):
        out.append(suite_body(stmt.body))
        if stmt.orelse is not None:
            out.append(suite_body(stmt.orelse.body))
    elif isinstance(stmt, cst.With):
        out.append(suite_body(stmt.body))
    elif isinstance(stmt, (cst.Try, cst.TryStar)):
        out.append(suite_body(stmt.body))
        out.extend(suite_body(h.body) for h in stmt.handlers)
        if stmt.orelse is not None:
            out.append(suite_body(stmt.orelse.body))
        if stmt.finalbody is not None:
            out.append(suite_body(stmt.finalbody.body))
    elif isinstance(stmt, cst.Match):
        out.extend(suite_body(c.body) for c in stmt.cases)
    return out


def definitions(stmts: Sequence[cst.CSTNode]) -> Iterator[cst.FunctionDef | cst.ClassDef]:
    """The ``def`` and ``class`` statements of a block, through its control flow (not inside them)."""
    for stmt in stmts:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            yield stmt
        else:
            for block in blocks(stmt):
                yield from definitions(block)
