"""Evaluate the dim expressions of shape specs (``d-1``, ``{self.x}*2``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model.dims import Dim, Unknown, UnknownSource
from ..model.spec import EBin, ECall, EInt, EName, ENeg, ERef, SpecExpr
from . import arith

__all__ = ["evaluate", "to_sympy_with", "render_expr"]

_OPS: dict[str, Callable[[Dim, Dim], Dim]] = {
    "+": arith.add,
    "-": arith.sub,
    "*": arith.mul,
    "//": arith.floordiv,
    "%": arith.mod,
    "**": arith.dpow,
}


def evaluate(
    e: SpecExpr, names: Callable[[str], Dim | None], refs: Callable[[str], Dim | None] | None = None
) -> Dim | None:
    """The value of ``e``; ``None`` when a name it uses is not bound yet."""
    if isinstance(e, EInt):
        return e.value
    if isinstance(e, EName):
        return names(e.name)
    if isinstance(e, ERef):
        v = refs(e.path) if refs else None
        return Unknown(UnknownSource.UNANNOTATED) if v is None else v
    if isinstance(e, ENeg):
        v = evaluate(e.operand, names, refs)
        return None if v is None else arith.neg(v)
    if isinstance(e, EBin):
        left = evaluate(e.left, names, refs)
        right = evaluate(e.right, names, refs)
        if left is None or right is None:
            return None
        return _OPS[e.op](left, right)
    if isinstance(e, ECall):
        vals = [evaluate(a, names, refs) for a in e.args]
        if any(v is None for v in vals):
            return None
        fn = arith.dmin if e.func == "min" else arith.dmax
        return fn(*vals)
    raise TypeError(e)


def to_sympy_with(
    e: SpecExpr,
    names: Callable[[str], Dim | None],
    unknown: str,
    x: Any,
    refs: Callable[[str], Dim | None] | None = None,
) -> Any:
    """``e`` as a sympy expression in ``x``, which stands for the unbound name ``unknown``."""

    def look(n: str) -> Dim | None:
        return x if n == unknown else names(n)

    v = evaluate(e, look, refs)
    if v is None or isinstance(v, Unknown):
        return None
    return arith.to_sympy(v)


def render_expr(e: SpecExpr) -> str:
    if isinstance(e, EInt):
        return str(e.value)
    if isinstance(e, EName):
        return e.name
    if isinstance(e, ERef):
        return "{" + e.path + "}"
    if isinstance(e, ENeg):
        return "-" + render_expr(e.operand)
    if isinstance(e, EBin):
        p = _PREC[e.op]
        left, right = render_expr(e.left), render_expr(e.right)
        if isinstance(e.left, EBin) and _PREC[e.left.op] < p:
            left = f"({left})"
        if isinstance(e.right, EBin) and (_PREC[e.right.op] < p or (_PREC[e.right.op] == p and e.op != "*")):
            right = f"({right})"
        return f"{left}{e.op}{right}"
    if isinstance(e, ECall):
        return f"{e.func}(" + ",".join(render_expr(a) for a in e.args) + ")"
    raise TypeError(e)


_PREC = {"+": 1, "-": 1, "*": 2, "//": 2, "%": 2, "**": 3}
