"""Counts shared by every output format."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..infer.result import FileResult
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
    where: dict[str, str] = {}
    for r in results:
        with_problems += any(d.severity >= Severity.WARNING for d in r.diagnostics)
        for d in r.diagnostics:
            sev[str(d.severity)] += 1
            by_code[d.code.id] += 1
        stats.update(r.stats)
        for key, at in r.examples.items():
            where.setdefault(key, at)
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
        #: Torch functions and methods met that have no rule, most frequent first.
        "unmodelled_ops": _ranked(stats, where, "unknown-op:"),
        #: Causes of unknown shapes, most frequent first: the kinds of unknown tensor expressions
        #: (``unknown:``) and every cause the analysis counts with ``tally`` (``cause:``).
        "unknown_causes": _ranked(stats, where, "unknown:", "cause:"),
        "functions": {
            "analysed": stats["functions"],
            "not_analysed": stats["unanalysed"],
            "not_analysed_by_reason": {
                why: {"count": n, "example": example.get(why, "")}
                for why, n in ((k.split(":", 1)[1], v) for k, v in sorted(stats.items()) if k.startswith("unanalysed:"))
            },
        },
        "loops_at_bound": stats["loop-bound"],
        #: ``self.training`` reads of a module whose mode no run knew (never built by the program, or
        #: after a call that may have set it): both branches are joined there.
        "training_mode_unknown": stats["mode-unknown"],
        #: ``hasattr`` (or ``getattr``'s default) decided false on a module after an attribute of a
        #: name not known was written through an object the analysis does not know: that write is
        #: taken not to reach the module (as for every attribute read).
        "hasattr_assumed": stats["hasattr-assumed"],
        "environment_assumed": stats["environment-assumed"],
        #: ``key in registry`` decided false of an installed package's dict or list that nothing the
        #: analysis followed may have filled (``infer/writers.py``): code not followed is taken not to.
        "registry_assumed": stats["registry-assumed"],
        #: Unannotated parameters that learnt a shape from their first use (``infer/learn.py``).
        "learned_parameters": stats["learned-parameters"],
        #: Expressions past a size bound (sequences of more than 1,000 items), kept as a summary value.
        "expressions_at_bound": stats["expression-bound"],
        #: Symbolic expansions not done because they could pass ``MAX_EXPANDED_TERMS`` terms
        #: (``(a+b+...+h)**30``): each left a comparison or simplification undecided.
        "expansions_at_bound": stats["expansion-bound"],
        #: ``reveal_shape`` views under callers' sizes beyond the shown ones, joined into one view.
        "reveal_views_joined": stats["reveal-views-joined"],
        #: Files not analysed (TS008: unreadable, not regular, too big or nested too deep).
        "skipped_files": stats["skipped-files"],
        #: Of which: files whose analysis ran past ``file_timeout``.
        "timed_out_files": stats["timed-out-files"],
        #: Installed modules imported but not followed from source, by cause (C extension, excluded).
        "libraries_not_followed": {
            k.split(":", 1)[1]: v for k, v in sorted(stats.items()) if k.startswith("not-followed:")
        },
        #: Installed modules read through the library summary cache: ``hit`` (loaded from a summary),
        #: ``miss`` (parsed), ``corrupt`` (an unreadable entry, ignored and rewritten), ``written``.
        "library_cache": {
            what: stats[f"library-cache:{what}"] for what in ("hit", "miss", "corrupt", "written", "pruned")
        },
    }


def _ranked(stats: Counter[str], where: dict[str, str], *prefixes: str) -> dict[str, dict[str, Any]]:
    """The counted keys with one of ``prefixes`` (prefix removed), most frequent first, each with
    its count and the first place it was met."""
    items = [(k.split(":", 1)[1], n, where.get(k, "")) for k, n in stats.items() if k.startswith(prefixes)]
    items.sort(key=lambda t: (-t[1], t[0]))
    return {name: {"count": n, "example": at} for name, n, at in items}


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
    for key in ("unmodelled_ops", "unknown_causes"):
        if key in total:
            total[key] = dict(sorted(total[key].items(), key=lambda kv: (-kv[1]["count"], kv[0])))
    causes = total.get("tensor_expressions", {}).get("unknown_by_cause")
    if causes is not None:
        total["tensor_expressions"]["unknown_by_cause"] = dict(sorted(causes.items()))
    return total
