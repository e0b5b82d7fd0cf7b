"""``tensorshape annotate PATH...`` without a trace: propose what the static analysis infers.

Today the analysis knows the result shape of an unannotated function whose tensor parameters are
annotated (or whose result does not depend on them): every ``return`` of the function has one
shape without an unknown dim, and that is proposed.  :func:`inferred_slots` is the one place that
reads the analysis; a richer API of inferred parameter shapes plugs in there.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping
from pathlib import Path

import libcst as cst

from ..infer.api import CheckSettings, FileResult, check_source
from ..lang.parse import ShapeSyntaxError, try_parse_shape
from ..lang.render import render_shape
from ..model.dims import Star, Unknown
from .codemod import AnnotateResult, FunctionSite, apply_annotations
from .generalise import RESULT, dtype_class

__all__ = ["inferred_slots", "annotate_statically", "run_static"]


class _Returns(cst.CSTVisitor):
    """The ``return`` values of each top-level function and method, by qualified name."""

    def __init__(self) -> None:
        self.scope: list[str] = []
        self.depth = 0
        self.returns: dict[str, list[cst.BaseExpression | None]] = {}

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scope.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.depth += 1
        self.scope.append(node.name.value)
        if self.depth == 1:
            self.returns[".".join(self.scope)] = []

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.depth -= 1
        self.scope.pop()

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        if self.depth == 1:
            self.returns[".".join(self.scope)].append(node.value)


def inferred_slots(result: FileResult) -> dict[str, dict[str, tuple[str, str | None]]]:
    """qualname -> slot -> (jaxtyping shape string, torch dtype or None) the analysis infers."""
    tree = result.module.tree if result.module is not None else None
    if tree is None or result.analyzer is None:
        return {}
    seen = {id(node): value for node, value in result.analyzer.observations}
    v = _Returns()
    tree.visit(v)
    out: dict[str, dict[str, tuple[str, str | None]]] = {}
    for qual, values in v.returns.items():
        got = {seen.get(id(e)) if e is not None else None for e in values}
        if len(got) != 1 or None in got:
            continue
        (tv,) = got
        assert tv is not None
        if any(isinstance(d, Unknown) or (isinstance(d, Star) and not d.name) for d in tv.shape.items):
            continue
        spec = render_shape(tv.shape)[1:-1]
        if isinstance(try_parse_shape(spec), ShapeSyntaxError):  # not in jaxtyping's language
            continue
        out[qual] = {RESULT: (spec, tv.dtype)}
    return out


def annotate_statically(source: str, path: str) -> AnnotateResult:
    result = check_source(source, path, CheckSettings(record=True))
    slots = inferred_slots(result)

    def propose(
        module: cst.Module, functions: Mapping[str, FunctionSite]
    ) -> tuple[dict[str, dict[str, str]], set[str], list[str]]:
        plan: dict[str, dict[str, str]] = {}
        classes: set[str] = set()
        messages: list[str] = []
        for qual, per in slots.items():
            site = functions.get(qual)
            if site is None:
                continue
            for slot, (spec, dtype) in per.items():
                if slot in site.existing:
                    continue
                cls = dtype_class([dtype]) if dtype else "Shaped"
                classes.add(cls)
                text = f" {spec}" if len(spec.split()) == 1 else spec
                plan.setdefault(qual, {})[slot] = f'{cls}[Tensor, "{text}"]'
                what = "result" if slot == RESULT else f"parameter {slot}"
                messages.append(f"{path}:{site.line}:1: note: {qual}: {what} inferred by the analysis, not observed")
        return plan, classes, messages

    return apply_annotations(source, propose)


def run_static(args: argparse.Namespace, paths: list[str], variable: dict[int, str]) -> int:
    from ..cli.files import collect_files
    from ..cli.instrument_cmd import _emit
    from ..instrument.edit import split_lines
    from ..instrument.files import read_source, unified_diff, write_atomic
    from .propose import common_lines

    files = collect_files(paths or ["."], Path.cwd())
    failed = written = 0
    for f in files:
        try:
            src = read_source(f)
            r = annotate_statically(src.text, str(f))
        except Exception as e:  # noqa: BLE001 - one file that cannot be read or analysed; the others go on
            sys.stderr.write(f"{f}: error: not annotated ({type(e).__name__}: {e})\n")
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
