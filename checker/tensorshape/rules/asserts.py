"""What an ``assert`` between two values tells about dims, for any front end.

``assert x.shape[1] == w.shape[0]``, ``assert x.shape == y.shape``,
``assert x.shape == (b, 3)`` relate dims pairwise; ``assert d % h == 0`` says
``h`` divides ``d``.  The front end evaluates the operands; these functions
turn the values into :class:`~tensorshape.unify.facts.Facts`.
"""

from __future__ import annotations

from ..model.values import IntV, TupleV, Value
from ..unify.facts import Facts

__all__ = ["assume_equal", "assume_divisible"]


def assume_equal(facts: Facts, a: Value, b: Value) -> Facts:
    """``a == b``: two sizes, or two shapes (tuples of sizes) of one length, dim by dim."""
    if isinstance(a, IntV) and isinstance(b, IntV):
        return facts.assume_eq(a.value, b.value)
    if isinstance(a, TupleV) and isinstance(b, TupleV) and len(a.items) == len(b.items):
        for x, y in zip(a.items, b.items):
            if isinstance(x, IntV) and isinstance(y, IntV):
                facts = facts.assume_eq(x.value, y.value)
    return facts


def assume_divisible(facts: Facts, dividend: Value, divisor: Value) -> Facts:
    """``dividend % divisor == 0``."""
    if isinstance(dividend, IntV) and isinstance(divisor, IntV):
        return facts.assume_divides(divisor.value, dividend.value)
    return facts
