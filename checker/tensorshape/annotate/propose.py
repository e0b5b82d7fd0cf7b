"""From recorded calls to the annotations of one module: generalise, reuse names, report conflicts."""

from __future__ import annotations

import ast
import difflib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst

from ..runtime.checking import check_shapes
from ..runtime.errors import ShapeCheckError
from .codemod import AnnotateResult, FunctionSite, apply_annotations, existing_specs
from .generalise import INIT, RESULT, Caller, FunctionAnnotations, ModuleNames, generalise

__all__ = ["Trace", "Book", "load_trace", "annotate_from_trace", "TraceError"]

Call = dict[str, Any]
#: A call's caller: the record id of the caller's call, and which arguments are the caller's own
#: tensors (this argument -> the caller's).
Link = tuple[str, dict[str, str]]
#: Callers kept for one call (the calls with its shapes made from other calls).
_LINKS = 16


class TraceError(ValueError):
    """A trace file line that is not a record (with its line number)."""


@dataclass
class Trace:
    #: real path -> qualname -> recorded calls (argument name / ``return`` -> description)
    calls: dict[str, dict[str, list[Call]]] = field(default_factory=dict)
    records: int = 0
    #: (real path, qualname) of the functions whose tracer stopped at its bound of distinct calls
    saturated: set[tuple[str, str]] = field(default_factory=set)
    #: (real path, qualname) -> for each kept call, its callers (the calls it stands for included)
    links: dict[tuple[str, str], list[list[Link]]] = field(default_factory=dict)
    #: a record's id -> its function and call (to find a caller's call)
    by_id: dict[str, tuple[str, str, Call]] = field(default_factory=dict)

    def add(self, rec: Mapping[str, Any], samples: int) -> None:
        """Add a recorded call; at most ``samples`` per function (several processes each sampled), and
        calls with the same shapes as one kept count once (their callers are kept with it)."""
        where = (str(rec["file"]), str(rec["qualname"]))
        per = self.calls.setdefault(where[0], {}).setdefault(where[1], [])
        links = self.links.setdefault(where, [])
        call = dict(rec.get("args") or {})
        call[RESULT] = rec.get("result")
        if rec.get("init"):
            call[INIT] = rec["init"]
        if rec.get("saturated"):
            self.saturated.add(where)
        if isinstance(rec.get("id"), str):
            self.by_id[rec["id"]] = (*where, call)
        link: list[Link] = []
        if isinstance(rec.get("parent"), str):
            same = rec.get("same")
            link.append((rec["parent"], dict(same) if isinstance(same, dict) else {}))
        if len(per) < samples and (len(per) < 2 or call not in per):
            per.append(call)
            links.append(link)
        elif call in per:
            kept = links[per.index(call)]
            kept.extend(link[: _LINKS - len(kept)])
        self.records += 1

    def callers_of(self, path: str, qualname: str) -> list[list[Link]]:
        """The callers of each kept call of a function."""
        return self.links.get((path, qualname), [])


@dataclass
class Book:
    """The named dims of every function generalised so far, by call: what a callee's sizes are
    named after (generalisation rule 7).  Files are done one by one; a file whose functions asked
    for a caller of another file not done yet is named in ``waiting`` (done again at the end)."""

    trace: Trace
    #: (real path, qualname) -> each call, and its named dims' sizes and its arguments' dims
    done: dict[tuple[str, str], list[tuple[Call, dict[str, int], dict[str, list[str | None]]]]] = field(
        default_factory=dict
    )
    waiting: set[str] = field(default_factory=set)

    def keep(self, path: str, qualname: str, calls: Sequence[Call], got: FunctionAnnotations) -> None:
        self.done[(path, qualname)] = [
            (c, got.sizes[i] if i < len(got.sizes) else {}, got.axes) for i, c in enumerate(calls)
        ]

    def callers_in(self, path: str, functions: Iterable[str]) -> dict[str, set[str]]:
        """Each function's callers in its own module."""
        out: dict[str, set[str]] = {}
        for q in functions:
            for link in self.trace.callers_of(path, q):
                for parent, _ in link:
                    got = self.trace.by_id.get(parent)
                    if got is not None and got[0] == path:
                        out.setdefault(q, set()).add(got[1])
        return out

    def caller(self, path: str, links: Sequence[Link]) -> Caller | None:
        """What the callers of one call agree on (a call standing for several has several), or None."""
        sizes: dict[str, int] | None = None
        same: dict[str, list[str | None]] | None = None
        names: set[str] = set()
        for parent, mine in links:
            got = self.trace.by_id.get(parent)
            if got is None:
                continue
            entry = self.done.get((got[0], got[1]))
            if entry is None:
                if got[1] in self.trace.calls.get(got[0], {}):
                    self.waiting.add(path)  # its caller is annotated later: this file again then
                continue
            found = next(((s, a) for c, s, a in entry if c == got[2]), None)
            if found is None:
                continue
            names.add(got[1])
            here = {slot: list(found[1][theirs]) for slot, theirs in mine.items() if theirs in found[1]}
            sizes = dict(found[0]) if sizes is None else {k: v for k, v in sizes.items() if found[0].get(k) == v}
            same = here if same is None else {k: v for k, v in same.items() if here.get(k) == v}
        return None if sizes is None or same is None else Caller(sizes, same, " and ".join(sorted(names)))


def load_trace(lines: Iterable[str], name: str = "<trace>", samples: int = 64) -> Trace:
    """Read a JSON-lines trace; a malformed line raises :class:`TraceError` naming it."""
    t = Trace()
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            if not isinstance(rec, dict) or "file" not in rec or "qualname" not in rec:
                raise ValueError("not a call record")
        except ValueError as e:
            raise TraceError(f"{name}:{i}:1: not a trace record ({e})") from None
        t.add(rec, samples)
    return t


class _Shape:
    __slots__ = ("shape",)

    def __init__(self, shape: Sequence[int]) -> None:
        self.shape = tuple(shape)


def _bindings(
    site: FunctionSite, specs: Mapping[str, str], calls: Sequence[Call]
) -> tuple[list[str], dict[str, list[int]]]:
    """Check the existing annotations against every call: conflicts, and each named dim's sizes."""
    conflicts: list[str] = []
    sizes: dict[str, list[int]] = {}
    for call in calls:
        tensors = {
            slot: (_Shape(call[slot]["shape"]), spec)
            for slot, spec in specs.items()
            if isinstance(call.get(slot), dict) and "shape" in call[slot]
        }
        if not tensors:
            continue
        try:
            b = check_shapes(tensors, where=site.qualname)
        except ShapeCheckError as e:
            shapes = ", ".join(f"{s}: {tuple(t.shape)}" for s, (t, _) in tensors.items())
            conflicts.append(
                f"probable bug: {site.qualname}: an existing annotation does not hold for a traced call ({e}; observed {shapes})"
            )
            return conflicts, {}
        except Exception:  # noqa: BLE001 - a spec the runtime checker cannot read: no judgement
            return conflicts, {}
        for k, v in b.values.items():
            if isinstance(v, int):
                sizes.setdefault(k, []).append(v)
    n = len(calls)
    return conflicts, {k: v for k, v in sizes.items() if len(v) == n}


def _order(
    functions: Mapping[str, FunctionSite], by_function: Mapping[str, list[Call]], callers: Mapping[str, set[str]]
) -> list[str]:
    """The functions with calls, each after its callers of the module (their names name its sizes),
    those seen with one observation after the others (they take the module's names), else by line;
    a cycle of calls is broken at its first function by that order."""
    todo = {q for q in functions if by_function.get(q)}

    def key(q: str) -> tuple[bool, int]:
        calls = by_function[q]
        return all(c == calls[0] for c in calls), functions[q].line

    out: list[str] = []
    while todo:
        ready = [q for q in todo if not (callers.get(q, set()) & todo) - {q}] or list(todo)
        q = min(ready, key=key)
        out.append(q)
        todo.discard(q)
    return out


def propose_from_calls(
    by_function: Mapping[str, list[Call]],
    variable: Mapping[int, str] | None = None,
    path: str = "<string>",
    saturated: Iterable[str] = (),
    book: Book | None = None,
    real: str = "",
) -> Any:
    """A ``propose`` for :func:`apply_annotations` that generalises the recorded calls; with a
    ``book`` (the trace's callers), a function's constant sizes are named after its callers' dims
    (``real`` is the module's real path, as the trace names it)."""

    def propose(
        module: cst.Module, functions: Mapping[str, FunctionSite]
    ) -> tuple[dict[str, dict[str, str]], set[str], list[str]]:
        plan: dict[str, dict[str, str]] = {}
        classes: set[str] = set()
        messages: list[str] = []
        here = book.callers_in(real, by_function) if book is not None else {}
        # the dims that vary are named in the order of the lines (the first function names them for
        # the module), whatever order the callers ask for
        first = ModuleNames(variable=dict(variable or {}))
        for qual, site in sorted(functions.items(), key=lambda kv: kv[1].line):
            if by_function.get(qual):
                _generalise(site, by_function[qual], first, [], [])
        names = ModuleNames(dict(first.by_sizes), dict(variable or {}))
        for qual in _order(functions, by_function, here):
            site = functions[qual]
            calls = by_function[qual]
            callers = [book.caller(real, link) for link in book.trace.callers_of(real, qual)] if book else []
            conflicts: list[str] = []
            got = _generalise(site, calls, names, callers, conflicts)
            messages.extend(f"{path}:{site.line}:1: {c}" for c in conflicts)
            literal = {slot: kind for slot, d in site.defaults.items() if (kind := _literal_type(d)) is not None}
            if book is not None:
                book.keep(real, qual, calls, got)
            todo = {slot: text for slot, text in got.annotations.items() if slot not in site.existing}
            for slot, default in site.defaults.items():
                if slot not in todo:
                    continue
                if default == "None":  # ``mask=None``: the calls that leave it out pass None
                    if not todo[slot].endswith(" | None"):
                        todo[slot] += " | None"
                elif slot in literal:  # ``bias=0.0``: a call may leave it out, so the default's type too
                    todo[slot] += f" | {literal[slot]}"
                elif any(not isinstance(c.get(slot), dict) for c in calls):
                    del todo[slot]  # a call passed something that is not described (its default?)
                    messages.append(
                        f"{path}:{site.line}:1: note: {qual}: {slot}: not annotated, its default "
                        f"{default} is not known to be a tensor of the shapes seen"
                    )
                else:  # a tensor in every call, also in those that used the default (it is a tensor)
                    messages.append(
                        f"{path}:{site.line}:1: note: {qual}: {slot}: annotated from the calls, its default "
                        f"{default} kept (every traced call passed a tensor there)"
                    )
            if todo:
                plan[qual] = todo
                classes |= got.classes
                for note in got.notes:
                    messages.append(f"{path}:{site.line}:1: note: {qual}: {note}")
                if qual in saturated:
                    messages.append(
                        f"{path}:{site.line}:1: note: {qual}: called with more distinct shapes than the tracer "
                        f"records ({len(calls)} kept): a call unlike them may not match"
                    )
        messages.sort(key=lambda m: int(m[len(path) + 1 :].split(":", 1)[0]))  # by line, as the file reads
        return plan, classes, messages

    return propose


def _generalise(
    site: FunctionSite, calls: list[Call], names: ModuleNames, callers: Sequence[Caller | None], conflicts: list[str]
) -> FunctionAnnotations:
    """Generalise a function's calls, its existing annotations' names kept (``conflicts``: where a
    call does not satisfy them)."""
    specs = existing_specs(site)
    found, known = _bindings(site, specs, calls)
    conflicts.extend(found)
    reserved = [w for s in specs.values() for w in s.replace("*", " ").split()]
    literal = {slot: kind for slot, d in site.defaults.items() if (kind := _literal_type(d)) is not None}
    return generalise(
        calls,
        [*site.params, RESULT],
        module=names,
        code_names=site.code_names,
        known=[(tuple(v), k) for k, v in known.items()],
        reserved=[r for r in reserved if r.isidentifier()],
        defaulted=literal,
        callers=callers,
    )


def _literal_type(default: str) -> str | None:
    """``int``/``float``/``bool``/``str``/``bytes``/``complex`` for a literal default other than None."""
    try:
        value = ast.literal_eval(default)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    t = type(value)
    return t.__name__ if t in (int, float, bool, str, bytes, complex) else None


def annotate_from_trace(
    source: str, path: str, trace: Trace, variable: Mapping[int, str] | None = None, book: Book | None = None
) -> AnnotateResult:
    """Annotate the module at ``path`` (its text ``source``) from the trace's calls of its functions;
    ``book`` carries the callers' names between the modules of one trace (one of its own if None)."""
    real = os.path.realpath(path)
    calls = trace.calls.get(real, {})
    saturated = {q for f, q in trace.saturated if f == real}
    book = book if book is not None else Book(trace)
    return apply_annotations(source, propose_from_calls(calls, variable, path, saturated, book, real))


def traced_files(trace: Trace) -> list[Path]:
    return [Path(p) for p in sorted(trace.calls)]


def common_lines(a: list[str], b: list[str]) -> list[str]:
    """The lines ``a`` and ``b`` share, in order (what :func:`unified_diff` aligns on)."""
    m = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [line for blk in m.get_matching_blocks() for line in a[blk.a : blk.a + blk.size]]
