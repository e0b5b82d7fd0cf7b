"""FileResults to and from JSON-able dicts (the cache, worker processes)."""

from __future__ import annotations

from typing import Any

from ..infer.api import FileResult
from ..model import codes
from ..model.diagnostics import Diagnostic, Related, Severity, Span
from ..model.obligations import Obligation, ObligationKind, SpecCheck

__all__ = ["dump_result", "load_result"]


def _span(s: Span | None) -> list[int] | None:
    return None if s is None else [s.line, s.column, s.end_line, s.end_column]


def _unspan(v: list[int] | None) -> Span | None:
    return None if v is None else Span(*v)


def dump_result(r: FileResult) -> dict[str, Any]:
    return {
        "path": r.path,
        "diagnostics": [
            {
                "code": d.code.id,
                "message": d.message,
                "span": _span(d.span),
                "severity": d.severity.name,
                "hint": d.hint,
                "path": d.path,
                "related": [[_span(x.span), x.message, x.path] for x in d.related],
            }
            for d in r.diagnostics
        ],
        "obligations": [
            {
                "kind": o.kind.value,
                "span": _span(o.span),
                "checks": [[_span(c.span), c.text, c.spec] for c in o.checks],
                "reason": o.reason,
                "path": o.path,
            }
            for o in r.obligations
        ],
        "stats": r.stats,
        "unanalysed": [list(u) for u in r.unanalysed],
        "dependencies": [list(d) for d in r.dependencies],
    }


def load_result(data: dict[str, Any]) -> FileResult:
    diags = []
    for d in data["diagnostics"]:
        code = codes.lookup(d["code"])
        if code is None:
            raise KeyError(d["code"])
        span = _unspan(d["span"])
        assert span is not None
        diags.append(
            Diagnostic(
                code,
                d["message"],
                span,
                Severity[d["severity"]],
                d["hint"],
                d["path"],
                tuple(Related(_unspan(s) or Span(1, 0, 1, 0), m, p) for s, m, p in d["related"]),
            )
        )
    obls = [
        Obligation(
            ObligationKind(o["kind"]),
            _unspan(o["span"]) or Span(1, 0, 1, 0),
            tuple(SpecCheck(_unspan(s), t, sp) for s, t, sp in o["checks"]),
            o["reason"],
            o["path"],
        )
        for o in data.get("obligations", [])
    ]
    return FileResult(
        data["path"],
        diags,
        obls,
        dict(data["stats"]),
        [(p, h) for p, h in data["dependencies"]],
        unanalysed=[(w, line, col, name) for w, line, col, name in data.get("unanalysed", [])],
    )
