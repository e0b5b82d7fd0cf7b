"""Insert the checks the analysis asks for; take them out again."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..infer.api import CheckSettings, check_source
from ..model.obligations import Obligation, ObligationKind
from .locate import FunctionSite, innermost, locate

__all__ = ["MARKER", "InstrumentResult", "instrument_source", "remove"]

MARKER = "# tensorshape: instrument"
_RT = '__import__("tensorshape.runtime").runtime'
_SIMPLE = re.compile(r"[A-Za-z_][A-Za-z_0-9]*(\.[A-Za-z_][A-Za-z_0-9]*)*$")


@dataclass
class InstrumentResult:
    source: str
    #: Statement-level checks inserted (one per obligation).
    checks: int = 0
    #: Functions given the ``@shapecheck`` decorator.
    decorated: int = 0
    #: Obligations that could not become a check, with the reason.
    skipped: list[str] = field(default_factory=list)

    @property
    def inserted(self) -> int:
        return self.checks + self.decorated


def _newline(source: str) -> str:
    return "\r\n" if "\r\n" in source else "\n"


def remove(source: str) -> str:
    """The source without the lines ``instrument`` inserted (exactly the original)."""
    lines = source.splitlines(keepends=True)
    return "".join(line for line in lines if not line.rstrip("\r\n").endswith(MARKER))


def instrument_source(source: str, path: str = "<string>", *, every_boundary: bool = False) -> InstrumentResult:
    """Insert a runtime check at every obligation of ``source`` (``every_boundary``: decorate every
    annotated function instead of following the analysis, like jaxtyping)."""
    original = remove(source)
    nl = _newline(original)
    statements, functions = locate(original)
    result = InstrumentResult(original)
    inserts: dict[int, list[str]] = {}  # line number -> lines to insert before it
    decorate: dict[int, FunctionSite] = {}
    display = Path(path).name
    if every_boundary:
        for f in functions:
            if f.annotated:
                decorate[f.def_line] = f
    else:
        r = check_source(original, path, CheckSettings(obligations=True))
        for o in r.obligations:
            _place(o, statements, functions, inserts, decorate, result, display)
    lines = original.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += nl
        trailing = True
    else:
        trailing = False
    out: list[str] = []
    for i, line in enumerate(lines, 1):
        for text in inserts.get(i, []):
            out.append(text + nl)
        if i in decorate:
            f = decorate[i]
            out.append(f"{f.indent}@{_RT}.shapecheck  {MARKER}{nl}")
        out.append(line)
    text = "".join(out)
    if trailing:
        text = text[: -len(nl)]
    result.source = text
    result.checks = sum(len(v) for v in inserts.values())
    result.decorated = len(decorate)
    return result


def _place(
    o: Obligation,
    statements: list,  # type: ignore[type-arg]
    functions: list[FunctionSite],
    inserts: dict[int, list[str]],
    decorate: dict[int, FunctionSite],
    result: InstrumentResult,
    display: str,
) -> None:
    where = f"{display}:{o.span.line}"
    if o.kind is ObligationKind.RETURN:
        owner = min(
            (f for f in functions if f.start <= o.span.line <= f.end and f.annotated),
            key=lambda f: f.end - f.start,
            default=None,
        )
        if owner is None:
            result.skipped.append(f"{where}: no annotated function around the return")
            return
        decorate[owner.def_line] = owner
        return
    usable = [(c.text, c.spec) for c in o.checks if c.text and _SIMPLE.match(c.text)]
    if not usable:
        result.skipped.append(f"{where}: the operands are expressions a check cannot evaluate twice ({o.reason})")
        return
    stmt = innermost(statements, o.span.line)
    if stmt is None or not stmt.insertable:
        result.skipped.append(f"{where}: no statement line to put the check before")
        return
    pairs = ", ".join(f"{json.dumps(t)}: ({t}, {json.dumps(s)})" for t, s in dict(usable).items())
    line = f"{stmt.indent}{_RT}.check_shapes({{{pairs}}}, where={json.dumps(where)})  {MARKER}"
    bucket = inserts.setdefault(stmt.start, [])
    if line not in bucket:
        bucket.append(line)
