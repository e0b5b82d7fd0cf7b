"""Check a file or a string: the libcst front end's entry points."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import libcst as cst

from ..model import codes
from ..model.diagnostics import Diagnostic, Severity, Span
from ..model.dims import Star, Unknown
from ..model.obligations import Obligation
from ..model.shape import Shape
from ..model.values import TensorV
from ..rules.ops import jagged
from ..unify import bounds
from .analyzer import Analyzer, call_chain
from .base import WITH_CALLER
from .deadline import FileTimeout, deadline
from .project import ModuleInfo, Project
from .result import CheckSettings, FileResult, crash_result

__all__ = [
    "CheckSettings",
    "FileResult",
    "check_source",
    "check_file",
    "check_file_guarded",
    "crash_result",
    "analyze_module",
    "report",
    "InferredParameter",
    "inferred_parameters",
    "annotation_specs",
]


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


def _not_read(why: str, path: str) -> Diagnostic:
    """A file that could not be read or decoded: undecodable text is a syntax error (Python
    rejects it too); anything else (a FIFO, a device, no permission, too big) is skipped."""
    if why.startswith("cannot decode"):
        line, col = getattr(why, "line", 1), getattr(why, "column", 0)  # the undecodable byte (a NotRead)
        span = Span(line, col, line, col + 1)
        return Diagnostic(codes.SYNTAX_ERROR, str(why), span, Severity.ERROR, "check the file's encoding", path)
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
    jagged.start_file()
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
    cached_before = Counter(project.summaries.counts) if project.summaries is not None else Counter()
    an = Analyzer(project, settings.options, record=settings.record)
    an.report_unknown_ops = codes.UNKNOWN_OP.id in settings.enable
    with bounds.recording() as hits:  # bounds on symbolic work that ``unify`` met for this file
        raw, obligations = an.analyze(info)
    joined: dict[str, int] = {}
    diags = [d for d in _dedupe(raw, joined) if _wanted(d, settings)]
    diags = report(info.spans.resolve_all(diags), info.source, settings, path)
    obls: list[Obligation] = []
    if settings.obligations:
        obls = [replace(o, path=path) for o in info.spans.resolve_all(_dedupe_obligations(obligations))]
    unanalysed = []
    for why, name in an.unanalysed:
        where = info.spans.resolve(info.spans.ticket(name))
        unanalysed.append((why, where.line, where.column, name.value))
    stats = dict(an.statistics())
    for bound, n in hits.items():
        stats[f"{bound}-bound"] = n
    stats.update(joined)
    examples = _examples(an.examples, info, path) if settings.examples else {}
    deps = sorted({(m.path, m.digest) for m in an.touched})
    if (info.path, info.digest) not in deps:
        deps.append((info.path, info.digest))
    for module, why in project.unfollowed.items():  # installed modules first met by this file, not followed
        if module not in before and why not in ("modelled by stubs", "standard library"):
            stats[f"not-followed:{why}"] = stats.get(f"not-followed:{why}", 0) + 1
    if project.summaries is not None:  # installed modules this file read: from their summaries, or parsed
        for what, n in (project.summaries.counts - cached_before).items():
            stats[f"library-cache:{what}"] = n
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


def _examples(found: dict[str, tuple[ModuleInfo, cst.CSTNode]], info: ModuleInfo, path: str) -> dict[str, str]:
    """Where each counted cause was first met (:attr:`FileResult.examples`): the positions of a module's
    nodes come from one code generation per statement (class member) that holds several."""
    by_module: dict[int, tuple[ModuleInfo, list[cst.CSTNode]]] = {}
    for m, node in found.values():
        by_module.setdefault(id(m), (m, []))[1].append(node)
    for m, nodes in by_module.values():
        if m.spans is not None and not m.library and len(nodes) > 1:
            m.spans.prefetch_nodes(nodes)
    return {key: _where(m, node, path if m is info else m.path) for key, (m, node) in found.items()}


def _where(module: ModuleInfo, node: cst.CSTNode, path: str) -> str:
    """``path:line:column`` (1-based column) of a node of ``module``; only the path in an installed
    package's module, whose lines would cost a parse of its whole text (most of a later check's time
    once its summary is kept)."""
    if module.spans is None or module.library:
        return path
    where = module.spans.resolve(module.spans.ticket(node))
    return f"{path}:{where.line}:{where.column + 1}"


def report(diags: list[Diagnostic], source: str, settings: CheckSettings, path: str) -> list[Diagnostic]:
    """Diagnostics with resolved spans as reported: with ``path``, severities and codes as configured,
    ``# tensorshape: ignore`` and ``# type: ignore[...]`` comments applied, sorted."""
    out = _filter([d.with_path(path) for d in diags], source, settings)
    out.sort(key=lambda d: d.sort_key)
    return out


#: At most this many views of one ``reveal_shape`` under callers' sizes are shown one by one; the
#: views beyond are joined into one (:func:`join_views`).  As many as a block's distinct widths in a
#: real network (EfficientNet's squeeze-excitation sees four, a ResNet's blocks four): three joined
#: the fourth into an unknown.
MAX_CALLER_VIEWS = 8

_VIEW = re.compile(r"^\[([^\]]*)\](.*)$")


def join_views(views: list[str], origin: str = WITH_CALLER) -> str:
    """Renderings of one place's shape under several callers' sizes as one: the dims they agree on
    kept, ``?`` where they differ (``[2 64 8 8]`` and ``[2 32 16 16]``: ``[2 ? ? ?]``); ``[...]`` when
    their ranks differ or one is not a tensor.  It says how many views it stands for."""
    if len(views) == 1:
        return views[0]
    parsed = [_VIEW.match(v.replace(WITH_CALLER, "").strip()) for v in views]
    rows = [m.group(1).split() for m in parsed if m is not None]
    if len(rows) == len(views) and len({len(r) for r in rows}) == 1:
        shown = "[" + " ".join(col[0] if len(set(col)) == 1 else "?" for col in zip(*rows)) + "]"
    else:
        shown = "[...]"
    return f"{shown} {origin} ({len(views)} views joined)" if origin else f"{shown} ({len(views)} views joined)"


def _vague(view: str) -> bool:
    """Does a caller's view know no rank (``[...]``, ``unknown``)?"""
    return view.startswith(("[...]", "unknown"))


def merge_reveals(diags: list[Diagnostic], counts: dict[str, int] | None = None) -> list[Diagnostic]:
    """One ``reveal_shape`` note per place: the generic views first (one per pass of a loop around
    it, where they differ), then each distinct view the
    body had when run with a caller's arguments (``[b 64]; [16 64] (with a caller's sizes)``), at
    most :data:`MAX_CALLER_VIEWS` of them and the rest joined into one; ``counts["reveal-views-joined"]``
    counts the views that were joined (so none is dropped silently)."""
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
        # The generic analysis reveals a line once per pass of a loop around it (a loop over a literal
        # range or list runs once per item): each distinct view, the vague ones only when alone.
        generic = list(dict.fromkeys(part for s in shown if WITH_CALLER not in s for part in s.split("; ")))
        generic = [s for s in generic if not _vague(s)] or generic[:1]
        generic_rest = generic[MAX_CALLER_VIEWS:]
        if generic_rest:
            if counts is not None:
                counts["reveal-views-joined"] = counts.get("reveal-views-joined", 0) + len(generic_rest)
            generic = [*generic[:MAX_CALLER_VIEWS], join_views(generic_rest, "")]
        callers = [s for s in dict.fromkeys(shown) if WITH_CALLER in s]
        callers = [s for s in callers if s.replace(WITH_CALLER, "").rstrip() not in generic]
        # The views that know the most are shown one by one; those that know nothing are the ones joined.
        callers.sort(key=_vague)
        rest = callers[MAX_CALLER_VIEWS:]
        if rest and counts is not None:
            counts["reveal-views-joined"] = counts.get("reveal-views-joined", 0) + len(rest)
        parts = (generic + callers[:MAX_CALLER_VIEWS] + ([join_views(rest)] if rest else [])) or shown[:1]
        out.append(replace(d, message="revealed shape: " + "; ".join(parts)))
    return out


def _dedupe(diags: list[Diagnostic], counts: dict[str, int] | None = None) -> list[Diagnostic]:
    """One diagnostic per place and code.  Of the same problem found several ways, the generic
    analysis's (no call chain) is kept: the function fails for every size it allows; else the one
    with the longest call chain, which starts nearest the program's entry point."""
    diags = merge_reveals(diags, counts)
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


# -- what unannotated parameters learnt (hover, ``tensorshape annotate``) -----------------------


@dataclass(frozen=True, slots=True)
class InferredParameter:
    """The shape an unannotated parameter learnt from its first uses (``infer/learn.py``)."""

    name: str
    value: TensorV
    #: Where the parameter's name is (1-based line, 0-based column).
    line: int
    column: int
    #: The parameter has a default (``mask=None``): an annotation would have to say ``| None``.
    has_default: bool


def inferred_parameters(result: FileResult) -> dict[str, dict[str, InferredParameter]]:
    """``qualname -> parameter -> what it learnt``, for the functions and methods of the checked file
    (a result checked with ``record``: the analyzer is kept).  ``Class.method`` names a method; a
    function nested in a function is ``outer.inner``."""
    an, info = result.analyzer, result.module
    if an is None or info is None or info.tree is None or info.spans is None or not an.learned_params:
        return {}
    out: dict[str, dict[str, InferredParameter]] = {}
    for qual, node in _qualified_defs(info.tree.body, ()):
        got = an.learned_params.get(id(node))
        if got is None:
            continue
        params = {p.name.value: p for p in _all_params(node)}
        for name, value in got[1].items():
            p = params.get(name)
            if p is None:
                continue
            where = info.spans.resolve(info.spans.ticket(p.name))
            out.setdefault(qual, {})[name] = InferredParameter(
                name, value, where.line, where.column, p.default is not None
            )
    return out


def annotation_specs(shapes: Sequence[Shape]) -> list[str | None]:
    """Shapes of one function written as jaxtyping shape strings (``"*batch 3 h w"``), sharing their
    names (a symbol is one name in every string); ``None`` for a shape with an unknown part.  Names
    are made valid and distinct (``h'`` -> ``h2``)."""
    from ..lang.parse import ShapeSyntaxError, try_parse_shape
    from ..lang.render import render_dim

    used = {d.name for s in shapes for d in s.items if isinstance(d, Star) and d.name}
    names: dict[object, object] = {}

    def clean(sym: object) -> object:
        got = names.get(sym)
        if got is None:
            from ..unify.symbols import sp

            base = re.sub(r"\W", "", str(sym)) or "n"
            base = base if not base[0].isdigit() else "n" + base
            name, k = base, 2
            while name in used:
                name, k = f"{base}{k}", k + 1
            used.add(name)
            got = names[sym] = sp().Symbol(name, integer=True, positive=True)
        return got

    out: list[str | None] = []
    for s in shapes:
        parts: list[str] = []
        for d in s.items:
            if isinstance(d, Star):
                parts.append(f"*{d.name}" if d.name else "")
            elif isinstance(d, Unknown):
                parts.append("")
            elif type(d) is int:
                parts.append(str(d))
            else:
                syms = sorted(d.free_symbols, key=str)  # type: ignore[union-attr]
                parts.append(render_dim(d.xreplace({x: clean(x) for x in syms})).replace(" ", ""))  # type: ignore[union-attr]
        text = " ".join(parts)
        ok = all(parts) and not isinstance(try_parse_shape(text), ShapeSyntaxError)
        out.append(text if ok else None)
    return out


def _qualified_defs(stmts: Sequence[cst.CSTNode], scope: tuple[str, ...]) -> Iterator[tuple[str, cst.FunctionDef]]:
    """Every ``def`` under ``stmts`` with its qualified name (through ``if``/``try``/... blocks)."""
    from .syntax import blocks, suite_body

    for stmt in stmts:
        if isinstance(stmt, cst.FunctionDef):
            qual = (*scope, stmt.name.value)
            yield ".".join(qual), stmt
            yield from _qualified_defs(suite_body(stmt.body), qual)
        elif isinstance(stmt, cst.ClassDef):
            yield from _qualified_defs(suite_body(stmt.body), (*scope, stmt.name.value))
        else:
            for block in blocks(stmt):
                yield from _qualified_defs(block, scope)


def _all_params(node: cst.FunctionDef) -> list[cst.Param]:
    p = node.params
    return [*p.posonly_params, *p.params, *p.kwonly_params]
