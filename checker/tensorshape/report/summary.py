"""Counts shared by every output format."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..infer.api import FileResult
from ..model.diagnostics import Severity

__all__ = ["summarize", "all_diagnostics", "add_summaries"]


def all_diagnostics(results: Sequence[FileResult]) -> list[Any]:
    out = [d for r in results for d in r.diagnostics]
    out.sort(key=lambda d: d.sort_key)
    return out


def summarize(results: Sequence[FileResult]) -> dict[str, Any]:
    sev: Counter[str] = Counter()
    by_code: Counter[str] = Counter()
    stats: Counter[str] = Counter()
    with_problems = 0
    example: dict[str, str] = {}
    for r in results:
        with_problems += any(d.severity >= Severity.WARNING for d in r.diagnostics)
        for d in r.diagnostics:
            sev[str(d.severity)] += 1
            by_code[d.code.id] += 1
        stats.update(r.stats)
        for why, line, column, name in r.unanalysed:
            example.setdefault(why, f"{r.path}:{line}:{column + 1} `{name}`")
    tensors = stats["known"] + stats["symbolic"] + stats["unknown"]
    return {
        "files": len(results),
        "files_with_problems": with_problems,
        "errors": sev[str(Severity.ERROR)],
        "warnings": sev[str(Severity.WARNING)],
        "notes": sev[str(Severity.NOTE)],
        "by_code": dict(sorted(by_code.items())),
        "tensor_expressions": {
            "total": tensors,
            "known": stats["known"],
            "symbolic": stats["symbolic"],
            "unknown": stats["unknown"],
            "unknown_by_cause": {k.split(":", 1)[1]: v for k, v in sorted(stats.items()) if k.startswith("unknown:")},
        },
        "unknown_ops": stats["unknown-op"],
        "functions": {
            "analysed": stats["functions"],
            "not_analysed": stats["unanalysed"],
            "not_analysed_by_reason": {
                why: {"count": n, "example": example.get(why, "")}
                for why, n in ((k.split(":", 1)[1], v) for k, v in sorted(stats.items()) if k.startswith("unanalysed:"))
            },
        },
        "loops_at_bound": stats["loop-bound"],
        #: Files not analysed (TS008: unreadable, not regular, too big or nested too deep).
        "skipped_files": stats["skipped-files"],
        #: Installed modules imported but not followed from source, by cause (C extension, excluded).
        "libraries_not_followed": {
            k.split(":", 1)[1]: v for k, v in sorted(stats.items()) if k.startswith("not-followed:")
        },
    }


def add_summaries(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The summary of the union of disjoint runs (shards): every count added up, key by key,
    maps by code and by cause in sorted order as :func:`summarize` gives them."""

    def add(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        out = dict(a)
        for k, v in b.items():
            if isinstance(v, dict):
                out[k] = add(out.get(k, {}), v)
            elif isinstance(v, int) and not isinstance(v, bool):
                out[k] = out.get(k, 0) + v
            else:
                out.setdefault(k, v)
        return out

    total: dict[str, Any] = {}
    for p in parts:
        total = add(total, p)
    if "by_code" in total:
        total["by_code"] = dict(sorted(total["by_code"].items()))
    causes = total.get("tensor_expressions", {}).get("unknown_by_cause")
    if causes is not None:
        total["tensor_expressions"]["unknown_by_cause"] = dict(sorted(causes.items()))
    return total
