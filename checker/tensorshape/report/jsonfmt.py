"""``--format json``: one object with every diagnostic (1-based lines and columns) and a summary."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..infer.api import FileResult
from .summary import all_diagnostics, summarize

__all__ = ["render_json"]


def render_json(results: Sequence[FileResult], **_: object) -> str:
    diags = [
        {
            "path": d.path,
            "line": d.span.line,
            "column": d.span.column + 1,
            "end_line": d.span.end_line,
            "end_column": d.span.end_column + 1,
            "code": d.code.id,
            "name": d.code.name,
            "severity": str(d.severity),
            "message": d.message,
            "hint": d.hint,
        }
        for d in all_diagnostics(results)
    ]
    return json.dumps({"version": 1, "diagnostics": diags, "summary": summarize(results)}, indent=2) + "\n"
