"""Report the core's diagnostics as mypy errors (same message, hint as a note)."""

from __future__ import annotations

from collections.abc import Iterable

from mypy.messages import MessageBuilder
from mypy.nodes import Context
from mypy.plugin import CheckerPluginInterface
from tensorshape.model.diagnostics import Diagnostic, Severity

from .errorcodes import error_code

__all__ = ["report", "report_to"]


def _context(d: Diagnostic) -> Context:
    c = Context(d.span.line, d.span.column)
    c.end_line = d.span.end_line
    c.end_column = d.span.end_column
    return c


def report(api: CheckerPluginInterface, diagnostics: Iterable[Diagnostic]) -> None:
    """Errors and warnings become mypy errors (mypy has no warnings); notes become notes."""
    report_to(api.msg, diagnostics)


def report_to(msg: MessageBuilder, diagnostics: Iterable[Diagnostic]) -> None:
    for d in diagnostics:
        code = error_code(d.code)
        ctx = _context(d)
        if d.severity is Severity.NOTE:
            msg.note(d.message, ctx, code=code)
            continue
        msg.fail(d.message, ctx, code=code)
        if d.hint:
            msg.note(d.hint, ctx, code=code)
