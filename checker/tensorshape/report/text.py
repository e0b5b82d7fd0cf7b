"""Human-readable output: one line per diagnostic, a code frame with a caret, and the hint."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..infer.result import FileResult
from ..infer.source import read_bytes
from ..model.diagnostics import Diagnostic, Severity
from ..model.text import plural
from .summary import all_diagnostics, summarize

__all__ = ["render_text"]

_COLORS = {Severity.ERROR: "\033[1;31m", Severity.WARNING: "\033[1;33m", Severity.NOTE: "\033[1;36m"}
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"


def _display(path: str | None) -> str:
    if not path:
        return "<unknown>"
    try:
        rel = os.path.relpath(path)
        return rel if not rel.startswith("..") else path
    except ValueError:
        return path


#: Source lines longer than this are cut around the span in the frame.
_FRAME_WIDTH = 120


def _frame(d: Diagnostic, lines: list[str], color: bool) -> list[str]:
    s = d.span
    if not (1 <= s.line <= len(lines)):
        return []
    text = lines[s.line - 1].rstrip("\n").expandtabs(1)
    width = len(str(s.line))
    start = min(s.column, len(text))
    end = s.end_column if s.end_line == s.line else len(text)
    end = max(start + 1, min(end, len(text) if len(text) > start else start + 1))
    if len(text) > _FRAME_WIDTH:  # a generated line of megabytes: show a window around the span
        left = max(0, min(start - _FRAME_WIDTH // 3, len(text) - _FRAME_WIDTH))
        shown = text[left : left + _FRAME_WIDTH]
        text = ("..." if left else "") + shown + ("..." if left + _FRAME_WIDTH < len(text) else "")
        shift = left - (3 if left else 0)
        start, end = start - shift, min(end - shift, len(text))
        end = max(end, start + 1)
    caret = " " * start + "^" * (end - start)
    bar = f"{_DIM}|{_RESET}" if color else "|"
    c = _COLORS.get(d.severity, "") if color else ""
    reset = _RESET if color else ""
    return [
        f"{' ' * width} {bar}",
        f"{s.line} {bar} {text}",
        f"{' ' * width} {bar} {c}{caret}{reset}",
    ]


def render_diagnostic(d: Diagnostic, lines: list[str] | None, color: bool = False) -> str:
    sev = str(d.severity)
    c = _COLORS.get(d.severity, "") if color else ""
    b, r = (_BOLD, _RESET) if color else ("", "")
    head = f"{b}{_display(d.path)}:{d.span.line}:{d.span.column + 1}:{r} {c}{sev}{r}: {d.message}  [{d.code.id} {d.code.name}]"
    out = [head]
    if lines is not None and d.span.line > 0:
        out.extend(_frame(d, lines, color))
    if d.hint:
        out.append(f"  = hint: {d.hint}")
    for rel in d.related:
        out.append(f"  = note: {_display(rel.path or d.path)}:{rel.span.line}:{rel.span.column + 1}: {rel.message}")
    return "\n".join(out)


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def summary_line(s: dict[str, Any]) -> str:
    """The last line, as mypy words it: ``Found 2 errors and 1 warning in 2 files (checked 20 source
    files)`` or ``Success: no issues found in 20 source files``."""
    checked = plural(s["files"], "source file")
    problems = [plural(s[k], k.removesuffix("s")) for k in ("errors", "warnings") if s[k]]
    if not problems:
        notes = f" ({plural(s['notes'], 'note')})" if s["notes"] else ""
        return f"Success: no issues found in {checked}{notes}"
    if s["notes"]:
        problems.append(plural(s["notes"], "note"))
    return f"Found {_and(problems)} in {plural(s['files_with_problems'], 'file')} (checked {checked})"


def render_text(
    results: Sequence[FileResult],
    *,
    color: bool = False,
    statistics: bool = False,
    frames: bool = True,
    summary: dict[str, Any] | None = None,
) -> str:
    cache: dict[str, list[str] | None] = {}
    blocks = []
    for d in all_diagnostics(results):
        lines = None
        if frames and d.path:
            if d.path not in cache:
                data, _ = read_bytes(Path(d.path))  # never blocks on a FIFO or reads a device
                cache[d.path] = None if data is None else data.decode("utf-8", "replace").splitlines()
            lines = cache[d.path]
        blocks.append(render_diagnostic(d, lines, color))
    s = summary if summary is not None else summarize(results)
    blocks.append(summary_line(s))
    if statistics:
        t = s["tensor_expressions"]
        total = max(t["total"], 1)
        stat = [
            "Tensor expressions:",
            f"  fully known     {t['known']:>7}  ({100 * t['known'] / total:.1f}%)",
            f"  partly symbolic {t['symbolic']:>7}  ({100 * t['symbolic'] / total:.1f}%)",
            f"  unknown         {t['unknown']:>7}  ({100 * t['unknown'] / total:.1f}%)",
        ]
        for cause, n in t["unknown_by_cause"].items():
            stat.append(f"    {cause:<14}{n:>7}")
        stat.append(f"Calls of unmodelled torch functions: {s['unknown_ops']}")
        stat.extend(_top("Torch functions and methods without a rule (most frequent first):", s["unmodelled_ops"]))
        stat.extend(_top("Top causes of unknown shapes:", s["unknown_causes"]))
        fn = s["functions"]
        stat.append(f"Functions analysed: {fn['analysed']}, not analysed: {fn['not_analysed']}")
        for why, entry in fn["not_analysed_by_reason"].items():
            stat.append(f"    {why:<14}{entry['count']:>7}  e.g. {entry['example']}")
        if s.get("learned_parameters"):
            stat.append(f"Parameters that learnt a shape from their first use: {s['learned_parameters']}")
        stat.append(f"Loops still changing at the iteration bound: {s['loops_at_bound']}")
        if s.get("training_mode_unknown"):
            stat.append(f"`self.training` reads whose module's mode stays unknown: {s['training_mode_unknown']}")
        if s.get("hasattr_assumed"):
            stat.append(
                f"`hasattr` decided on a module despite a write of a name not known elsewhere: {s['hasattr_assumed']}"
            )
        if s.get("registry_assumed"):
            stat.append(f"Registry lookups decided, taken as filled only where followed: {s['registry_assumed']}")
        if s.get("environment_assumed"):
            stat.append(f"Environment variables read, taken as unset: {s['environment_assumed']}")
        if s.get("expressions_at_bound"):
            stat.append(f"Expressions past the size bound (too-complex): {s['expressions_at_bound']}")
        if s.get("expansions_at_bound"):
            stat.append(f"Expansions past the term bound (left undecided): {s['expansions_at_bound']}")
        if s.get("reveal_views_joined"):
            stat.append(f"reveal_shape views joined beyond the cap: {s['reveal_views_joined']}")
        stat.append(f"Files not analysed (TS008): {s['skipped_files']}")
        if s.get("timed_out_files"):
            stat.append(f"    past file_timeout{s['timed_out_files']:>7}")
        not_followed = s.get("libraries_not_followed", {})
        stat.append(f"Installed modules not followed: {sum(not_followed.values())}")
        for why, n in not_followed.items():
            stat.append(f"    {why:<26}{n:>7}")
        lc = s.get("library_cache", {})
        if any(lc.values()):
            stat.append(
                f"Installed modules from the library cache: {lc['hit']}, parsed: {lc['miss']}"
                f" (corrupt entries rewritten: {lc['corrupt']}, entries written: {lc['written']})"
            )
        blocks.append("\n".join(stat))
    return "\n\n".join(blocks) + "\n"


def _top(title: str, ranked: dict[str, dict[str, Any]], limit: int = 10) -> list[str]:
    """The first ``limit`` entries of a ranked summary map, with an example location each."""
    if not ranked:
        return []
    out = [title]
    for name, entry in list(ranked.items())[:limit]:
        out.append(f"    {entry['count']:>7}  {name}  e.g. {entry['example']}")
    if len(ranked) > limit:
        out.append(f"    ... and {len(ranked) - limit} more (JSON summary)")
    return out
