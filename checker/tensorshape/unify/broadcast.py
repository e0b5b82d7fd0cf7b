"""Broadcasting, with symbolic and unknown dims.

Symbolic dims are assumed not to be 1 when the rules ask (as torch's dynamic
shapes specialise 0 and 1); an unknown dim or an opaque symbol might be 1, so
broadcasting against it is a runtime obligation, never an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..model.dims import Dim, Star, Unknown, UnknownSource
from ..model.shape import Item, Shape
from .compare import Truth, Verdict, classify, eq3, ne1
from .facts import NO_FACTS, Facts

__all__ = ["BroadcastIssue", "broadcast_dims", "broadcast_shapes"]


@dataclass(frozen=True, slots=True)
class BroadcastIssue:
    #: Position counted from the right (-1 is the last dim).
    position: int
    #: The dims at that position, one per input (``None`` where an input is too short).
    dims: tuple[Dim | None, ...]
    verdict: Verdict


def broadcast_dims(dims: Sequence[Dim], facts: Facts = NO_FACTS) -> tuple[Dim, Verdict]:
    """The broadcast of dims at one position, and whether it is valid."""
    if any(type(d) is Unknown and d.source is UnknownSource.ERROR for d in dims):
        # A dim of a value that already produced an error: its error was reported once, and a size
        # taken from the other operand would only report it again further on.
        return Unknown(UnknownSource.ERROR), Verdict.OK
    sure: list[Dim] = []  # definitely not 1
    unsure: list[Dim] = []  # might be 1
    for d in dims:
        t = ne1(d, facts)
        if t is Truth.TRUE:
            sure.append(d)
        elif t is Truth.UNKNOWN:
            unsure.append(d)
    verdict = Verdict.OK
    if sure:
        first = next((d for d in sure if type(d) is int), sure[0])
        for d in sure:
            v = classify(eq3(first, d, facts), first, d)
            if v is Verdict.ERROR:
                return Unknown(UnknownSource.ERROR), Verdict.ERROR
            if v is not Verdict.OK and verdict is Verdict.OK:
                verdict = v
        for d in unsure:
            if eq3(first, d, facts) is not Truth.TRUE and verdict is Verdict.OK:
                verdict = Verdict.OBLIGATION
        return first, verdict
    if not unsure:
        return 1, Verdict.OK
    first = unsure[0]
    if all(eq3(first, d, facts) is Truth.TRUE for d in unsure[1:]):
        return first, Verdict.OK
    return Unknown(UnknownSource.UNANNOTATED), Verdict.OBLIGATION


def broadcast_shapes(shapes: Sequence[Shape], facts: Facts = NO_FACTS) -> tuple[Shape, list[BroadcastIssue]]:
    """Broadcast shapes together (``torch.broadcast_shapes``)."""
    if len(shapes) == 1:
        return shapes[0], []
    starred = [s for s in shapes if s.star_index is not None]
    issues: list[BroadcastIssue] = []
    if not starred:
        n = max(len(s.items) for s in shapes)
        out: list[Item] = []
        for pos in range(-n, 0):
            col = tuple(s.items[pos] if -pos <= len(s.items) else None for s in shapes)
            d, v = broadcast_dims([c for c in col if c is not None], facts)
            if v is not Verdict.OK:
                issues.append(BroadcastIssue(pos, col, v))
            out.append(d)
        return Shape(tuple(out)), issues
    k = min(len(s.suffix) for s in starred)
    out_suffix: list[Item] = []
    for pos in range(-k, 0) if k else ():
        col = tuple(s.items[pos] if -pos <= len(s.items) else None for s in shapes)
        d, v = broadcast_dims([c for c in col if c is not None], facts)
        if v is not Verdict.OK:
            issues.append(BroadcastIssue(pos, col, v))
        out_suffix.append(d)
    names = {s.star.name for s in starred if s.star is not None}
    exact = (
        len(names) == 1
        and None not in names
        and all(s.star_index == 0 and len(s.suffix) == k for s in starred)
        and all(len(s.items) <= k for s in shapes if s.star_index is None)
    )
    if not exact and _may_conflict(shapes, k):
        # Dims left of the common suffix meet a run of unknown length: whether they broadcast
        # depends on it, so it is checked at run time (never an error: some length may fit).
        issues.append(BroadcastIssue(-k - 1, (), Verdict.OBLIGATION))
    fixed = [s for s in shapes if s.star_index is None]
    if len(fixed) >= 2 and not any(i.verdict is Verdict.ERROR for i in issues):
        # Shapes broadcast pairwise: two of known rank that do not fail in any company, whatever
        # length the others' runs take (``[3 1 3]`` with ``[3 3 2 2]`` beside a ``[*b]``).
        issues += [i for i in broadcast_shapes(fixed, facts)[1] if i.verdict is Verdict.ERROR]
    star = Star(names.pop()) if exact else Star(None, UnknownSource.UNANNOTATED)
    return Shape((star, *out_suffix)), issues


def _may_conflict(shapes: Sequence[Shape], k: int) -> bool:
    """Whether two of ``shapes`` (some holding a named run) may have dims that do not broadcast left
    of their ``k`` common trailing dims.  A shape of which nothing is known is left alone (as an
    unknown dim is), and so are copies of one shape."""
    if any(s.is_unknown for s in shapes):
        return False
    longer = [s for s in shapes if s.star_index is not None or len(s.items) > k]
    return len(longer) >= 2 and len({s.items for s in longer}) > 1
