"""Write proposed annotations into a module's source: a libcst codemod that keeps every other byte.

Only a parameter or result without an annotation gets one; an existing jaxtyping annotation that
the observed shapes contradict is reported as a conflict (a probable bug), never rewritten.  The
imports (``from jaxtyping import ...``, ``from torch import Tensor``) are added once, names sorted,
after the module's last top-level import.  Applying the result again changes nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..infer.project import FileSkipped, parse_or_raise
from ..infer.source import offset_position
from ..runtime.annotations import spec_in_text
from .generalise import RESULT

__all__ = ["FunctionSite", "collect_functions", "apply_annotations", "AnnotateResult"]


@dataclass
class FunctionSite:
    """A function of the module as the codemod sees it."""

    qualname: str
    line: int
    #: Parameter names in order (``*args``/``**kwargs`` left out: their annotation means each item).
    params: list[str]
    #: Existing annotation source per parameter (and :data:`RESULT`).
    existing: dict[str, str]
    #: Names the code gives to a parameter's axes: ``b, t, d = x.shape`` -> ``{"x": ["b", "t", "d"]}``.
    code_names: dict[str, list[str | None]]
    #: Default value source per parameter that has one (``{"mask": "None"}``).
    defaults: dict[str, str] = field(default_factory=dict)


@dataclass
class AnnotateResult:
    source: str
    #: Annotations written, as ``(qualname, slot, annotation)``.
    written: list[tuple[str, str, str]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)


def _shape_names(stmt: cst.Assign, params: set[str]) -> tuple[str, list[str | None]] | None:
    """``b, t, d = x.shape`` / ``x.size()`` with ``x`` a parameter: ``("x", ["b", "t", "d"])``."""
    if len(stmt.targets) != 1 or not isinstance(stmt.targets[0].target, cst.Tuple | cst.List):
        return None
    value = stmt.value
    if isinstance(value, cst.Call) and not value.args:
        value = value.func
        if not (isinstance(value, cst.Attribute) and value.attr.value == "size"):
            return None
    elif not (isinstance(value, cst.Attribute) and value.attr.value == "shape"):
        return None
    base = value.value
    if not isinstance(base, cst.Name) or base.value not in params:
        return None
    names: list[str | None] = []
    for el in stmt.targets[0].target.elements:
        if isinstance(el, cst.StarredElement):
            return None
        v = el.value
        names.append(v.value if isinstance(v, cst.Name) and v.value != "_" else None)
    return base.value, names


class _Collect(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.scope: list[str] = []
        self.functions: dict[str, FunctionSite] = {}
        self.current: list[FunctionSite | None] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.scope.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        nested = any(s.endswith("<locals>") for s in self.scope) or bool(self.current)
        qual = ".".join([*self.scope, node.name.value])
        self.scope.extend([node.name.value, "<locals>"])
        if nested:
            self.current.append(None)
            return
        p = node.params
        params = [x for x in (*p.posonly_params, *p.params, *p.kwonly_params)]
        existing = {x.name.value: self.module.code_for_node(x.annotation.annotation) for x in params if x.annotation}
        if node.returns is not None:
            existing[RESULT] = self.module.code_for_node(node.returns.annotation)
        line = self.get_metadata(PositionProvider, node).start.line
        defaults = {x.name.value: self.module.code_for_node(x.default) for x in params if x.default is not None}
        site = FunctionSite(qual, line, [x.name.value for x in params], existing, {}, defaults)
        self.functions.setdefault(qual, site)
        self.current.append(site)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scope.pop()
        self.scope.pop()
        self.current.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        site = self.current[-1] if self.current else None
        if site is None:
            return
        got = _shape_names(node, set(site.params))
        if got is not None:
            site.code_names.setdefault(got[0], got[1])


def collect_functions(module: cst.Module) -> dict[str, FunctionSite]:
    """The module's annotatable functions (top level and methods, not nested ones) by qualified name."""
    c = _Collect(module)
    MetadataWrapper(module, unsafe_skip_copy=True).visit(c)
    return c.functions


class _Write(cst.CSTTransformer):
    def __init__(self, plan: Mapping[str, Mapping[str, str]]) -> None:
        self.plan = plan
        self.scope: list[str] = []
        self.written: list[tuple[str, str, str]] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        self.scope.pop()
        return updated_node

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scope.extend([node.name.value, "<locals>"])

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self.scope.pop()
        self.scope.pop()
        if "<locals>" in self.scope:
            return updated_node
        qual = ".".join([*self.scope, updated_node.name.value])
        todo = self.plan.get(qual)
        if not todo:
            return updated_node

        def annotate(p: cst.Param) -> cst.Param:
            text = todo.get(p.name.value)
            if p.annotation is not None or text is None:
                return p
            self.written.append((qual, p.name.value, text))
            changes: dict[str, Any] = {"annotation": cst.Annotation(cst.parse_expression(text))}
            eq = p.equal
            if p.default is not None and isinstance(eq, cst.AssignEqual) and eq.whitespace_before.empty:
                # ``mask=None`` annotated reads ``mask: X | None = None`` (PEP 8's spacing)
                changes["equal"] = eq.with_changes(
                    whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" ")
                )
            return p.with_changes(**changes)

        ps = updated_node.params
        new_params = ps.with_changes(
            posonly_params=[annotate(p) for p in ps.posonly_params],
            params=[annotate(p) for p in ps.params],
            kwonly_params=[annotate(p) for p in ps.kwonly_params],
        )
        changes: dict[str, Any] = {"params": new_params}
        result = todo.get(RESULT)
        if updated_node.returns is None and result is not None:
            self.written.append((qual, RESULT, result))
            changes["returns"] = cst.Annotation(
                cst.parse_expression(result),
                whitespace_before_indicator=cst.SimpleWhitespace(" "),
                whitespace_after_indicator=cst.SimpleWhitespace(" "),
            )
        return updated_node.with_changes(**changes)


def _where(module: cst.Module, body: Sequence[cst.BaseStatement], mod: str, last: int) -> int:
    """Where a new ``from mod import ...`` line goes: before the first third-party import that sorts
    after it (isort's order), else after the last third-party import, else after the last import."""
    third: list[tuple[int, str]] = []
    for i, stmt in enumerate(body):
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            continue
        s = stmt.body[0]
        if isinstance(s, cst.ImportFrom) and s.module is not None and not s.relative:
            name = module.code_for_node(s.module)
        elif isinstance(s, cst.Import):
            name = module.code_for_node(s.names[0].name)
        else:
            continue
        if name.split(".")[0] not in sys.stdlib_module_names:
            third.append((i, name))
    for i, name in third:
        if name.lower() > mod:
            return i
    return third[-1][0] + 1 if third else last


def _imported(module: cst.Module) -> tuple[dict[str, set[str]], int]:
    """Names imported at top level by ``from X import ...`` per module X; index after the last import."""
    names: dict[str, set[str]] = {}
    last = 0
    for i, stmt in enumerate(module.body):
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.ImportFrom) and small.module is not None and not small.relative:
                mod = module.code_for_node(small.module)
                if not isinstance(small.names, cst.ImportStar):
                    for a in small.names:
                        names.setdefault(mod, set()).add(module.code_for_node(a.asname.name if a.asname else a.name))
                last = i + 1
            elif isinstance(small, cst.Import):
                last = i + 1
    return names, last


def _add_imports(module: cst.Module, want: Mapping[str, set[str]]) -> cst.Module:
    have, last = _imported(module)
    body = list(module.body)
    for mod in sorted(want):
        missing = want[mod] - have.get(mod, set())
        if not missing:
            continue
        for i, stmt in enumerate(body):  # an existing ``from mod import ...`` (plain names): extend it
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
            if (
                isinstance(small, cst.ImportFrom)
                and small.module is not None
                and module.code_for_node(small.module) == mod
                and not isinstance(small.names, cst.ImportStar)
                and all(a.asname is None for a in small.names)
                and small.lpar is None
            ):
                every = sorted({module.code_for_node(a.name) for a in small.names} | missing)
                aliases = [
                    cst.ImportAlias(cst.Name(n), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                    for n in every
                ]
                aliases[-1] = aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                assert isinstance(stmt, cst.SimpleStatementLine)
                body[i] = stmt.with_changes(body=[small.with_changes(names=aliases)])
                break
        else:
            if last == 0:  # no import: after the docstring and ``from __future__`` lines
                while last < len(body) and _is_docstring_or_future(body[last]):
                    last += 1
            at = _where(module, body, mod, last)
            line = cst.parse_statement(f"from {mod} import {', '.join(sorted(missing))}\n")
            before = body[at] if 0 < at < len(body) else None
            if isinstance(before, cst.SimpleStatementLine) and isinstance(before.body[0], cst.Import | cst.ImportFrom):
                # placed before an import: the blank lines and comments above it stay above both
                line = line.with_changes(leading_lines=before.leading_lines)
                body[at] = before.with_changes(leading_lines=[])
            body.insert(at, line)
            last += at <= last
    return module.with_changes(body=body)


def _is_docstring_or_future(stmt: cst.BaseStatement) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    s = stmt.body[0]
    if isinstance(s, cst.Expr) and isinstance(s.value, cst.SimpleString | cst.ConcatenatedString):
        return True
    return isinstance(s, cst.ImportFrom) and isinstance(s.module, cst.Name) and s.module.value == "__future__"


def apply_annotations(
    source: str,
    propose: Callable[[cst.Module, Mapping[str, FunctionSite]], tuple[dict[str, dict[str, str]], set[str], list[str]]]
    | None,
) -> AnnotateResult:
    """Parse ``source``, ask ``propose`` for annotations per function (and the dtype classes they use),
    write them where there are none and add the imports (``propose`` None: nothing to write).  Raises ``SyntaxError`` (with its place) when
    the text does not parse, or is nested too deep to parse (:class:`~tensorshape.infer.project.FileSkipped`)."""
    module = parse_or_raise(source)
    if module.code != source:
        # libcst drops some bytes Python allows (a form feed that starts a line): writing its code back
        # would lose them, so the file is left as it is.
        at = next((i for i, (a, b) in enumerate(zip(source, module.code)) if a != b), len(module.code))
        line, column = offset_position(source, at)
        raise FileSkipped(
            "tensorshape's parser (libcst) does not give back this text byte for byte here (a form feed?)",
            ("<string>", line, column + 1, None),
        )
    if propose is None:  # nothing to write: the text only had to parse and come back byte for byte
        return AnnotateResult(source, [], [])
    functions = collect_functions(module)
    plan, classes, messages = propose(module, functions)
    w = _Write(plan)
    new = module.visit(w)
    if w.written:
        used = {c for c in classes if any(f"{c}[" in text for _, _, text in w.written)}
        new = _add_imports(new, {"jaxtyping": used, "torch": {"Tensor"}})
    return AnnotateResult(new.code, w.written, messages)


def existing_specs(site: FunctionSite) -> dict[str, str]:
    """The jaxtyping shape strings of the function's existing annotations, by slot."""
    out = {}
    for slot, text in site.existing.items():
        spec = spec_in_text(text)
        if spec is not None:
            out[slot] = spec
    return out


def order_of(site: FunctionSite) -> Sequence[str]:
    return [*site.params, RESULT]
