"""Shapes: a tuple of dims, with at most one run of unknown length."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TypeAlias, Union

from .dims import Dim, Star, Unknown, UnknownSource

__all__ = ["Item", "Shape"]

#: One element of a shape: a dim, or a run of dims of unknown length.
Item: TypeAlias = Union[Dim, Star]


@dataclass(frozen=True, slots=True)
class Shape:
    """The shape of a tensor.

    ``items`` holds dims and at most one :class:`Star`.  A shape without a star
    has a known rank.  ``Shape.unknown()`` (a lone anonymous star) is a tensor
    about which nothing is known.
    """

    items: tuple[Item, ...]

    def __post_init__(self) -> None:
        stars = sum(1 for i in self.items if isinstance(i, Star))
        if stars > 1:
            raise ValueError(f"a shape holds at most one variadic run: {self.items!r}")

    # -- construction ------------------------------------------------------
    @staticmethod
    def of(*dims: Dim) -> Shape:
        return Shape(tuple(dims))

    @staticmethod
    def unknown(source: UnknownSource = UnknownSource.UNANNOTATED) -> Shape:
        return Shape((Star(None, source),))

    @staticmethod
    def scalar() -> Shape:
        return _SCALAR

    # -- structure ---------------------------------------------------------
    @property
    def star_index(self) -> int | None:
        for i, item in enumerate(self.items):
            if isinstance(item, Star):
                return i
        return None

    @property
    def star(self) -> Star | None:
        i = self.star_index
        return None if i is None else self.items[i]  # type: ignore[return-value]

    @property
    def rank(self) -> int | None:
        """The number of dims, or ``None`` when a run of unknown length is present."""
        return None if self.star_index is not None else len(self.items)

    @property
    def min_rank(self) -> int:
        return len(self.items) - (0 if self.star_index is None else 1)

    @property
    def dims(self) -> tuple[Dim, ...]:
        """The dims of a shape of known rank."""
        if self.star_index is not None:
            raise ValueError("shape has unknown rank")
        return self.items

    @property
    def prefix(self) -> tuple[Dim, ...]:
        """Dims before the variadic run (all dims when the rank is known)."""
        i = self.star_index
        return self.items if i is None else self.items[:i]

    @property
    def suffix(self) -> tuple[Dim, ...]:
        """Dims after the variadic run (empty when the rank is known)."""
        i = self.star_index
        return () if i is None else self.items[i + 1 :]

    def dim(self, index: int) -> Dim | None:
        """The dim at ``index`` (negative counts from the end).

        ``None`` when the index falls outside a known-rank shape; ``Unknown``
        when it falls into the variadic run.
        """
        i = self.star_index
        if i is None:
            n = len(self.items)
            if -n <= index < n:
                return self.items[index]
            return None
        if index >= 0:
            return self.items[index] if index < i else Unknown(self.items[i].source)  # type: ignore[union-attr]
        after = len(self.items) - i - 1
        if -index <= after:
            return self.items[index]
        return Unknown(self.items[i].source)  # type: ignore[union-attr]

    def sliced(self, start: int | None, stop: int | None) -> Shape | None:
        """The sizes ``shape[start:stop]`` as a shape, where each bound falls among the dims before or
        after the variadic run (``[b *s c][:-1]`` is ``[b *s]``); ``None`` where a bound falls into the
        run, or a start counted from the end meets a stop counted from the front."""
        i = self.star_index
        if i is None:
            return Shape(self.items[start:stop])
        after = len(self.items) - i - 1

        def place(bound: int, front: bool) -> int | None:
            if front:
                return bound if bound <= i else None
            return len(self.items) - bound if bound <= after else None

        lo = place(start or 0, True) if start is None or start >= 0 else place(-start, False)
        hi = place(0, False) if stop is None else place(stop, True) if stop >= 0 else place(-stop, False)
        if lo is None or hi is None or (start is not None and start < 0 and (stop is not None and stop >= 0)):
            return None
        return Shape(self.items[lo:hi]) if lo <= hi else None

    def __iter__(self) -> Iterator[Item]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def is_static(self) -> bool:
        """All dims are plain ints (fully concrete)."""
        return all(type(d) is int for d in self.items)

    @property
    def is_unknown(self) -> bool:
        return len(self.items) == 1 and isinstance(self.items[0], Star) and self.items[0].name is None

    def with_items(self, items: tuple[Item, ...]) -> Shape:
        return Shape(items)


_SCALAR = Shape(())
