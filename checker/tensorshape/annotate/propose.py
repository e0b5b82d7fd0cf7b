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
from .generalise import INIT, RESULT, ModuleNames, generalise

__all__ = ["Trace", "load_trace", "annotate_from_trace", "TraceError"]

Call = dict[str, Any]


class TraceError(ValueError):
    """A trace file line that is not a record (with its line number)."""


@dataclass
class Trace:
    #: real path -> qualname -> recorded calls (argument name / ``return`` -> description)
    calls: dict[str, dict[str, list[Call]]] = field(default_factory=dict)
    records: int = 0
    #: (real path, qualname) of the functions whose tracer stopped at its bound of distinct calls
    saturated: set[tuple[str, str]] = field(default_factory=set)

    def add(self, rec: Mapping[str, Any], samples: int) -> None:
        """Add a recorded call; at most ``samples`` per function (several processes each sampled), and
        calls with the same shapes as one kept count once."""
        where = (str(rec["file"]), str(rec["qualname"]))
        per = self.calls.setdefault(where[0], {}).setdefault(where[1], [])
        call = dict(rec.get("args") or {})
        call[RESULT] = rec.get("result")
        if rec.get("init"):
            call[INIT] = rec["init"]
        if rec.get("saturated"):
            self.saturated.add(where)
        if len(per) < samples and (len(per) < 2 or call not in per):
            per.append(call)
        self.records += 1


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


def propose_from_calls(
    by_function: Mapping[str, list[Call]],
    variable: Mapping[int, str] | None = None,
    path: str = "<string>",
    saturated: Iterable[str] = (),
) -> Any:
    """A ``propose`` for :func:`apply_annotations` that generalises the recorded calls."""

    def propose(
        module: cst.Module, functions: Mapping[str, FunctionSite]
    ) -> tuple[dict[str, dict[str, str]], set[str], list[str]]:
        names = ModuleNames(variable=dict(variable or {}))
        plan: dict[str, dict[str, str]] = {}
        classes: set[str] = set()
        messages: list[str] = []
        for qual, site in sorted(functions.items(), key=lambda kv: kv[1].line):
            calls = by_function.get(qual)
            if not calls:
                continue
            specs = existing_specs(site)
            conflicts, known = _bindings(site, specs, calls)
            messages.extend(f"{path}:{site.line}:1: {c}" for c in conflicts)
            reserved = [w for s in specs.values() for w in s.replace("*", " ").split()]
            order = [*site.params, RESULT]
            literal = {slot: kind for slot, d in site.defaults.items() if (kind := _literal_type(d)) is not None}
            got = generalise(
                calls,
                order,
                module=names,
                code_names=site.code_names,
                known=[(tuple(v), k) for k, v in known.items()],
                reserved=[r for r in reserved if r.isidentifier()],
                defaulted=literal,
            )
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
        return plan, classes, messages

    return propose


def _literal_type(default: str) -> str | None:
    """``int``/``float``/``bool``/``str``/``bytes``/``complex`` for a literal default other than None."""
    try:
        value = ast.literal_eval(default)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    t = type(value)
    return t.__name__ if t in (int, float, bool, str, bytes, complex) else None


def annotate_from_trace(
    source: str, path: str, trace: Trace, variable: Mapping[int, str] | None = None
) -> AnnotateResult:
    """Annotate the module at ``path`` (its text ``source``) from the trace's calls of its functions."""
    real = os.path.realpath(path)
    calls = trace.calls.get(real, {})
    saturated = {q for f, q in trace.saturated if f == real}
    return apply_annotations(source, propose_from_calls(calls, variable, path, saturated))


def traced_files(trace: Trace) -> list[Path]:
    return [Path(p) for p in sorted(trace.calls)]


def common_lines(a: list[str], b: list[str]) -> list[str]:
    """The lines ``a`` and ``b`` share, in order (what :func:`unified_diff` aligns on)."""
    m = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [line for blk in m.get_matching_blocks() for line in a[blk.a : blk.a + blk.size]]
