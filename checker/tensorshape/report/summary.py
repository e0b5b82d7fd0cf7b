"""Counts shared by every output format."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..infer.api import FileResult
from ..model.diagnostics import Severity

__all__ = ["summarize", "all_diagnostics"]


def all_diagnostics(results: Sequence[FileResult]) -> list[Any]:
    out = [d for r in results for d in r.diagnostics]
    out.sort(key=lambda d: d.sort_key)
    return out


def summarize(results: Sequence[FileResult]) -> dict[str, Any]:
    sev: Counter[str] = Counter()
    by_code: Counter[str] = Counter()
    stats: Counter[str] = Counter()
    for r in results:
        for d in r.diagnostics:
            sev[str(d.severity)] += 1
            by_code[d.code.id] += 1
        stats.update(r.stats)
    tensors = stats["known"] + stats["symbolic"] + stats["unknown"]
    return {
        "files": len(results),
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
        #: Files not analysed (TS008: unreadable, not regular, too big or nested too deep).
        "skipped_files": stats["skipped-files"],
    }
