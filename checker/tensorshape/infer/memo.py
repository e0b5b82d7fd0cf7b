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

_MISSING = object()


class CallMemo(dict[Any, V]):
    """``dict`` of memoised calls with :meth:`drop_holding`.

    The index maps ``id`` of each positional argument to the keys in the table that hold it (an
    entry removed by ``del`` or ``pop`` leaves the index too, so it keeps no argument alive); an
    ``id`` is still checked with ``is`` on use."""

    def __init__(self) -> None:
        super().__init__()
        self._holding: dict[int, dict[Any, None]] = {}

    @staticmethod
    def _args(key: Any) -> tuple[Any, ...]:
        return key[2] if isinstance(key, tuple) and len(key) > 2 and isinstance(key[2], tuple) else ()

    def __setitem__(self, key: Any, value: V) -> None:
        for arg in self._args(key):
            self._holding.setdefault(id(arg), {})[key] = None
        super().__setitem__(key, value)

    def _unindex(self, key: Any) -> None:
        for arg in self._args(key):
            held = self._holding.get(id(arg))
            if held is not None:
                held.pop(key, None)
                if not held:
                    del self._holding[id(arg)]

    def __delitem__(self, key: Any) -> None:
        super().__delitem__(key)
        self._unindex(key)

    def pop(self, key: Any, default: Any = _MISSING) -> Any:
        if key in self:
            self._unindex(key)
            return super().pop(key)
        if default is _MISSING:
            raise KeyError(key)
        return default

    def drop_holding(self, obj: object) -> None:
        """Drop every entry one of whose positional arguments is ``obj``."""
        held = self._holding.get(id(obj))
        if not held:
            return
        for key in list(held):
            if any(arg is obj for arg in self._args(key)):
                del self[key]
