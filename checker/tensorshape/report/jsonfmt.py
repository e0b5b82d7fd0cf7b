"""``--format json``: one object with every diagnostic (1-based lines and columns) and a summary.

:func:`read_json_report` reads one back (``tensorshape merge-reports``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..infer.result import FileResult
from ..model import codes
from ..model.diagnostics import Diagnostic, Related, Severity, Span
from .summary import all_diagnostics, summarize

__all__ = ["render_json", "read_json_report"]


def render_json(results: Sequence[FileResult], *, summary: dict[str, Any] | None = None, **_: object) -> str:
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
            "related": [
                {"path": r.path or d.path, "line": r.span.line, "column": r.span.column + 1, "message": r.message}
                for r in d.related
            ],
        }
        for d in all_diagnostics(results)
    ]
    doc = {"version": 1, "diagnostics": diags, "summary": summary if summary is not None else summarize(results)}
    return json.dumps(doc, indent=2) + "\n"


def read_json_report(doc: dict[str, Any]) -> tuple[list[Diagnostic], dict[str, Any]]:
    """The diagnostics and summary of a ``--format json`` report (``KeyError``/``ValueError`` if it is not one)."""
    if doc.get("version") != 1:
        raise ValueError(f"unsupported report version {doc.get('version')!r}")
    out = []
    for d in doc["diagnostics"]:
        code = codes.lookup(d["code"])
        if code is None:
            raise ValueError(f"unknown diagnostic code {d['code']!r}")
        related = tuple(
            Related(Span(r["line"], r["column"] - 1, r["line"], r["column"] - 1), r["message"], r["path"])
            for r in d.get("related", [])
        )
        span = Span(d["line"], d["column"] - 1, d["end_line"], d["end_column"] - 1)
        out.append(Diagnostic(code, d["message"], span, Severity.parse(d["severity"]), d["hint"], d["path"], related))
    return out, dict(doc["summary"])
