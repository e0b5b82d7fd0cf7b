"""Analyse one open document and keep what the editor asks about (diagnostics, shapes by range)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..infer.api import CheckSettings, FileResult, check_source
from ..infer.project import Project
from ..lang.render import render_shape
from ..model.diagnostics import Diagnostic, Span
from ..model.obligations import Obligation

__all__ = ["Analysis", "analyse", "ShapeAt", "utf16_column"]


@dataclass(frozen=True, slots=True)
class ShapeAt:
    span: Span
    shape: str
    #: For an assignment target: the variable's name (inlay hints go after it).
    target: str | None = None


@dataclass
class Analysis:
    version: int | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    shapes: list[ShapeAt] = field(default_factory=list)
    obligations: list[Obligation] = field(default_factory=list)
    #: Project files this analysis read (re-analysed when one of them changes).
    dependencies: set[str] = field(default_factory=set)


def utf16_column(line: str, column: int) -> int:
    """A code-point column as LSP's default UTF-16 units."""
    prefix = line[:column]
    return len(prefix.encode("utf-16-le")) // 2


def analyse(source: str, path: str, settings: CheckSettings, version: int | None, roots: list[Path]) -> Analysis:
    settings = CheckSettings(settings.options, settings.severity, settings.enable, obligations=True, record=True)
    project = Project(list(roots))
    result: FileResult = check_source(source, path, settings, project)
    out = Analysis(version, result.diagnostics, [], result.obligations, {p for p, _ in result.dependencies})
    an, info = result.analyzer, result.module
    if an is None or info is None or info.spans is None:
        return out
    import libcst as cst

    targets: dict[int, str] = {}
    if info.tree is not None:
        for stmt in _assignments(info.tree):
            if isinstance(stmt.value, cst.BaseExpression):
                for t in stmt.targets:
                    if isinstance(t.target, cst.Name):
                        targets[id(stmt.value)] = t.target.value
    for node, value in an.observations:
        span = info.spans.resolve(info.spans.ticket(node))
        out.shapes.append(ShapeAt(span, render_shape(value.shape), targets.get(id(node))))
    return out


def _assignments(tree: object) -> list:  # type: ignore[type-arg]
    import libcst as cst
    import libcst.matchers as m

    return [n for n in m.findall(tree, m.Assign()) if isinstance(n, cst.Assign)]  # type: ignore[arg-type]
