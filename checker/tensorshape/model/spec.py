"""Shape specs: parsed jaxtyping shape strings such as ``"b (h w)" `` or ``"*batch d-1"``.

A spec is a *pattern* over shapes (it has names to bind, ``_`` to skip, ``#`` to
broadcast), where a :class:`~tensorshape.model.shape.Shape` is a *value*.
The parser lives in :mod:`tensorshape.lang.parse`; unification of a spec with a
value in :mod:`tensorshape.unify.match`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TypeAlias, Union

__all__ = [
    "DimKind",
    "SpecDim",
    "ShapeSpec",
    "SpecExpr",
    "EInt",
    "EName",
    "ERef",
    "ENeg",
    "EBin",
    "ECall",
    "expr_names",
]


# -- dim expressions inside specs (``d-1``, ``2*d``, ``min(a,b)``, ``{self.x}``) ----


@dataclass(frozen=True, slots=True)
class EInt:
    value: int


@dataclass(frozen=True, slots=True)
class EName:
    """A dim name, bound by unification (``d`` in ``d-1``)."""

    name: str


@dataclass(frozen=True, slots=True)
class ERef:
    """A jaxtyping f-string reference to a value of the call: ``{self.dim}``, ``{n}``."""

    path: str


@dataclass(frozen=True, slots=True)
class ENeg:
    operand: SpecExpr


@dataclass(frozen=True, slots=True)
class EBin:
    #: One of ``+ - * // % **``.
    op: str
    left: SpecExpr
    right: SpecExpr


@dataclass(frozen=True, slots=True)
class ECall:
    #: ``min`` or ``max``.
    func: str
    args: tuple[SpecExpr, ...]


SpecExpr: TypeAlias = Union[EInt, EName, ERef, ENeg, EBin, ECall]


def expr_names(e: SpecExpr) -> frozenset[str]:
    """The dim names an expression refers to (not its ``{refs}``)."""
    if isinstance(e, EName):
        return frozenset((e.name,))
    if isinstance(e, ENeg):
        return expr_names(e.operand)
    if isinstance(e, EBin):
        return expr_names(e.left) | expr_names(e.right)
    if isinstance(e, ECall):
        out: frozenset[str] = frozenset()
        for a in e.args:
            out |= expr_names(a)
        return out
    return frozenset()


def expr_refs(e: SpecExpr) -> frozenset[str]:
    """The ``{refs}`` an expression uses."""
    if isinstance(e, ERef):
        return frozenset((e.path,))
    if isinstance(e, ENeg):
        return expr_refs(e.operand)
    if isinstance(e, EBin):
        return expr_refs(e.left) | expr_refs(e.right)
    if isinstance(e, ECall):
        out: frozenset[str] = frozenset()
        for a in e.args:
            out |= expr_refs(a)
        return out
    return frozenset()


# -- spec dims ------------------------------------------------------------------


class DimKind(enum.Enum):
    FIXED = "fixed"  # 3, rows=3
    NAMED = "named"  # b
    EXPR = "expr"  # d-1, 2*d, {self.x}
    ANON = "anon"  # _, _b
    VARIADIC = "variadic"  # *batch
    ANON_VARIADIC = "anon-variadic"  # ..., *_


@dataclass(frozen=True, slots=True)
class SpecDim:
    """One whitespace-separated element of a shape string."""

    kind: DimKind
    #: FIXED: the size.
    size: int | None = None
    #: NAMED, VARIADIC: the name; ANON: the documentation name after ``_`` (may be empty).
    name: str | None = None
    #: EXPR: the expression.
    expr: SpecExpr | None = None
    #: ``#``: this axis may also have size 1 (broadcast).
    broadcastable: bool = False
    #: ``?``: may vary inside a PyTree (jaxtyping); tensorshape treats it as a plain name.
    treepath: bool = False
    #: ``data=d`` (or the seed notation ``d!``): the Vollo data dimension.
    data: bool = False
    #: ``jagged=n``: a ragged axis whose per-row lengths vary (``n`` is its max length).
    jagged: bool = False
    #: The ``label`` of a ``label=dim`` element, when it is not one of our marks.
    label: str | None = None
    #: Offsets of this element inside the shape string: ``text[start:end]``.
    start: int = 0
    end: int = 0

    @property
    def is_variadic(self) -> bool:
        return self.kind in (DimKind.VARIADIC, DimKind.ANON_VARIADIC)

    def names(self) -> frozenset[str]:
        if self.kind in (DimKind.NAMED, DimKind.VARIADIC) and self.name:
            return frozenset((self.name,))
        if self.kind is DimKind.EXPR and self.expr is not None:
            return expr_names(self.expr)
        return frozenset()


@dataclass(frozen=True, slots=True)
class ShapeSpec:
    """A parsed shape string: the dims in order, at most one of them variadic."""

    dims: tuple[SpecDim, ...]
    #: The text the spec was parsed from.
    text: str = ""
    #: Warnings that are not errors (e.g. the ``d!`` spelling), as ``(offset, message)``.
    notes: tuple[tuple[int, str], ...] = field(default=(), compare=False)

    @property
    def variadic_index(self) -> int | None:
        for i, d in enumerate(self.dims):
            if d.is_variadic:
                return i
        return None

    @property
    def rank(self) -> int | None:
        """The rank the spec requires, or ``None`` when it has a variadic."""
        return None if self.variadic_index is not None else len(self.dims)

    @property
    def data_index(self) -> int | None:
        """The index of the dim marked as the Vollo data dimension, if any."""
        for i, d in enumerate(self.dims):
            if d.data:
                return i
        return None

    def names(self) -> frozenset[str]:
        out: frozenset[str] = frozenset()
        for d in self.dims:
            out |= d.names()
        return out

    def __str__(self) -> str:
        return self.text
