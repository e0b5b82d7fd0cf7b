"""Random integers drawn in a known range (issue 16: a ``RandomCrop`` at a random offset).

``i = random.randint(0, h - size)`` or ``i = int(torch.randint(0, h - size + 1, (1,)))`` is an int the
code does not know, but it is known to lie in a range: a fresh symbol with the facts ``low <= i`` and
``i + 1 <= high``, so ``img[:, i : i + size]`` has ``size`` rows wherever ``i + size <= h`` follows
(:func:`~tensorshape.rules.ops.index.slice_length` reads the facts).  The range a draw is in:

- ``random.randint(a, b)``: ``a <= i <= b`` (both ends included);
- ``random.randrange(b)`` / ``random.randrange(a, b)`` (no step): ``a <= i < b``;
- ``torch.randint(high, size)`` / ``torch.randint(low, high, size)``: each element in ``[low, high)``,
  read back as an int by ``int(t)``, ``t.item()`` or, one symbol per element, ``t.tolist()``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..model.dims import Dim, Unknown
from ..rules.context import Arg
from ..unify import arith
from ..unify.facts import Facts

__all__ = ["MAX_DRAWN_LIST", "draw", "random_bounds", "randint_bounds"]

#: ``torch.randint(0, 9, (k,)).tolist()`` gives one symbol per element up to this many elements.
MAX_DRAWN_LIST = 8

Bounds = tuple[Dim, Dim]
IntOf = Callable[[Arg], Dim | None]


def _known(d: Dim | None) -> bool:
    return d is not None and not isinstance(d, Unknown)


def randint_bounds(args: Sequence[Arg], kwargs: Mapping[str, Arg], int_of: IntOf) -> Bounds | None:
    """``[low, high)`` of ``torch.randint``'s elements, when both ends are known or symbolic."""
    pos = list(args)
    if "size" not in kwargs and pos:
        pos = pos[:-1]  # the last positional is the size
    low_a = kwargs.get("low", pos[0] if len(pos) == 2 else None)
    high_a = kwargs.get("high", pos[-1] if pos and len(pos) <= 2 else None)
    if len(pos) > 2 or high_a is None:
        return None
    low = 0 if low_a is None else int_of(low_a)
    high = int_of(high_a)
    if not (_known(low) and _known(high)):
        return None
    assert low is not None and high is not None
    return low, high


def random_bounds(name: str, args: Sequence[Arg], kwargs: Mapping[str, Arg], int_of: IntOf) -> Bounds | None:
    """``[low, high)`` of ``random.randint(a, b)`` (``b`` included) or of a ``random.randrange``
    without a step; ``None`` for any other call."""
    if kwargs:
        return None
    if name == "randint" and len(args) == 2:
        a, b = int_of(args[0]), int_of(args[1])
        if _known(a) and _known(b):
            assert a is not None and b is not None
            return a, arith.add(b, 1)
    if name == "randrange" and len(args) in (1, 2):
        ends = [int_of(x) for x in args]
        if all(_known(e) for e in ends):
            lo: Dim = 0 if len(ends) == 1 else ends[0]
            hi: Dim = ends[-1]
            return lo, hi
    return None


def draw(fresh: Callable[[str], Dim], facts: Facts, bounds: Bounds) -> tuple[Dim, Facts]:
    """A fresh int in ``[low, high)`` and the facts that say so."""
    low, high = bounds
    i = fresh("drawn")
    return i, facts.assume_le(low, i).assume_le(arith.add(i, 1), high)
