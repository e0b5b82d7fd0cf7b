"""Constraints: relations between dims that the analysis needs but could not prove.

A requirement whose truth depends on an unknown size is a runtime obligation
(see :mod:`tensorshape.model.obligations`).  When both sides are dims (ints or
symbols), it is also recorded as a :class:`Constraint`, so that a shape
function (``tensorshape shapefn``) can check it from the input sizes alone.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .dims import Dim

__all__ = ["Rel", "Constraint"]


class Rel(enum.Enum):
    #: ``lhs == rhs``
    EQ = "=="
    #: ``lhs <= rhs``
    LE = "<="
    #: ``lhs % rhs == 0``
    DIVISIBLE = "divisible by"
    #: ``lhs == rhs or lhs == 1 or rhs == 1`` (the two broadcast)
    BROADCAST = "broadcasts with"
    #: ``lhs == rhs or lhs == 1`` (``expand``)
    EXPANDS = "expands to"


@dataclass(frozen=True, slots=True)
class Constraint:
    rel: Rel
    lhs: Dim
    rhs: Dim
    #: The one-line message of the requirement (``Linear: `x` dim 1 is d, expected in_features=k``).
    message: str
