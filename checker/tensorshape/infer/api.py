"""Check a file or a string: the libcst front end's entry points."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import libcst as cst

from ..model import codes
from ..model.diagnostics import Diagnostic, Severity, Span
from ..model.obligations import Obligation
from ..rules.context import Options
from .analyzer import Analyzer, call_chain
from .base import WITH_CALLER
from .deadline import DEFAULT_FILE_TIMEOUT, FileTimeout, deadline
from .project import ModuleInfo, Project

__all__ = [
    "CheckSettings",
    "FileResult",
    "check_source",
    "check_file",
    "check_file_guarded",
    "crash_result",
    "analyze_module",
    "report",
]


@dataclass(frozen=True, slots=True)
class CheckSettings:
    """What to check and how to report it."""

    options: Options = field(default_factory=Options)
    #: Severity overrides by code id (``TS101``); ``None`` turns a code off.
    severity: Mapping[str, Severity | None] = field(default_factory=dict)
    #: Codes off by default that are turned on (``TS006`` unknown-op, ``TS901`` obligations).
    enable: frozenset[str] = frozenset()
    #: Keep runtime obligations (``tensorshape instrument``).
    obligations: bool = False
    #: Keep every tensor expression's value (LSP hover and inlay hints).
    record: bool = False
    #: A bare ``# type: ignore`` (no codes) also silences tensorshape on its line.
    bare_type_ignore: bool = False
    #: Honour ``# type: ignore[...]`` comments.  The mypy plugin turns this off: mypy applies them
    #: itself, and so counts an ignore that silences a shape error as used.
    type_ignore: bool = True
    #: Seconds one file's analysis may take before it is reported as skipped (0: no bound).
    file_timeout: float = DEFAULT_FILE_TIMEOUT


@dataclass(slots=True)
class FileResult:
    path: str
    diagnostics: list[Diagnostic]
    obligations: list[Obligation] = field(default_factory=list)
    #: Counts: ``known``/``symbolic``/``unknown`` tensor expressions, ``unknown-op``...
    stats: dict[str, int] = field(default_factory=dict)
    #: ``(path, content digest)`` of every project file the result depends on.
    dependencies: list[tuple[str, str]] = field(default_factory=list)
    #: The analyzer (kept only with ``record``: the LSP reads observations from it).
    analyzer: Analyzer | None = None
    module: ModuleInfo | None = None
    #: Functions that were not analysed: ``(reason, line, column, name)`` (also counted in ``stats``).
    unanalysed: list[tuple[str, int, int, str]] = field(default_factory=list)
    #: Where each counted cause of ``stats`` (``unknown-op:...``, ``unknown:...``, ``cause:...``) was
    #: first met: ``path:line:column``.
    examples: dict[str, str] = field(default_factory=dict)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]


def check_source(
    source: str, path: str = "<string>", settings: CheckSettings | None = None, project: Project | None = None
) -> FileResult:
    """Check Python source text (``path`` names it in diagnostics)."""
    project = project or Project([Path(path).resolve().parent] if path != "<string>" else [])
    info = project.add_source(source, path)
    return analyze_module(project, info, settings or CheckSettings())


def check_file(path: str | Path, settings: CheckSettings | None = None, project: Project | None = None) -> FileResult:
    """Check a file on disk (imports of the project's own modules are followed)."""
    p = Path(path)
    project = project or Project()
    info = project.load_path(p)
    if isinstance(info, str):
        return FileResult(str(p), [_not_read(info, str(p))], stats={"skipped-files": 1})
    return analyze_module(project, info, settings or CheckSettings(), display=str(p))


def check_file_guarded(path: str | Path, settings: CheckSettings, project: Project) -> FileResult:
    """:func:`check_file` that never raises: a crash is an ``internal-error`` on the file (one bad
    file must not stop a run of the CLI or of mypy)."""
    try:
        with deadline(settings.file_timeout):
            return check_file(path, settings, project)
    except FileTimeout:
        why = f"the analysis took more than {settings.file_timeout:g} s (file_timeout)"
        return FileResult(str(path), [_not_read(why, str(path))], stats={"skipped-files": 1, "timed-out-files": 1})
    except RecursionError:
        return crash_result(str(path), "recursion too deep")
    except Exception as e:  # noqa: BLE001
        return crash_result(str(path), f"{type(e).__name__}: {e}")


def crash_result(path: str, why: str) -> FileResult:
    """The result of a file the analysis failed on."""
    d = Diagnostic(
        codes.INTERNAL_ERROR,
        f"tensorshape failed on this file ({why})",
        Span(1, 0, 1, 0),
        Severity.ERROR,
        "please report this with the file that triggers it",
        path,
    )
    return FileResult(path, [d])


def _not_read(why: str, path: str) -> Diagnostic:
    """A file that could not be read or decoded: undecodable text is a syntax error (Python
    rejects it too); anything else (a FIFO, a device, no permission, too big) is skipped."""
    if why.startswith("cannot decode"):
        return Diagnostic(codes.SYNTAX_ERROR, why, Span(1, 0, 1, 1), Severity.ERROR, "check the file's encoding", path)
    return Diagnostic(
        codes.FILE_SKIPPED,
        f"not analysed: {why}",
        Span(1, 0, 1, 1),
        Severity.WARNING,
        "the run goes on without it",
        path,
    )


def analyze_module(
    project: Project, info: ModuleInfo, settings: CheckSettings, display: str | None = None
) -> FileResult:
    """Analyse a loaded module; ``display`` is the path to report (default: the module's)."""
    path = display or info.path
    if info.failure is not None or info.tree is None or info.spans is None:
        f = info.failure
        line, col = (f.line, f.column) if f else (1, 0)
        span = Span(max(line, 1), max(col, 0), max(line, 1), max(col, 0) + 1)
        deps = [(info.path, info.digest)]
        if f is not None and f.skipped:
            hint = "simplify the expression, or exclude the file; the rest of the run goes on"
            d = Diagnostic(codes.FILE_SKIPPED, f.message, span, Severity.WARNING, hint, path)
            return FileResult(path, [d], stats={"skipped-files": 1}, dependencies=deps)
        d = Diagnostic(
            codes.SYNTAX_ERROR,
            f"syntax error: {f.message if f else 'cannot parse'}",
            span,
            Severity.ERROR,
            "tensorshape checks files that Python can parse",
            path,
        )
        return FileResult(path, [d], dependencies=deps)
    before = set(project.unfollowed)
    an = Analyzer(project, settings.options, record=settings.record)
    an.report_unknown_ops = codes.UNKNOWN_OP.id in settings.enable
    raw, obligations = an.analyze(info)
    diags = [d for d in _dedupe(raw) if _wanted(d, settings)]
    diags = report(info.spans.resolve_all(diags), info.source, settings, path)
    obls: list[Obligation] = []
    if settings.obligations:
        obls = [replace(o, path=path) for o in info.spans.resolve_all(_dedupe_obligations(obligations))]
    unanalysed = []
    for why, name in an.unanalysed:
        where = info.spans.resolve(info.spans.ticket(name))
        unanalysed.append((why, where.line, where.column, name.value))
    stats = dict(an.statistics())
    examples = {key: _where(m, node, path if m is info else m.path) for key, (m, node) in an.examples.items()}
    deps = sorted({(m.path, m.digest) for m in an.touched})
    if (info.path, info.digest) not in deps:
        deps.append((info.path, info.digest))
    stats = dict(an.statistics())
    for module, why in project.unfollowed.items():  # installed modules first met by this file, not followed
        if module not in before and why not in ("modelled by stubs", "standard library"):
            stats[f"not-followed:{why}"] = stats.get(f"not-followed:{why}", 0) + 1
    return FileResult(
        path,
        diags,
        obls,
        stats,
        deps,
        an if settings.record else None,
        info,
        unanalysed,
        examples,
    )


def _where(module: ModuleInfo, node: cst.CSTNode, path: str) -> str:
    """``path:line:column`` (1-based column) of a node of ``module``."""
    if module.spans is None:
        return path
    where = module.spans.resolve(module.spans.ticket(node))
    return f"{path}:{where.line}:{where.column + 1}"


def report(diags: list[Diagnostic], source: str, settings: CheckSettings, path: str) -> list[Diagnostic]:
    """Diagnostics with resolved spans as reported: with ``path``, severities and codes as configured,
    ``# tensorshape: ignore`` and ``# type: ignore[...]`` comments applied, sorted."""
    out = _filter([d.with_path(path) for d in diags], source, settings)
    out.sort(key=lambda d: d.sort_key)
    return out


#: At most this many views of one ``reveal_shape`` under callers' sizes are shown.
MAX_CALLER_VIEWS = 3


def merge_reveals(diags: list[Diagnostic]) -> list[Diagnostic]:
    """One ``reveal_shape`` note per place: the generic view first, then each distinct view the
    body had when run with a caller's arguments (``[b 64]; [16 64] (with a caller's sizes)``)."""
    views: dict[Span, list[str]] = {}
    for d in diags:
        if d.code is codes.REVEAL:
            views.setdefault(d.span, []).append(d.message.removeprefix("revealed shape: "))
    if all(len(v) == 1 for v in views.values()):
        return diags
    out = []
    for d in diags:
        if d.code is not codes.REVEAL:
            out.append(d)
            continue
        shown = views.pop(d.span, None)
        if shown is None:
            continue
        generic = [s for s in shown if WITH_CALLER not in s]
        callers = [s for s in dict.fromkeys(shown) if WITH_CALLER in s]
        callers = [s for s in callers if s.replace(WITH_CALLER, "").rstrip() not in generic]
        parts = (generic[:1] + callers[:MAX_CALLER_VIEWS]) or shown[:1]
        out.append(replace(d, message="revealed shape: " + "; ".join(parts)))
    return out


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    """One diagnostic per place and code.  Of the same problem found several ways, the generic
    analysis's (no call chain) is kept: the function fails for every size it allows; else the one
    with the longest call chain, which starts nearest the program's entry point."""
    diags = merge_reveals(diags)
    kept: dict[tuple[Span, str], int] = {}
    out: list[Diagnostic] = []
    for d in diags:
        key = (d.span, d.code.id)
        at = kept.get(key)
        if at is None:
            kept[key] = len(out)
            out.append(d)
            continue
        old, new = call_chain(out[at]), call_chain(d)
        if old and (not new or new > old):
            out[at] = d
    return out


def _dedupe_obligations(obls: list[Obligation]) -> list[Obligation]:
    seen: set[tuple[Span, str]] = set()
    out = []
    for o in obls:
        key = (o.span, o.reason)
        if key in seen:
            continue
        seen.add(key)
        out.append(o)
    return out


_IGNORE = re.compile(r"#\s*(tensorshape|type):\s*ignore(?:\[([^\]]*)\])?")


def suppressed(line_text: str, d: Diagnostic, bare_type_ignore: bool = False, type_ignore: bool = True) -> bool:
    """Whether a comment on the line silences ``d``: ``# tensorshape: ignore``, or
    ``# tensorshape: ignore[...]`` / ``# type: ignore[...]`` naming its code (``TS101`` or
    ``shape-mismatch``; other tools' codes in the brackets do not count), or a bare
    ``# type: ignore`` when ``bare_type_ignore`` is set."""
    for m in _IGNORE.finditer(line_text):
        if m.group(1) == "type" and not type_ignore:
            continue
        if m.group(2) is None:
            if m.group(1) == "tensorshape" or bare_type_ignore:
                return True
            continue
        wanted = {c.strip().lower() for c in m.group(2).split(",")}
        if d.code.id.lower() in wanted or d.code.name in wanted:
            return True
    return False


def _wanted(d: Diagnostic, settings: CheckSettings) -> bool:
    if d.code.id in settings.severity:
        return settings.severity[d.code.id] is not None
    return d.code.default_enabled or d.code.id in settings.enable


def _filter(diags: list[Diagnostic], source: str, settings: CheckSettings) -> list[Diagnostic]:
    lines = source.splitlines()
    out = []
    for d in diags:
        if d.code.id in settings.severity:
            sev = settings.severity[d.code.id]
            if sev is None:
                continue
            d = replace(d, severity=sev)
        elif not d.code.default_enabled and d.code.id not in settings.enable:
            continue
        if d.code is not codes.REVEAL:
            text = "\n".join(lines[d.span.line - 1 : d.span.end_line]) if 0 < d.span.line <= len(lines) else ""
            if text and "ignore" in text and suppressed(text, d, settings.bare_type_ignore, settings.type_ignore):
                continue
        out.append(d)
    return out
