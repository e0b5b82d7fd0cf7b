"""First-class dimensions (``functorch.dim``): dim objects and tensors that bind them.

A :class:`DimV` is a dim object (``i, j = dims(2)``): an identity plus a name
for messages.  Its size is *bound by effect*, as in torch: the first tensor
axis it indexes (``A[i]``), ``i.size = 5`` or ``dims(sizes=[5])`` sets it, and
every later use must agree.  Sizes therefore live in :data:`SIZES`, keyed by
the identity (each evaluation of ``dims()`` makes new identities, so analyses
never share one).

A :class:`LevelTensorV` is a tensor with first-class dims: its positional part
(an ordinary :class:`TensorV`) plus the dims it is batched over, in order.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from .dims import Dim, Unknown
from .values import TensorV, Value

__all__ = ["DimV", "DimsV", "LevelTensorV", "DimTable", "SIZES", "new_dim"]

_IDS = itertools.count(1)


@dataclass(frozen=True, slots=True)
class DimV(Value):
    """A first-class dim object; equal only to itself (its identity)."""

    ident: int
    #: The variable it was first assigned to (``i``), for messages.
    name: str | None = field(default=None, compare=False)

    @property
    def label(self) -> str:
        return self.name or f"d{self.ident}"


@dataclass(frozen=True, slots=True)
class DimsV(Value):
    """``dims()`` without a count: as many dims as the assignment unpacks into."""

    sizes: tuple[Dim | None, ...] = ()


@dataclass(frozen=True, slots=True)
class LevelTensorV(Value):
    """A tensor with bound first-class dims (``A[i, k]``) besides its positional dims."""

    tensor: TensorV
    levels: tuple[DimV, ...]


class DimTable:
    """The size each dim object is bound to (absent: not bound yet)."""

    def __init__(self) -> None:
        self._sizes: dict[int, Dim] = {}

    def size(self, d: DimV) -> Dim | None:
        return self._sizes.get(d.ident)

    def set(self, d: DimV, size: Dim) -> None:
        if not isinstance(size, Unknown):
            self._sizes[d.ident] = size


#: Sizes of every dim object the analysis has made.
SIZES = DimTable()


def new_dim(size: Dim | None = None, name: str | None = None) -> DimV:
    d = DimV(next(_IDS), name)
    if size is not None:
        SIZES.set(d, size)
    return d
