"""Emit a shape function as standalone Python source (standard library only, no sympy)."""

from __future__ import annotations

import re
from typing import Any

from ..lang.render import render_dim
from ..model.constraints import Constraint, Rel
from ..model.dims import Star, Unknown
from ..model.text import plural
from .model import Dynamic, OutDict, OutNone, Output, OutTensor, OutTuple, OutUnknown, ShapeFunctionData

__all__ = ["emit", "expr_to_python"]

_HEADER = '''class ShapeFunctionError(ValueError):
    """The input shapes are inconsistent: the function would fail on them."""
'''


def expr_to_python(d: Any, names: dict[Any, str]) -> str:
    """Python source for a dim: an int, or a sympy expression over symbols named by ``names``."""
    if isinstance(d, int):
        return str(d)
    return _Printer(names).expr(d)


class _Printer:
    def __init__(self, names: dict[Any, str]):
        self.names = names

    def expr(self, e: Any) -> str:
        import sympy

        if e.is_Integer:
            return str(int(e))
        if e.is_Symbol:
            return self.names[e]
        if e.is_Rational:
            n, d = e.as_numer_denom()
            return f"({int(n)} // {int(d)})"
        if isinstance(e, sympy.floor):
            n, d = e.args[0].as_numer_denom()
            return f"(({self.expr(n)}) // ({self.expr(d)}))"
        if isinstance(e, sympy.ceiling):
            n, d = e.args[0].as_numer_denom()
            return f"(-((-({self.expr(n)})) // ({self.expr(d)})))"
        if isinstance(e, sympy.Mod):
            return f"(({self.expr(e.args[0])}) % ({self.expr(e.args[1])}))"
        if isinstance(e, sympy.Min):
            return "min(" + ", ".join(self.expr(a) for a in e.args) + ")"
        if isinstance(e, sympy.Max):
            return "max(" + ", ".join(self.expr(a) for a in e.args) + ")"
        if e.is_Add:
            return "(" + " + ".join(self.expr(a) for a in e.args) + ")"
        if e.is_Mul:
            n, d = e.as_numer_denom()
            if d != 1:
                # An exact quotient (the analysis proved divisibility): integer division.
                return f"(({self.expr(n)}) // ({self.expr(d)}))"
            return "(" + " * ".join(self.expr(a) for a in e.args) + ")"
        if e.is_Pow:
            base, exp = e.args
            if exp.is_Integer and int(exp) >= 0:
                return f"({self.expr(base)} ** {int(exp)})"
            n, d = e.as_numer_denom()
            return f"(({self.expr(n)}) // ({self.expr(d)}))"
        raise ValueError(f"cannot emit {e!r} as Python")


def _symbols_in(d: Any) -> list[Any]:
    if isinstance(d, (int, Star, Unknown, Dynamic)):
        return []
    return sorted(d.free_symbols, key=str)


class _Emitter:
    def __init__(self, fn: ShapeFunctionData):
        self.fn = fn
        self.names: dict[Any, str] = dict(fn.names)
        self.lines: list[str] = []

    def py(self, d: Any) -> str:
        return expr_to_python(d, self.names)

    def line(self, text: str, indent: int = 1) -> None:
        self.lines.append("    " * indent + text)

    def fail(self, message: str, symbols: list[Any], indent: int = 2) -> None:
        shown = ", ".join(f"{self.names[s]}={{{self.names[s]}}}" for s in symbols)
        # ``@@expr@@`` marks a value to show at run time.
        text = re.sub(r"@@(.*?)@@", r"{\1}", message.replace("{", "{{").replace("}", "}}"))
        self.line(f"raise ShapeFunctionError(f{(text + (f' ({shown})' if shown else ''))!r})", indent)

    def bind_inputs(self) -> None:
        bound: set[Any] = set()
        deferred: list[tuple[str, int, str, Any]] = []
        for t in self.fn.tensors:
            self.line(f"{t.name} = tuple({t.name})")
            if t.pattern is None:
                continue
            stars = [i for i, d in enumerate(t.pattern) if isinstance(d, Star)]
            fixed = len(t.pattern) - len(stars)
            shown = "[" + " ".join(_show(d) for d in t.pattern) + "]"
            if stars:
                self.line(f"if len({t.name}) < {fixed}:")
                self.line(
                    f"raise ShapeFunctionError(f'{t.name}: expected at least {plural(fixed, 'dim')} {shown}, got {{{t.name}}}')",
                    2,
                )
            else:
                self.line(f"if len({t.name}) != {fixed}:")
                self.line(
                    f"raise ShapeFunctionError(f'{t.name}: expected {plural(fixed, 'dim')} {shown}, got {{{t.name}}}')",
                    2,
                )
            star_at = stars[0] if stars else None
            for i, d in enumerate(t.pattern):
                if star_at is not None and i > star_at:
                    at = f"len({t.name}) - {len(t.pattern) - i}"
                else:
                    at = str(i)
                where = f"{t.name}[{at}]"
                if isinstance(d, Star):
                    if d.name is None:
                        continue
                    rest = len(t.pattern) - i - 1
                    sl = f"{t.name}[{i}:len({t.name}) - {rest}]" if rest else f"{t.name}[{i}:]"
                    var = f"star_{d.name}"
                    if var in bound:
                        self.line(f"if {sl} != {var}:")
                        self.line(
                            f"raise ShapeFunctionError(f'{t.name}: *{d.name} is {{{sl}}}, but it was {{{var}}}')", 2
                        )
                    else:
                        self.line(f"{var} = {sl}")
                        bound.add(var)
                elif isinstance(d, Unknown):
                    continue
                elif isinstance(d, int):
                    self.line(f"if {where} != {d}:")
                    self.line(f"raise ShapeFunctionError(f'{t.name}: dim {i} is {{{where}}}, expected {d}')", 2)
                elif getattr(d, "is_Symbol", False) and d not in bound:
                    self.line(f"{self.names[d]} = {where}")
                    bound.add(d)
                else:
                    deferred.append((t.name, i, where, d))
        self.jagged(bound)
        for name, i, where, d in deferred:
            self.line(f"if {where} != {self.py(d)}:")
            self.fail(f"{name}: dim {i} is @@{where}@@, expected {render_dim(d)}", _symbols_in(d))

    def jagged(self, bound: set[Any]) -> None:
        """Ragged dims are passed as the tuple of row lengths; their max and sum are computed from it."""
        from ..rules.ops.jagged import DERIVED, jagged_info

        for t in self.fn.tensors:
            for i, d in enumerate(t.pattern or ()):
                if not isinstance(d, (int, Star, Unknown)) and getattr(d, "is_Symbol", False) and jagged_info(d):
                    n = self.names[d]
                    batch = t.pattern[i - 1] if i > 0 else None  # type: ignore[index]
                    self.line(f"if not isinstance({n}, (tuple, list)) or not all(isinstance(r, int) for r in {n}):")
                    self.line(
                        f"raise ShapeFunctionError(f'{t.name}: dim {i} is ragged: pass its row lengths, got {{{n}!r}}')",
                        2,
                    )
                    self.line(f"{n} = tuple({n})")
                    if batch is not None and batch in self.names:
                        b = self.names[batch]
                        self.line(f"if len({n}) != {b}:")
                        self.line(
                            f"raise ShapeFunctionError(f'{t.name}: {{len({n})}} row lengths for a batch of {{{b}}}')", 2
                        )
        for sym, name in self.names.items():
            rule = DERIVED.get(str(sym))
            if rule is None:
                continue
            kind, base = rule
            src = next((v for k, v in self.names.items() if str(k) == base), None)
            if src is None:
                continue
            self.line(f"{name} = {'max(' + src + ', default=0)' if kind == 'max' else 'sum(' + src + ')'}")

    def constraints(self) -> None:
        ordered = sorted(self.fn.constraints, key=lambda c: c.rel is not Rel.DIVISIBLE)
        for c in ordered:
            self.line(f"if not ({self.condition(c)}):")
            self.fail(c.message, sorted({*_symbols_in(c.lhs), *_symbols_in(c.rhs)}, key=str))

    def condition(self, c: Constraint) -> str:
        a, b = self.py(c.lhs), self.py(c.rhs)
        if c.rel is Rel.EQ:
            return f"{a} == {b}"
        if c.rel is Rel.LE:
            return f"{a} <= {b}"
        if c.rel is Rel.DIVISIBLE:
            return f"{b} != 0 and {a} % {b} == 0"
        if c.rel is Rel.BROADCAST:
            return f"{a} == {b} or {a} == 1 or {b} == 1"
        return f"{a} == {b} or {a} == 1"

    def output(self, o: Output) -> str:
        if isinstance(o, OutTensor):
            if o.dims is None:
                return "None"
            parts = []
            for d in o.dims:
                if isinstance(d, Star):
                    parts.append(f"*star_{d.name}")
                elif isinstance(d, Dynamic):
                    parts.append("None")
                else:
                    parts.append(self.py(d))
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        if isinstance(o, OutTuple):
            return "(" + ", ".join(self.output(x) for x in o.items) + ("," if len(o.items) == 1 else "") + ")"
        if isinstance(o, OutDict):
            return "{" + ", ".join(f"{k!r}: {self.output(x)}" for k, x in o.items) + "}"
        if isinstance(o, OutNone):
            return "None"
        assert isinstance(o, OutUnknown)
        return "None"

    def negative_checks(self, o: Output) -> None:
        """Every computed output dim must be a valid size."""
        if isinstance(o, OutTensor):
            for d in o.dims or ():
                if not isinstance(d, (int, Star, Dynamic, Unknown)) and not d.is_Symbol:
                    self.line(f"if {self.py(d)} < 0:")
                    self.fail(f"output dim {render_dim(d)} would be negative", _symbols_in(d))
        elif isinstance(o, OutTuple):
            for x in o.items:
                self.negative_checks(x)
        elif isinstance(o, OutDict):
            for _, x in o.items:
                self.negative_checks(x)


def _show(d: Any) -> str:
    if isinstance(d, Star):
        return f"*{d.name}" if d.name else "..."
    if isinstance(d, Unknown):
        return "_"
    return render_dim(d)


def _describe(o: Output) -> str:
    if isinstance(o, OutTensor):
        if o.dims is None:
            return f"a tensor of unknown rank ({o.dynamic_rank_reason})"
        return "[" + " ".join(f"?{d.reason}" if isinstance(d, Dynamic) else _show(d) for d in o.dims) + "]"
    if isinstance(o, OutTuple):
        return "(" + ", ".join(_describe(x) for x in o.items) + ")"
    if isinstance(o, OutDict):
        return "{" + ", ".join(f"{k!r}: {_describe(x)}" for k, x in o.items) + "}"
    if isinstance(o, OutNone):
        return "None"
    assert isinstance(o, OutUnknown)
    return f"unknown ({o.reason})"


def emit(fn: ShapeFunctionData) -> str:
    e = _Emitter(fn)
    params = [t.name for t in fn.tensors]
    if fn.scalars:
        params += ["*"] + [n for n, _ in fn.scalars]
    e.lines.append(f"def {fn.name}({', '.join(params)}):")
    doc = [f'"""Output shape of `{fn.qualname}` from its input shapes (generated by tensorshape shapefn).', ""]
    for t in fn.tensors:
        pat = "unknown rank: not checked" if t.pattern is None else "[" + " ".join(_show(d) for d in t.pattern) + "]"
        doc.append(f"{t.name}: the shape of `{t.name}` (a sequence of ints), {pat}")
    for n, s in fn.scalars:
        doc.append(f"{n}: the int `{s}`")
    from ..rules.ops.jagged import jagged_info

    for sym, name in fn.names:
        if jagged_info(sym) is not None and any(sym in (t.pattern or ()) for t in fn.tensors):
            doc.append(f"{name} is a ragged dim: pass the tuple of its row lengths; outputs return it the same way")
    doc += [
        "",
        f"Returns {_describe(fn.output)}.",
        "A dim that cannot be known before running (data-dependent) is None.",
        "Raises ShapeFunctionError when the inputs are inconsistent.",
        '"""',
    ]
    for d in doc:
        e.line(d if d else "", 1) if d else e.lines.append("")
    e.bind_inputs()
    e.line("try:")
    start = len(e.lines)
    e.constraints()
    e.negative_checks(fn.output)
    e.line(f"return {e.output(fn.output)}")
    for i in range(start, len(e.lines)):
        e.lines[i] = "    " + e.lines[i]
    e.line("except ZeroDivisionError:")
    e.line("raise ShapeFunctionError('a dim the output depends on is zero') from None", 2)
    return _HEADER + "\n\n" + "\n".join(e.lines) + "\n"
