"""Insert the checks the analysis asks for; take them out again.

Insertion points come from libcst nodes (:mod:`.locate`); the edit itself only
adds whole lines to the text, so every byte of the user's code (line endings,
form feeds, the missing final newline) stays as it was.  Removal finds the
inserted lines structurally: a statement line or a decorator of exactly the
form ``instrument`` writes, carrying the marker as its comment.  Nothing else
(a docstring line ending with the marker, a user's statement) is touched.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..infer.api import CheckSettings, analyze_module
from ..infer.deadline import DEFAULT_FILE_TIMEOUT, deadline
from ..infer.project import Project, parse_or_raise
from ..model.obligations import Obligation, ObligationKind
from .locate import FunctionSite, Located, locate

__all__ = ["MARKER", "InstrumentResult", "instrument_source", "remove", "split_lines"]

MARKER = "# tensorshape: instrument"
_RT = '__import__("tensorshape.runtime").runtime'
_CHECK = _RT + ".check_shapes"
_DECORATOR = _RT + ".shapecheck"
_SIMPLE = re.compile(r"[A-Za-z_][A-Za-z_0-9]*(\.[A-Za-z_][A-Za-z_0-9]*)*$")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_INDENT = re.compile(r"[ \t\x0c]*")
#: Decorators a wrapper would break: TorchScript compiles the function's own code; overloads are never called.
_NO_WRAP = re.compile(r"\bjit\b|\boverload\b|\bscript\b")


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split where Python ends a line: ``\\r\\n``, ``\\r`` or ``\\n`` only.

    (``str.splitlines`` also splits at ``\\x0b \\x0c \\x1c-\\x1e \\x85 U+2028 U+2029``,
    which Python allows inside strings and comments.)
    """
    return _LINE.findall(text)


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


@dataclass
class InstrumentResult:
    source: str
    #: The input without any line ``instrument`` inserted before.
    original: str = ""
    #: Statement-level checks inserted (one per obligation).
    checks: int = 0
    #: Functions given the ``@shapecheck`` decorator.
    decorated: int = 0
    #: Obligations that could not become a check, with the reason.
    skipped: list[str] = field(default_factory=list)

    @property
    def inserted(self) -> int:
        return self.checks + self.decorated


class _Inserted(cst.CSTVisitor):
    """The lines of ``instrument``'s check statements and decorators, by position (the slow, exact way)."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.lines: set[int] = set()

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        body = node.body
        if (
            len(body) == 1
            and isinstance(body[0], cst.Expr)
            and isinstance(body[0].value, cst.Call)
            and _is_ours(self.module, node.trailing_whitespace.comment, body[0].value, _CHECK + "(")
        ):
            self.lines.add(self.get_metadata(PositionProvider, node).start.line)

    def visit_Decorator(self, node: cst.Decorator) -> None:
        if _is_ours(self.module, node.trailing_whitespace.comment, node.decorator, _DECORATOR):
            self.lines.add(self.get_metadata(PositionProvider, node).start.line)


_CANDIDATE = re.compile(
    r"[ \t\x0c]*(?:@[ \t]*)?" + re.escape(_RT) + r"\.(?:check_shapes\(|shapecheck\b).*" + re.escape(MARKER) + r"[ \t]*$"
)
_CONTAINERS = (
    cst.BaseCompoundStatement,
    cst.IndentedBlock,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.MatchCase,
)


def _count_inserted(module: cst.Module) -> int:
    """How many check statements and decorators of ``instrument``'s form the tree has (statements only walked)."""
    n = 0
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.SimpleStatementLine):
            body = node.body
            if (
                len(body) == 1
                and isinstance(body[0], cst.Expr)
                and isinstance(body[0].value, cst.Call)
                and _is_ours(module, node.trailing_whitespace.comment, body[0].value, _CHECK + "(")
            ):
                n += 1
            continue
        if isinstance(node, cst.FunctionDef):
            n += sum(
                _is_ours(module, d.trailing_whitespace.comment, d.decorator, _DECORATOR)
                and "\\" not in d.whitespace_after_at.value
                for d in node.decorators
            )
        stack.extend(c for c in node.children if isinstance(c, _CONTAINERS) or isinstance(c, cst.SimpleStatementLine))
    return n


def _is_ours(module: cst.Module, comment: cst.Comment | None, code: cst.CSTNode, form: str) -> bool:
    if comment is None or comment.value != MARKER:
        return False
    text = module.code_for_node(code)
    return text.startswith(form) and (form.endswith("(") or text == form) and "\n" not in text and "\r" not in text


def remove(source: str) -> str:
    """The source without the lines ``instrument`` inserted: exactly the original.

    A line goes only if it is a check statement or a decorator of exactly the
    form ``instrument`` writes, with the marker as its comment: found on the
    syntax tree, so a docstring or string line ending with the marker stays.
    Raises ``libcst.ParserSyntaxError`` when the source does not parse (nothing
    can then be told apart safely).
    """
    if MARKER not in source:
        return source
    lines = split_lines(source)
    candidates = {i for i, line in enumerate(lines, 1) if MARKER in line and _CANDIDATE.match(line.rstrip("\r\n"))}
    if not candidates:
        return source
    with _no_cycle_collection():
        if _all_code(source, lines, candidates):
            return "".join(line for i, line in enumerate(lines, 1) if i not in candidates)
        module = _parse(source)
        if _count_inserted(module) != len(candidates):
            # Some candidate lines are not code (inside a string): find each inserted line's position.
            v = _Inserted(module)
            MetadataWrapper(module, unsafe_skip_copy=True).visit(v)
            candidates = v.lines
    return "".join(line for i, line in enumerate(lines, 1) if i not in candidates)


#: An inserted line exactly: its indentation, the check statement or the decorator's ``@``, the code, the marker.
_EXACT = re.compile(
    r"(?P<lead>[ \t\x0c]*(?P<at>@[ \t]*)?)(?P<code>"
    + re.escape(_RT)
    + r"\.(?:check_shapes\(.*\)|shapecheck))[ \t]*"
    + re.escape(MARKER)
    + r"[ \t]*$"
)


def _all_code(source: str, lines: list[str], candidates: set[int]) -> bool:
    """Whether every candidate line is, by Python's own (fast) parser, one whole check statement or
    one decorator of ``instrument``'s form with the marker after it: the lines libcst would find
    (:func:`remove` then needs no libcst tree).  False when in doubt (a candidate in a string, a
    statement that shares its line or continues another, a text ``ast`` refuses): libcst decides.
    Every line libcst would find holds the runtime's name, once: any other occurrence, and libcst decides."""
    if source.count(_RT) != len(candidates):
        return False
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    checks: dict[int, list[ast.stmt]] = {}
    decorators: dict[int, list[ast.expr]] = {}
    stack: list[list[ast.stmt]] = [tree.body]
    while stack:
        for st in stack.pop():
            checks.setdefault(st.lineno, []).append(st)
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for d in st.decorator_list:
                    decorators.setdefault(d.lineno, []).append(d)
            for name in ("body", "orelse", "finalbody"):
                block = getattr(st, name, None)
                if isinstance(block, list):
                    stack.append(block)
            for inner in (*getattr(st, "handlers", ()), *getattr(st, "cases", ())):
                stack.append(inner.body)
    for i in candidates:
        m = _EXACT.match(lines[i - 1].rstrip("\r\n"))
        if m is None:
            return False
        start = len(m.group("lead"))  # ASCII: characters are bytes
        end = len(lines[i - 1][: m.end("code")].encode())
        node: ast.stmt | ast.expr
        if m.group("at"):
            found = decorators.get(i, [])
            if len(found) != 1 or m.group("code") != _DECORATOR:
                return False
            (node,) = found
        else:
            sts = checks.get(i, [])
            if len(sts) != 1 or not isinstance(sts[0], ast.Expr) or not isinstance(sts[0].value, ast.Call):
                return False
            node = sts[0]
        if (node.lineno, node.end_lineno, node.col_offset, node.end_col_offset) != (i, i, start, end):
            return False
    return True


def _parse(source: str) -> cst.Module:
    """libcst's tree, through the guard that never hands it text nested too deep for its native parser."""
    return parse_or_raise(source)


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Pause the cyclic garbage collector: syntax trees are many long-lived objects, and its full
    collections while they are built make the time grow faster than the file (refcounting still frees)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def instrument_source(
    source: str, path: str = "<string>", *, every_boundary: bool = False, file_timeout: float = DEFAULT_FILE_TIMEOUT
) -> InstrumentResult:
    """Insert a runtime check at every obligation of ``source`` (``every_boundary``: decorate every
    annotated function instead of following the analysis, like jaxtyping).

    The analysis is bounded by ``file_timeout`` seconds (0: no bound): past it, :class:`FileTimeout`
    is raised and nothing is inserted."""
    with _no_cycle_collection():
        return _instrument(source, path, every_boundary, file_timeout)


def _instrument(source: str, path: str, every_boundary: bool, file_timeout: float) -> InstrumentResult:
    original = remove(source)
    # One parse serves both the analysis and the insertion points; positions are computed only for the
    # statements where the analysis reports something (shared by the two).
    project = Project([Path(path).resolve().parent] if path != "<string>" else [])
    info = project.add_source(original, path)
    if info.tree is None or info.spans is None:
        raise info.failure.error(path) if info.failure else SyntaxError("cannot parse")
    located = locate(info.spans)
    lines = split_lines(original)
    result = InstrumentResult(original, original)
    inserts: dict[int, list[str]] = {}  # line number -> checks to insert before it
    decorate: dict[int, FunctionSite] = {}
    display = Path(path).name
    if every_boundary:
        for f in located.functions():
            _decorate(f, decorate, result, f"{display}:{f.def_line}")
    else:
        # The statements holding obligations get their code generated once, for the obligations' spans
        # and the insertion points together.
        info.spans.also_track = located.needed
        try:
            with deadline(file_timeout):
                r = analyze_module(project, info, CheckSettings(obligations=True, file_timeout=file_timeout))
        finally:
            info.spans.also_track = None
        for o in r.obligations:
            _place(o, located, lines, inserts, decorate, result, display)
    if not inserts and not decorate:
        return result
    out: list[str] = []
    for i, line in enumerate(lines, 1):
        if i in inserts or i in decorate:
            nl = _ending(line) or (_ending(lines[i - 2]) if i > 1 else "") or "\n"
            indent = _INDENT.match(line)
            assert indent is not None
            for text in inserts.get(i, ()):
                out.append(f"{indent.group()}{text}  {MARKER}{nl}")
            if i in decorate:
                out.append(f"{indent.group()}@{_DECORATOR}  {MARKER}{nl}")
        out.append(line)
    result.source = "".join(out)
    result.checks = sum(len(v) for v in inserts.values())
    result.decorated = len(decorate)
    return result


def _decorate(f: FunctionSite, decorate: dict[int, FunctionSite], result: InstrumentResult, where: str) -> None:
    if f.unusable is not None:
        result.skipped.append(f"{where}: `{f.name}` not decorated: {f.unusable}")
    elif f.wrapped_by and _NO_WRAP.search(f.wrapped_by):
        result.skipped.append(f"{where}: `{f.name}` not decorated: a wrapper would break `{f.wrapped_by}`")
    else:
        decorate[f.def_line] = f


def _place(
    o: Obligation,
    located: Located,
    lines: list[str],
    inserts: dict[int, list[str]],
    decorate: dict[int, FunctionSite],
    result: InstrumentResult,
    display: str,
) -> None:
    where = f"{display}:{o.span.line}"
    if o.kind is ObligationKind.RETURN:
        owner = located.owner(o.span.line, o.span.column)
        if owner is None or not owner.annotated:
            result.skipped.append(f"{where}: no function with a shape annotation around the return")
        else:
            _decorate(owner, decorate, result, where)
        return
    site = located.site(o.span.line, o.span.column)
    if site.line is None:
        result.skipped.append(f"{where}: no place for a check: {site.why}")
        return
    if not o.checks:
        result.skipped.append(f"{where}: no shape string states the requirement ({o.reason})")
        return
    usable = [(c.text, c.spec) for c in o.checks if c.text and _SIMPLE.match(c.text)]
    if not usable:
        result.skipped.append(f"{where}: the operands are expressions a check cannot evaluate twice ({o.reason})")
        return
    bound = [t for t, _ in usable if t.split(".")[0] in site.binds]
    usable = [(t, s) for t, s in usable if t.split(".")[0] not in site.binds]
    if not usable:
        result.skipped.append(f"{where}: {', '.join(bound)} bound by the statement itself: no check before it")
        return
    line = lines[site.line - 1]
    if site.line > 1 and lines[site.line - 2].rstrip("\r\n").endswith("\\"):
        result.skipped.append(f"{where}: the line before continues with a backslash: no line can go between")
        return
    if not line[: site.column].strip(" \t\x0c") == "":
        result.skipped.append(f"{where}: the statement does not start its line")
        return
    pairs = ", ".join(f"{json.dumps(t)}: ({t}, {json.dumps(s)})" for t, s in dict(usable).items())
    text = f"{_CHECK}({{{pairs}}}, where={json.dumps(where)})"
    bucket = inserts.setdefault(site.line, [])
    if text not in bucket:
        bucket.append(text)
