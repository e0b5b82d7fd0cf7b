"""Where a check can go: the statement enclosing a position, and each function's ``def`` line."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..infer.project import parse_source

__all__ = ["Statement", "FunctionSite", "locate"]


@dataclass(frozen=True, slots=True)
class Statement:
    start: int
    end: int
    indent: str
    #: Can a line be inserted before it?  (Not a one-line compound body, not ``a; b``.)
    insertable: bool


@dataclass(frozen=True, slots=True)
class FunctionSite:
    name: str
    #: The ``def`` line (decorators above it stay above our decorator).
    def_line: int
    indent: str
    start: int
    end: int
    #: Does it have a jaxtyping-style (subscripted) annotation on a parameter or the return?
    annotated: bool


class _Collector(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.statements: list[Statement] = []
        self.functions: list[FunctionSite] = []

    def _indent(self, line: int) -> str:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return text[: len(text) - len(text.lstrip())]

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        pos = self.get_metadata(PositionProvider, node)
        self.statements.append(Statement(pos.start.line, pos.end.line, self._indent(pos.start.line), len(node.body) == 1))

    def _compound(self, node: cst.CSTNode) -> None:
        pos = self.get_metadata(PositionProvider, node)
        body = getattr(node, "body", None)
        one_line = isinstance(body, cst.SimpleStatementSuite)
        self.statements.append(Statement(pos.start.line, pos.end.line, self._indent(pos.start.line), not one_line))

    def visit_If(self, node: cst.If) -> None:
        self._compound(node)

    def visit_For(self, node: cst.For) -> None:
        self._compound(node)

    def visit_While(self, node: cst.While) -> None:
        self._compound(node)

    def visit_With(self, node: cst.With) -> None:
        self._compound(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        pos = self.get_metadata(PositionProvider, node)
        def_line = pos.start.line + sum(
            1 + str(cst.Module([]).code_for_node(d.decorator)).count("\n") for d in node.decorators
        )
        # The ``def`` keyword's line: after the decorators (each on its own line(s)).
        for i in range(pos.start.line, pos.end.line + 1):
            if self.lines[i - 1].lstrip().startswith(("def ", "async def ")):
                def_line = i
                break
        params = [p.annotation for p in (*node.params.params, *node.params.kwonly_params) if p.annotation is not None]
        anns = params + ([node.returns] if node.returns is not None else [])
        annotated = any(isinstance(a.annotation, cst.Subscript) or isinstance(a.annotation, cst.SimpleString) for a in anns)
        self.functions.append(
            FunctionSite(node.name.value, def_line, self._indent(def_line), pos.start.line, pos.end.line, annotated)
        )


def locate(source: str) -> tuple[list[Statement], list[FunctionSite]]:
    module, failure = parse_source(source)  # guarded: never hands libcst what overflows its stack
    if module is None:
        raise SyntaxError(failure.message if failure else "cannot parse")
    c = _Collector(source.splitlines())
    MetadataWrapper(module, unsafe_skip_copy=True).visit(c)
    return c.statements, c.functions


def innermost(statements: list[Statement], line: int) -> Statement | None:
    """The smallest statement whose lines contain ``line``."""
    best: Statement | None = None
    for s in statements:
        if s.start <= line <= s.end and (best is None or s.end - s.start <= best.end - best.start):
            best = s
    return best
