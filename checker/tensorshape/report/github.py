"""``--format github``: GitHub Actions workflow commands, shown as annotations on the diff."""

from __future__ import annotations

from collections.abc import Sequence

from ..infer.api import FileResult
from ..model.diagnostics import Severity
from .summary import all_diagnostics

__all__ = ["render_github"]

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def render_github(results: Sequence[FileResult], **_: object) -> str:
    out = []
    for d in all_diagnostics(results):
        s = d.span
        props = (
            f"file={_escape_prop(d.path or '')},line={s.line},col={s.column + 1},"
            f"endLine={s.end_line},endColumn={s.end_column + 1},title={_escape_prop(f'{d.code.id} {d.code.name}')}"
        )
        msg = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        out.append(f"::{_LEVEL[d.severity]} {props}::{_escape_data(msg)}")
    return "\n".join(out) + ("\n" if out else "")
