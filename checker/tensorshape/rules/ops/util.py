"""Helpers shared by the Python rules."""

from __future__ import annotations

from collections.abc import Sequence

from ...lang.render import render_dim
from ...model import codes
from ...model.dims import Dim, Star, Unknown, UnknownSource
from ...model.shape import Item, Shape
from ...unify.compare import Truth, Verdict, classify, eq3
from ...unify.facts import Facts
from ..call import Call

__all__ = ["wrap_dim", "wrap_dims", "shapes_equal", "replace", "spec_text", "UNKNOWN_DIM"]

UNKNOWN_DIM = Unknown(UnknownSource.UNANNOTATED)


def wrap_dim(call: Call, dim: Dim | None, shape: Shape, at: str, *, extra: int = 0) -> int | None:
    """Turn a dim argument into an index into ``shape.items``.

    ``extra`` widens the valid range (``unsqueeze`` accepts ``rank`` itself).
    Reports ``dim-out-of-range``; returns ``None`` when the index is invalid
    or cannot be determined (symbolic dim, or it falls inside an unknown run).
    """
    if dim is None or type(dim) is not int:
        return None
    rank = shape.rank
    if rank is not None:
        r = rank + extra
        lo, hi = (-max(r, 1), max(r, 1) - 1)
        if not lo <= dim <= hi:
            call.error(
                codes.DIM_RANGE,
                f"dim {dim} is out of range for {render_dim_list(shape)} (rank {rank}; valid {lo}..{hi})",
                at,
                "count dims from 0, or from -1 at the end",
            )
            return None
        return dim % max(r, 1) if r else 0
    i = shape.star_index
    assert i is not None
    if dim >= 0:
        return dim if dim < i + extra else None
    back = len(shape.items) - i - 1 + extra
    return len(shape.items) + extra + dim if -dim <= back else None


def wrap_dims(call: Call, dims: Sequence[Dim], shape: Shape, at: str) -> list[int] | None:
    out: list[int] = []
    for d in dims:
        w = wrap_dim(call, d, shape, at)
        if w is None:
            return None
        out.append(w)
    if len(set(out)) != len(out):
        call.error(codes.INVALID_ARG, f"dim {dims} repeats a dim", at)
        return None
    return out


def render_dim_list(shape: Shape) -> str:
    return "[" + " ".join(render_dim(d) for d in shape.items) + "]"


def shapes_equal(a: Shape, b: Shape, facts: Facts) -> Verdict:
    """Are two shapes equal?  (Same rank, every dim equal.)"""
    if a.items == b.items:
        return Verdict.OK
    if a.rank is None or b.rank is None:
        return Verdict.OBLIGATION
    if a.rank != b.rank:
        return Verdict.ERROR
    worst = Verdict.OK
    order = {Verdict.OK: 0, Verdict.OBLIGATION: 1, Verdict.UNPROVEN: 2, Verdict.ERROR: 3}
    for x, y in zip(a.dims, b.dims):
        v = classify(eq3(x, y, facts), x, y)
        if order[v] > order[worst]:
            worst = v
    return worst


def replace(shape: Shape, index: int, new: Sequence[Item]) -> Shape:
    """``shape`` with ``items[index]`` replaced by ``new`` (zero or more items)."""
    items = list(shape.items)
    items[index : index + 1] = list(new)
    if sum(isinstance(x, Star) for x in items) > 1:
        return Shape.unknown()
    return Shape(tuple(items))


def spec_text(items: Sequence[Item]) -> str:
    """A shape string for a runtime check: ints and names as they are, unknown dims as ``_``."""
    out = []
    for d in items:
        if isinstance(d, Star):
            out.append("...")
        elif isinstance(d, Unknown):
            out.append("_")
        elif isinstance(d, int) or (getattr(d, "is_Symbol", False) and str(getattr(d, "name", "")).isidentifier()):
            out.append(render_dim(d))
        else:
            out.append("_")
    return " ".join(out)


def truth(ok: bool) -> Truth:
    return Truth.TRUE if ok else Truth.FALSE
