"""``tensorshape annotate PATH...`` without a trace: propose what the static analysis infers.

The analysis knows the shape an unannotated parameter learnt from its first uses
(``infer.api.inferred_parameters``) and the result shape of a function every ``return`` of which
has one shape without an unknown dim; both are proposed, marked as inferred.  :func:`inferred_slots`
is the one place that reads the analysis.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import libcst as cst

from ..infer.api import CheckSettings, FileResult, annotation_specs, check_source, inferred_parameters
from ..infer.project import parse_or_raise
from ..infer.source import failure_line
from ..infer.syntax import blocks, suite_body
from ..model.values import TensorV
from .codemod import AnnotateResult, FunctionSite, apply_annotations
from .generalise import RESULT, dtype_class
from .kinds import function_kinds

__all__ = ["inferred_slots", "annotate_statically", "run_static"]


def function_returns(tree: cst.Module) -> dict[str, list[cst.BaseExpression | None]]:
    """The ``return`` values of each top-level function and method (not of functions nested in them),
    by qualified name, in source order (a name defined again: its last definition).

    A read-only walk of the statements (``return`` is one): libcst's visitor rebuilt every node of the
    module, a third of ``annotate``'s time on a file it proposes nothing for."""
    out: dict[str, list[cst.BaseExpression | None]] = {}

    def scope_level(stmts: Sequence[cst.CSTNode], scope: tuple[str, ...]) -> None:
        for stmt in stmts:
            if isinstance(stmt, cst.FunctionDef):
                found = out[".".join((*scope, stmt.name.value))] = []
                in_function(suite_body(stmt.body), found)
            elif isinstance(stmt, cst.ClassDef):
                scope_level(suite_body(stmt.body), (*scope, stmt.name.value))
            else:
                for block in blocks(stmt):
                    scope_level(block, scope)

    def in_function(stmts: Sequence[cst.CSTNode], found: list[cst.BaseExpression | None]) -> None:
        for stmt in stmts:
            if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
                in_function(stmt.body, found)
            elif isinstance(stmt, cst.Return):
                found.append(stmt.value)
            elif not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):  # their returns are their own
                for block in blocks(stmt):
                    in_function(block, found)

    scope_level(tree.body, ())
    return out


def inferred_slots(result: FileResult) -> dict[str, dict[str, tuple[str, str | None]]]:
    """qualname -> slot -> (jaxtyping shape string, torch dtype or None) the analysis infers.

    Parameters: what an unannotated parameter learnt from its first uses (``inferred_parameters``;
    one with a default is left out: its annotation would have to admit the default).  The result:
    the one shape, without an unknown part, of every ``return`` of the function.  One function's
    slots share their names (``x: "*batch 784"`` and ``-> "*batch 10"``)."""
    tree = result.module.tree if result.module is not None else None
    if tree is None or result.analyzer is None:
        return {}
    seen = {id(node): value for node, value in result.analyzer.observations}
    returns = function_returns(tree)
    learned = inferred_parameters(result)
    out: dict[str, dict[str, tuple[str, str | None]]] = {}
    for qual in dict.fromkeys([*returns, *learned]):
        slots: list[tuple[str, TensorV]] = [
            (name, p.value) for name, p in learned.get(qual, {}).items() if not p.has_default
        ]
        got = {seen.get(id(e)) if e is not None else None for e in returns.get(qual, [])}
        if len(got) == 1 and None not in got:
            (tv,) = got
            assert tv is not None
            slots.append((RESULT, tv))
        specs = annotation_specs([t.shape for _, t in slots])
        per = {slot: (spec, t.dtype) for (slot, t), spec in zip(slots, specs) if spec is not None}
        if per:
            out[qual] = per
    return out


def annotate_statically(source: str, path: str, only: Callable[[str, str, int], bool] | None = None) -> AnnotateResult:
    """The inferred annotations written into ``source``.  The annotated code is checked again: a
    function where an annotation would bring an error the code did not have (a size the code
    requires that the learnt shape left as a name: rigid once written) keeps none of its own.
    ``only(qualname, slot, line)`` keeps some slots (``line``: a parameter's, 0 for the result)."""
    result = check_source(source, path, CheckSettings(record=True))
    slots = inferred_slots(result)
    if only is not None:
        lines = {(q, n): p.line for q, ps in inferred_parameters(result).items() for n, p in ps.items()}
        kept = {q: {k: v for k, v in per.items() if only(q, k, lines.get((q, k), 0))} for q, per in slots.items()}
        slots = {q: per for q, per in kept.items() if per}
    before: set[tuple[str, str, str]] | None = None  # found only once there is something to compare
    for _ in range(3):
        annotated = _write(source, path, slots)
        if annotated.source == source:
            return annotated
        if before is None:
            before = _errors_by_function(source, result)
        new = _errors_by_function(annotated.source, check_source(annotated.source, path, CheckSettings())) - before
        if not new:
            return annotated
        dropped = {qual for qual, _, _ in new if qual in slots}
        if not dropped:
            break
        for q in dropped:
            del slots[q]
    return _write(source, path, {})


def _errors_by_function(source: str, result: FileResult) -> set[tuple[str, str, str]]:
    """``(function, code, message)`` of each error (the function by its qualified name; lines move
    when annotations and imports are written)."""
    extents = _extents(source)
    out = set()
    for d in result.errors:
        inner = [(end - start, q) for q, (start, end) in extents.items() if start <= d.span.line <= end]
        out.add((min(inner)[1] if inner else "", d.code.id, d.message))
    return out


def _extents(source: str) -> dict[str, tuple[int, int]]:
    """qualname -> (first line, last line) of each function of ``source``."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    wrapper = MetadataWrapper(parse_or_raise(source))
    pos = wrapper.resolve(PositionProvider)
    out: dict[str, tuple[int, int]] = {}
    scope: list[str] = []

    class _V(cst.CSTVisitor):
        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            scope.append(node.name.value)

        def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
            scope.pop()

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            scope.append(node.name.value)
            r = pos[node]
            out[".".join(scope)] = (r.start.line, r.end.line)

        def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
            scope.pop()

    wrapper.visit(_V())
    return out


def _write(source: str, path: str, slots: Mapping[str, Mapping[str, tuple[str, str | None]]]) -> AnnotateResult:
    def propose(
        module: cst.Module, functions: Mapping[str, FunctionSite]
    ) -> tuple[dict[str, dict[str, str]], set[str], list[str]]:
        plan: dict[str, dict[str, str]] = {}
        classes: set[str] = set()
        messages: list[str] = []
        kinds = function_kinds(module) if slots else {}
        for qual, per in slots.items():
            site = functions.get(qual)
            if site is None:
                continue
            for slot, (spec, dtype) in per.items():
                if slot in site.existing or (slot != RESULT and slot not in site.params):
                    continue
                cls = dtype_class([dtype]) if dtype else kinds.get(qual, {}).get(slot, "Shaped")
                classes.add(cls)
                text = f" {spec}" if len(spec.split()) == 1 else spec
                plan.setdefault(qual, {})[slot] = f'{cls}[Tensor, "{text}"]'
                what = "result" if slot == RESULT else f"parameter {slot}"
                how = "inferred by the analysis" if slot == RESULT else "inferred from its first use by the analysis"
                messages.append(f"{path}:{site.line}:1: note: {qual}: {what} {how}, not observed")
        return plan, classes, messages

    # Nothing to propose: the text is only parsed and checked (a metadata pass over every function of a
    # 100,000-line file took minutes for nothing).
    return apply_annotations(source, propose if slots else None)


def run_static(
    args: argparse.Namespace,
    paths: list[str],
    variable: dict[int, str],
    keep: Callable[[str], bool] | None = None,
) -> int:
    """Propose for the files of ``paths``; ``keep`` (a real path -> whether it is the project's)
    chooses among those found in folders (a file named is always done)."""
    from ..cli.files import collect_files
    from ..cli.instrument_cmd import _emit
    from ..instrument.edit import split_lines
    from ..instrument.files import read_source, unified_diff, write_atomic
    from .propose import common_lines

    files = collect_files(paths or ["."], Path.cwd())
    if keep is not None:
        named = {os.path.realpath(p) for p in paths if os.path.isfile(p)}
        files = [f for f in files if (real := os.path.realpath(f)) in named or keep(real)]
    failed = written = 0
    for f in files:
        try:
            src = read_source(f)
            r = annotate_statically(src.text, str(f))
        except Exception as e:  # noqa: BLE001 - one file that cannot be read or analysed; the others go on
            sys.stderr.write(failure_line(f, e, "not annotated") + "\n")
            failed += 1
            continue
        for m in r.messages:
            sys.stderr.write(m + "\n")
        if r.source == src.text:
            continue
        written += len(r.written)
        if args.write:
            try:
                write_atomic(f, r.source, src)
            except (OSError, UnicodeEncodeError, LookupError) as e:
                sys.stderr.write(f"{f}: error: not written, the file is unchanged: {e}\n")
                failed += 1
        else:
            a, b = split_lines(src.text), split_lines(r.source)
            _emit("".join(unified_diff(a, b, common_lines(a, b), f"a/{f}", f"b/{f}")), src.encoding)
    verb = "wrote" if args.write else "would write"
    sys.stderr.write(f"tensorshape annotate: {verb} {written} inferred annotation(s) (static analysis)\n")
    return 2 if failed else 0
