"""FileResults to and from JSON-able dicts (the cache, worker processes)."""

from __future__ import annotations

from typing import Any

from ..infer.result import FileResult
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
        "examples": r.examples,
        "dependencies": [list(d) for d in r.dependencies],
    }


def _ints(v: Any, n: int | None = None) -> bool:
    return isinstance(v, list) and (n is None or len(v) == n) and all(type(x) is int for x in v)


def _valid(data: Any) -> bool:
    """Whether ``data`` has the types :func:`dump_result` writes (a cache entry may be anything)."""
    if not isinstance(data, dict) or not isinstance(data.get("path"), str):
        return False
    diags, obls, stats, deps = (data.get(k) for k in ("diagnostics", "obligations", "stats", "dependencies"))
    if not (isinstance(diags, list) and isinstance(obls, list) and isinstance(stats, dict) and isinstance(deps, list)):
        return False
    if not all(isinstance(k, str) and type(v) is int for k, v in stats.items()):
        return False
    if not all(isinstance(x, list) and len(x) == 2 and all(isinstance(y, str) for y in x) for x in deps):
        return False
    for d in diags:
        if not isinstance(d, dict) or not _ints(d.get("span"), 4) or not isinstance(d.get("related"), list):
            return False
        if not all(isinstance(d.get(k), str) for k in ("code", "message", "severity")):
            return False
        if not all(isinstance(d.get(k), (str, type(None))) for k in ("hint", "path")):
            return False
        if d["severity"] not in Severity.__members__:
            return False
        for r in d["related"]:
            if not (isinstance(r, list) and len(r) == 3 and _ints(r[0], 4) and isinstance(r[1], str)):
                return False
    for o in obls:
        if not isinstance(o, dict) or not _ints(o.get("span"), 4) or not isinstance(o.get("checks"), list):
            return False
        if not all(isinstance(c, list) and len(c) == 3 and (c[0] is None or _ints(c[0], 4)) for c in o["checks"]):
            return False
    return True


def load_result(data: dict[str, Any]) -> FileResult:
    """The result ``data`` describes; ``ValueError`` when it is not what :func:`dump_result` writes."""
    if not _valid(data):
        raise ValueError("not a tensorshape result")
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
        examples={str(k): str(v) for k, v in data.get("examples", {}).items()},
    )
