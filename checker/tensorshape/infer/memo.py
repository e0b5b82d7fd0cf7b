"""The table of memoised calls, indexed by the objects their positional arguments hold.

A call's memo key holds its arguments' values (``key[2]``).  When an object changes under the
analysis (an attribute written through an alias, a method that left its receiver unknown), every
call memoised with it as an argument is stale and is dropped.  Finding those by scanning the whole
table made each write cost the size of the table; the index makes it cost the entries concerned.
"""

from __future__ import annotations

from typing import Any, TypeVar

V = TypeVar("V")

__all__ = ["CallMemo"]


class CallMemo(dict[Any, V]):
    """``dict`` of memoised calls with :meth:`drop_holding`.

    The index maps ``id`` of each positional argument to the keys that held it when stored; an
    entry's arguments stay alive while it is in the table, so an ``id`` is checked with ``is`` on
    use (a stale key of a dead object is skipped)."""

    def __init__(self) -> None:
        super().__init__()
        self._holding: dict[int, list[Any]] = {}

    def __setitem__(self, key: Any, value: V) -> None:
        if key not in self and isinstance(key, tuple) and len(key) > 2 and isinstance(key[2], tuple):
            for arg in key[2]:
                self._holding.setdefault(id(arg), []).append(key)
        super().__setitem__(key, value)

    def drop_holding(self, obj: object) -> None:
        """Drop every entry one of whose positional arguments is ``obj``."""
        keys = self._holding.pop(id(obj), None)
        if not keys:
            return
        for key in keys:
            if key in self and any(arg is obj for arg in key[2]):
                del self[key]
