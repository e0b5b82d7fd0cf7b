"""Analyse one open document and keep what the editor asks about (diagnostics, shapes by range)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..infer.api import MAX_CALLER_VIEWS, CheckSettings, FileResult, check_source, inferred_parameters
from ..infer.project import Project
from ..lang.render import render_shape
from ..model.diagnostics import Diagnostic, Span
from ..model.obligations import Obligation

__all__ = ["Analysis", "analyse", "ShapeAt", "utf16_column", "assignment_targets", "lsp_settings"]


@dataclass(frozen=True, slots=True)
class ShapeAt:
    span: Span
    shape: str
    #: For an assignment target: the variable's name (inlay hints go after it).
    target: str | None = None
    #: Nothing is known about the shape (``[...]``): hover says so, an inlay hint would be noise.
    unknown: bool = False
    #: An unannotated parameter (the span is its name): the shape it learnt from its first use.
    learnt: bool = False
    #: The shapes it had when its function ran with a caller's arguments (distinct, at most
    #: ``MAX_CALLER_VIEWS``): ``[16 64]`` where the function's own analysis has ``[b 64]``.
    views: tuple[str, ...] = ()

    def hover_text(self) -> str:
        """What hovering the expression shows."""
        text = f"shape `{self.shape}`" + (" (inferred from its first use)" if self.learnt else "")
        if self.views:
            text += "; with a caller's sizes: " + ", ".join(f"`{v}`" for v in self.views)
        return text


@dataclass
class Analysis:
    version: int | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    obligations: list[Obligation] = field(default_factory=list)
    #: Project files this analysis read (re-analysed when one of them changes).
    dependencies: set[str] = field(default_factory=set)
    #: Computes :attr:`shapes` on first use.
    _compute: Callable[[], list[ShapeAt]] | None = None
    _shapes: list[ShapeAt] | None = None

    @property
    def shapes(self) -> list[ShapeAt]:
        """Every tensor expression's shape with its span (positions are computed on first use:
        diagnostics do not wait for them)."""
        if self._shapes is None:
            self._shapes = self._compute() if self._compute is not None else []
            self._compute = None
        return self._shapes


def utf16_column(line: str, column: int) -> int:
    """A code-point column as LSP's default UTF-16 units."""
    prefix = line[:column]
    return len(prefix.encode("utf-16-le")) // 2


def analyse(
    source: str,
    path: str,
    settings: CheckSettings,
    version: int | None,
    roots: list[Path],
    project: Project | None = None,
) -> Analysis:
    """Analyse one document.  ``project`` keeps the parsed and interpreted modules it imports between
    calls (the document itself is re-read each time)."""
    project = project if project is not None else Project(list(roots))
    result: FileResult = check_source(source, path, lsp_settings(settings), project)
    deps = {p for p, _ in result.dependencies}
    return Analysis(version, result.diagnostics, result.obligations, deps, lambda: _shapes(result))


def lsp_settings(settings: CheckSettings) -> CheckSettings:
    """``settings`` keeping what the editor asks about: obligations (code actions) and shapes (hover);
    not where counted causes were first met (statistics, which an editor does not show)."""
    return replace(settings, obligations=True, record=True, examples=False)


def _shapes(result: FileResult) -> list[ShapeAt]:
    an, info = result.analyzer, result.module
    if an is None or info is None or info.spans is None:
        return []
    targets = assignment_targets(info.tree) if info.tree is not None else {}
    out = []
    for node, value in an.observations:
        span = info.spans.resolve(info.spans.ticket(node))
        shape = render_shape(value.shape)
        seen = an.caller_views.get(id(node), (node, []))[1]
        views = tuple(v for v in dict.fromkeys(render_shape(t.shape) for t in seen) if v != shape)
        out.append(ShapeAt(span, shape, targets.get(id(node)), value.shape.is_unknown, views=views[:MAX_CALLER_VIEWS]))
    for params in inferred_parameters(result).values():
        for p in params.values():
            span = Span(p.line, p.column, p.line, p.column + len(p.name))
            out.append(ShapeAt(span, render_shape(p.value.shape), p.name, learnt=True))
    return out


def assignment_targets(tree: object) -> dict[int, str]:
    """``id`` of an assigned expression -> the variable it is assigned to (``x = <expr>``)."""
    import libcst as cst

    targets: dict[int, str] = {}

    class _V(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    targets[id(node.value)] = t.target.value

    tree.visit(_V())  # type: ignore[attr-defined]
    return targets
