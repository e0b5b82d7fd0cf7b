"""The core's diagnostics as mypy messages, through mypy's own error collector.

Called once mypy has type checked a module (``get_additional_indirect_deps``,
before the module's messages are flushed and before unused ``# type: ignore``
comments are looked for): each diagnostic goes to mypy's ``Errors`` for the
module mypy just checked, so ``# type: ignore[code]``, ``disable_error_code``,
``enable_error_code``, per-module options and ``--warn-unused-ignores`` treat
it as one of mypy's own, and mypy stores it in its cache with the rest.
"""

from __future__ import annotations

from collections.abc import Iterable

from mypy.errors import ErrorInfo, Errors
from tensorshape.model.diagnostics import Diagnostic, Severity

from .errorcodes import count_id_ignores, error_code

__all__ = ["report"]


def report(errors: Errors, diagnostics: Iterable[Diagnostic]) -> list[ErrorInfo]:
    """Errors and warnings become mypy errors (mypy has no warnings); the hint follows as a note, then
    each related location (the call chain that led to the problem, where the problem is in another
    file) as a note ``path:line:column: message``, as the CLI's text shows them.  Returns mypy's
    records of them."""
    infos: list[ErrorInfo] = []
    for d in diagnostics:
        code = error_code(d.code)
        s = d.span
        if d.severity is not Severity.NOTE:
            infos.append(errors.report(s.line, s.column, d.message, code, end_line=s.end_line, end_column=s.end_column))
            count_id_ignores(errors, code, s.line)
        note = d.message if d.severity is Severity.NOTE else d.hint
        notes = [note] if note else []
        notes += [f"{r.path or d.path}:{r.span.line}:{r.span.column + 1}: {r.message}" for r in d.related]
        for text in notes:
            infos.append(
                errors.report(
                    s.line, s.column, text, code, severity="note", end_line=s.end_line, end_column=s.end_column
                )
            )
    return infos
