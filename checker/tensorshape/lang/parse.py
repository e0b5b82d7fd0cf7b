"""Parse jaxtyping shape strings into :class:`~tensorshape.model.spec.ShapeSpec`.

The grammar is jaxtyping's (``docs/api/array.md`` of jaxtyping): whitespace
separated dims; each may carry the modifiers ``#`` (size or 1), ``*``
(variadic), ``_`` (anonymous, unchecked), ``?`` (may vary in a PyTree) and a
``label=`` prefix; ``...`` is an anonymous variadic; a dim is an int, a name or
a symbolic expression without spaces (``d-1``, ``2*d``, ``min(a,b)``,
``{self.x}+1``).

tensorshape's own marks use jaxtyping's ``label=dim`` form, which jaxtyping
accepts and ignores, so annotations still check at run time:

* ``data=d``: ``d`` is the Vollo data dimension (written ``d!`` in messages);
* ``jagged=n``: a ragged axis, whose rows have different lengths (max ``n``).

The seed notation ``d!`` is understood too, with a warning: jaxtyping's runtime
checker raises ``SyntaxError`` on it.

Errors are :class:`ShapeSyntaxError` with the offset of the offending character.
"""

from __future__ import annotations

import ast
import functools
import re

from ..model.spec import DimKind, EBin, ECall, EInt, EName, ENeg, ERef, ShapeSpec, SpecDim, SpecExpr

__all__ = ["ShapeSyntaxError", "parse_shape", "try_parse_shape", "parse_dim_expr", "MARK_LABELS"]

#: ``label=`` prefixes that carry a meaning for tensorshape.
MARK_LABELS = ("data", "jagged")


class ShapeSyntaxError(ValueError):
    """A malformed shape string.

    ``offset``/``end`` locate the offending characters inside the string.
    """

    def __init__(self, message: str, text: str, offset: int, end: int | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.text = text
        self.offset = max(0, min(offset, len(text)))
        self.end = max(self.offset + 1, end if end is not None else self.offset + 1)
        self.hint = hint

    def __str__(self) -> str:
        caret = " " * self.offset + "^" * max(1, min(self.end, len(self.text) + 1) - self.offset)
        return f"{self.message}\n  {self.text!r}\n   {caret}"

    def __reduce__(self) -> tuple[object, ...]:
        return (ShapeSyntaxError, (self.message, self.text, self.offset, self.end, self.hint))


_TOKEN = re.compile(r"\S+")
_REF = re.compile(r"\{([^{}]*)\}")


def try_parse_shape(text: str) -> ShapeSpec | ShapeSyntaxError:
    """Like :func:`parse_shape`, but returns the error instead of raising it."""
    try:
        return parse_shape(text)
    except ShapeSyntaxError as e:
        return e


@functools.lru_cache(maxsize=4096)
def parse_shape(text: str) -> ShapeSpec:
    """Parse a jaxtyping shape string.  Results are cached: specs are immutable."""
    if not isinstance(text, str):
        raise ShapeSyntaxError("a shape must be a string of space-separated dims", "", 0)
    dims: list[SpecDim] = []
    notes: list[tuple[int, str]] = []
    variadic_at: int | None = None
    for m in _TOKEN.finditer(text):
        dim = _parse_elem(text, m.group(), m.start(), notes)
        if dim.is_variadic:
            if variadic_at is not None:
                raise ShapeSyntaxError(
                    "at most one variadic dim (`*name` or `...`) per shape",
                    text,
                    m.start(),
                    m.end(),
                    hint=f"`{text[dims[variadic_at].start : dims[variadic_at].end]}` is already variadic",
                )
            variadic_at = len(dims)
        dims.append(dim)
    data = [d for d in dims if d.data]
    if len(data) > 1:
        raise ShapeSyntaxError("a tensor has at most one data dimension", text, data[1].start, data[1].end)
    return ShapeSpec(tuple(dims), text, tuple(notes))


def _parse_elem(text: str, elem: str, start: int, notes: list[tuple[int, str]]) -> SpecDim:
    end = start + len(elem)

    def fail(msg: str, at: int = 0, length: int | None = None, hint: str | None = None) -> ShapeSyntaxError:
        return ShapeSyntaxError(msg, text, start + at, start + at + (length or 1) if length else end, hint)

    if "," in elem and "(" not in elem:
        raise fail(
            "dims are separated by spaces, not commas",
            elem.index(","),
            1,
            hint=f"write {' '.join(text.replace(',', ' ').split())!r}",
        )
    if elem.count("(") != elem.count(")"):
        raise fail(
            "unbalanced parenthesis: a symbolic dim cannot contain spaces",
            0,
            None,
            hint="write a product as `h*w`, not `(h w)`",
        )
    if elem.endswith("#") and len(elem) > 1:
        raise fail("`#` goes before the name", len(elem) - 1, 1, hint=f"write `#{elem[:-1]}`")
    data = jagged = False
    label: str | None = None
    if elem.endswith("!") and not elem.endswith("!="):
        data = True
        notes.append((start + len(elem) - 1, f"`{elem}` breaks jaxtyping's runtime check; write `data={elem[:-1]}`"))
        elem = elem[:-1]
        if not elem:
            raise fail("`!` needs a dim before it", 0, 1)
    if "..." in elem:
        if elem != "...":
            raise fail("`...` must stand on its own", elem.index("..."), 3)
        return SpecDim(DimKind.ANON_VARIADIC, start=start, end=end, data=data)

    broadcastable = variadic = anonymous = treepath = False
    pos = 0  # offset of `elem` inside the original element
    while elem:
        c = elem[0]
        if c == "#":
            if broadcastable:
                raise fail("`#` used twice (`##name`)", pos, 1)
            broadcastable = True
        elif c == "*":
            if variadic:
                raise fail("`*` used twice (`**name`)", pos, 1)
            variadic = True
        elif c == "_":
            if anonymous:
                raise fail("`_` used twice (`__name`)", pos, 1)
            anonymous = True
        elif c == "?":
            if treepath:
                raise fail("`?` used twice (`??name`)", pos, 1)
            treepath = True
        elif elem.count("=") == 1:
            lab, rest = elem.split("=")
            if lab == "data":
                data = True
            elif lab == "jagged":
                jagged = True
            elif lab == "!":
                data = True
            else:
                label = lab
            pos += len(lab) + 1
            elem = rest
            continue
        else:
            break
        elem = elem[1:]
        pos += 1

    def mk(kind: DimKind, **kw: object) -> SpecDim:
        return SpecDim(
            kind,
            broadcastable=broadcastable,
            treepath=treepath,
            data=data,
            jagged=jagged,
            label=label,
            start=start,
            end=end,
            **kw,  # type: ignore[arg-type]
        )

    if not elem or elem.isidentifier():
        if anonymous:
            if broadcastable:
                raise fail("an axis cannot be both anonymous and broadcastable (`#_`)")
            if variadic:
                return mk(DimKind.ANON_VARIADIC, name=elem or None)
            return mk(DimKind.ANON, name=elem or None)
        if not elem:
            raise fail("empty dim", pos, 1)
        if variadic:
            return mk(DimKind.VARIADIC, name=elem)
        return mk(DimKind.NAMED, name=elem)
    if re.fullmatch(r"[0-9]+", elem):
        if variadic:
            raise fail("a fixed size cannot be variadic (`*4`)", 0, None)
        if anonymous:
            raise fail("a fixed size cannot be anonymous (`_4`)", 0, None)
        if treepath:
            raise fail("a fixed size cannot vary in a PyTree (`?4`)", 0, None)
        return mk(DimKind.FIXED, size=int(elem))
    # symbolic
    if anonymous:
        raise fail("a symbolic dim cannot be anonymous (`_d+1`)", 0, None)
    if variadic:
        raise fail("a symbolic dim cannot be variadic (`*d+1`)", 0, None)
    if treepath:
        raise fail("a symbolic dim cannot vary in a PyTree (`?d+1`)", 0, None)
    try:
        expr = parse_dim_expr(elem)
    except ShapeSyntaxError as e:
        raise ShapeSyntaxError(e.message, text, start + pos + e.offset, start + pos + e.end, e.hint) from None
    if isinstance(expr, EInt):
        return mk(DimKind.FIXED, size=expr.value)
    if isinstance(expr, EName):
        return mk(DimKind.NAMED, name=expr.name)
    return mk(DimKind.EXPR, expr=expr)


_BINOPS: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
}


@functools.lru_cache(maxsize=2048)
def parse_dim_expr(source: str) -> SpecExpr:
    """Parse one symbolic dim (``d-1``, ``min(a,b)``, ``{self.x}*2``).

    Offsets in errors are relative to ``source``.
    """
    refs: dict[str, str] = {}
    shifts: list[tuple[int, int]] = []  # (offset in rewritten text, delta to original)

    def sub(m: re.Match[str]) -> str:
        path = m.group(1).strip()
        if not path or not all(p.isidentifier() for p in path.split(".")):
            raise ShapeSyntaxError(
                "`{...}` must name an argument or attribute, like `{n}` or `{self.dim}`", source, m.start(), m.end()
            )
        key = f"__ref{len(refs)}__"
        refs[key] = path
        return key

    rewritten = ""
    last = 0
    for m in _REF.finditer(source):
        rewritten += source[last : m.start()]
        new = sub(m)
        shifts.append((len(rewritten) + len(new), (m.end() - m.start()) - len(new)))
        rewritten += new
        last = m.end()
    rewritten += source[last:]
    if "{" in rewritten or "}" in rewritten:
        i = max(rewritten.find("{"), rewritten.find("}"))
        raise ShapeSyntaxError("unbalanced `{` `}`", source, _orig(i, shifts))

    try:
        tree = ast.parse(rewritten, mode="eval")
    except SyntaxError as e:
        col = min((e.offset or 1) - 1, max(0, len(rewritten) - 1))
        hint = "a symbolic dim cannot contain spaces: write `d-1`, not `d - 1`" if len(source.strip()) <= 2 else None
        raise ShapeSyntaxError(f"not a valid dim expression: {e.msg}", source, _orig(col, shifts), hint=hint) from None

    def conv(node: ast.AST) -> SpecExpr:
        at = _orig(getattr(node, "col_offset", 0), shifts)
        to = _orig(getattr(node, "end_col_offset", at + 1) or at + 1, shifts)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            if node.value < 0:
                raise ShapeSyntaxError("a dim size cannot be negative", source, at, to)
            return EInt(node.value)
        if isinstance(node, ast.Name):
            if node.id in refs:
                return ERef(refs[node.id])
            return EName(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            inner = conv(node.operand)
            return ENeg(inner) if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Div):
                raise ShapeSyntaxError(
                    "`/` gives a float; a dim needs integer division", source, at, to, hint="use `//`"
                )
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise ShapeSyntaxError("operator not allowed in a dim expression", source, at, to)
            return EBin(op, conv(node.left), conv(node.right))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("min", "max"):
            if node.keywords or len(node.args) < 2:
                raise ShapeSyntaxError(f"`{node.func.id}` takes two or more dims", source, at, to)
            return ECall(node.func.id, tuple(conv(a) for a in node.args))
        raise ShapeSyntaxError(
            "not a dim expression (allowed: ints, names, + - * // % **, min, max, {refs})", source, at, to
        )

    return conv(tree.body)


def _orig(offset: int, shifts: list[tuple[int, int]]) -> int:
    """Map an offset in the ref-rewritten text back to the original."""
    delta = 0
    for at, d in shifts:
        if offset >= at:
            delta += d
    return offset + delta
