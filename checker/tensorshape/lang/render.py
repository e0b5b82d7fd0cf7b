"""Render dims, shapes and values as text, in the notation messages use.

Shapes print as ``[b t 2*d]``: space separated like a shape string, in brackets
like the Vollo docs (``[a b! c]``), with ``?`` for unknown dims, ``...`` for an
unknown run, and ``!`` after the data dimension when known.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..model import values as mv
from ..model.dims import Dim, Star, Unknown
from ..model.shape import Item, Shape
from ..model.values import DatasetV, IntV, LoaderV, ModuleV, SeqV, TensorV, TupleV, UnknownV, Value

__all__ = ["render_dim", "render_shape", "render_items", "describe_value"]


@functools.cache
def _printer() -> Any:
    from sympy.printing.str import StrPrinter

    class DimPrinter(StrPrinter):  # type: ignore[misc]
        def parenthesize(self, item: Any, level: int, strict: bool = False) -> str:
            from sympy import Mod, floor
            from sympy.printing.precedence import PRECEDENCE

            if isinstance(item, (floor, Mod)) and level >= PRECEDENCE["Mul"]:
                return "(" + str(self._print(item)) + ")"
            return str(super().parenthesize(item, level, strict))

        def _print_floor(self, expr: Any) -> str:
            from sympy import fraction, together

            num, den = fraction(together(expr.args[0]))
            if den != 1:
                return f"{self.parenthesize(num, 50)}//{self.parenthesize(den, 50)}"
            return f"floor({self._print(expr.args[0])})"

        def _print_ceiling(self, expr: Any) -> str:
            from sympy import fraction, together

            num, den = fraction(together(expr.args[0]))
            if den != 1:
                return f"ceil({self._print(num)}/{self._print(den)})"
            return f"ceil({self._print(expr.args[0])})"

        def _print_Mul(self, expr: Any) -> str:
            from sympy import Mod, floor, fraction

            # A dim is an integer: an exact quotient (``d/h`` once ``h | d`` is known) prints as ``d//h``.
            num, den = fraction(expr)
            if den != 1:
                return f"{self.parenthesize(num, 50)}//{self.parenthesize(den, 50)}"
            coeff, _ = expr.as_coeff_Mul()
            if coeff < -1 and expr.has(floor, Mod):
                # sympy prints ``-2*floor(2*n/3)`` with its sign split off, past the parentheses the
                # quotient needs: ``-2*(2*n)//3`` would read as ``-((4*n)//3)``.
                return "-" + str(self._print(-expr))
            return str(super()._print_Mul(expr))

        def _print_Mod(self, expr: Any) -> str:
            a, b = expr.args
            return f"{self.parenthesize(a, 50)}%{self.parenthesize(b, 50)}"

        def _print_Min(self, expr: Any) -> str:
            return "min(" + ",".join(self._print(a) for a in expr.args) + ")"

        def _print_Max(self, expr: Any) -> str:
            return "max(" + ",".join(self._print(a) for a in expr.args) + ")"

    return DimPrinter()


def render_dim(d: Dim | Star) -> str:
    if isinstance(d, (int, Unknown, Star)):
        return str(d)
    if getattr(d, "is_Symbol", False):
        return str(d.name)
    return _render_expression(d)


@functools.lru_cache(maxsize=4096)
def _render_expression(d: Any) -> str:
    """sympy's printer is slow and messages print the same few expressions again and again."""
    return str(_printer().doprint(d)).replace(" ", "")


def render_items(items: tuple[Item, ...], data_dim: int | None = None) -> str:
    parts = []
    for i, d in enumerate(items):
        s = render_dim(d)
        if data_dim is not None and (i == data_dim or (data_dim < 0 and i == len(items) + data_dim)):
            s += "!"
        parts.append(s)
    return "[" + " ".join(parts) + "]"


def render_shape(shape: Shape, data_dim: int | None = None) -> str:
    return render_items(shape.items, data_dim)


def describe_value(v: Value, other: Callable[[Value], str | None] | None = None) -> str:
    """What ``reveal_shape`` prints for a value; ``other`` names the front end's own values
    (instances of user classes, tensors with first-class dims)."""
    if other is not None:
        text = other(v)
        if text is not None:
            return text
    if isinstance(v, TensorV):
        return render_shape(v.shape)
    if isinstance(v, IntV):
        return f"int {render_dim(v.value)}"
    if isinstance(v, TupleV):
        return "(" + ", ".join(describe_value(i, other) for i in v.items) + ("," if len(v.items) == 1 else "") + ")"
    if isinstance(v, SeqV):
        return f"[{describe_value(v.elem, other)}, ...]"
    if isinstance(v, ModuleV):
        return v.qualname.rsplit(".", 1)[-1] + "(...)"
    if isinstance(v, DatasetV):
        size = "" if v.length is None or isinstance(v.length, Unknown) else f", {render_dim(v.length)} samples"
        return f"dataset of {describe_value(v.sample, other)}{size}"
    if isinstance(v, LoaderV):
        last = "" if v.last is None else f", last batch {describe_value(v.last, other)}"
        return f"loader of {describe_value(v.batch, other)}{last}"
    if isinstance(v, UnknownV):
        return "unknown" if v.why is None else f"unknown ({v.why})"
    if type(v) is mv.DictV:
        return "dict {" + ", ".join(repr(k) for k, _ in v.items) + "}"
    kind = type(v).__name__.removesuffix("V").lower()
    if isinstance(v, (mv.BoolV, mv.StrV, mv.FloatV)) and v.value is not None:
        return f"{kind} {v.value!r}"
    return kind
