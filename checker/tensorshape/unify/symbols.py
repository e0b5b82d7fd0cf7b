"""Symbols for dims.

*Rigid* symbols are the dim names of annotations: the annotated code must work
for every value of them, so two different rigid names that an operation needs
equal are an error (``symbolic-mismatch``).  They are positive integers.

*Opaque* symbols stand for a size that exists but is unknown statically (an int
parameter, ``b, t = x.shape`` of an unannotated ``x``).  A requirement on them
becomes a runtime obligation.  They are non-negative integers, which also keeps
them distinct from a rigid symbol of the same name.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sympy

__all__ = ["sp", "rigid", "opaque", "is_rigid_symbol", "SymbolTable"]


@functools.cache
def sp() -> Any:
    """The sympy module, imported on first use (it costs ~0.3 s)."""
    import sympy

    return sympy


@functools.lru_cache(maxsize=4096)
def rigid(name: str) -> sympy.Symbol:
    """The rigid symbol for an annotation dim name."""
    return sp().Symbol(name, integer=True, positive=True)


@functools.lru_cache(maxsize=4096)
def opaque(name: str) -> sympy.Symbol:
    """The opaque symbol with this exact name (see :meth:`SymbolTable.fresh`)."""
    return sp().Symbol(name, integer=True, nonnegative=True)


def is_rigid_symbol(sym: Any) -> bool:
    return bool(sym.is_positive)


class SymbolTable:
    """Hands out opaque symbols with names unique within one analysis.

    ``SymbolTable(shared)`` shares its opaque names with ``shared`` (the analyses
    of one class's methods: ``self.n_head`` is one symbol in all of them, and a
    method's own ``n_head`` gets another name) but keeps its own reserved names.

    Names are unique within one table only: a value another analysis made (a memoised call, a cached
    instance, a module's global) may hold a symbol whose name this table gives to another size.
    :meth:`adopt` takes such names in (or says they clash), keyed by the other table's ``token``.
    """

    __slots__ = ("_used", "_reserved", "_adopted", "token")

    _tokens = itertools.count(1)

    def __init__(self, shared: SymbolTable | None = None) -> None:
        self._used: set[str] = shared._used if shared is not None else set()
        self._reserved: set[str] = set()
        #: Names taken from another table's values: name -> that table's token.
        self._adopted: dict[str, int] = shared._adopted if shared is not None else {}
        #: Tables that share their names share this token (a value made by one is the other's too).
        self.token: int = shared.token if shared is not None else next(SymbolTable._tokens)

    def names(self) -> frozenset[str]:
        """The opaque names handed out so far (shared ones included)."""
        return frozenset(self._used)

    def restore(self, names: frozenset[str]) -> None:
        """Make ``names`` the opaque names handed out (what :meth:`names` gave), for tables sharing them too."""
        self._used.clear()
        self._used.update(names)

    def adopt(self, names: Iterable[str], source: int) -> bool:
        """Take the opaque ``names`` of values the table with token ``source`` made into this one.

        ``False``, taking nothing, when one of them is a name this table gave to another size (its
        own, or one taken from a third table): the two would read as one size.  Otherwise every later
        fresh symbol here avoids them."""
        if source == self.token:
            return True
        names = list(names)
        if any(self._adopted.get(n) != source and (n in self._used or n in self._reserved) for n in names):
            return False
        for n in names:
            self._used.add(n)
            self._adopted[n] = source
        return True

    def reserve(self, name: str) -> None:
        """Mark a (rigid) name as taken, so opaque symbols do not reuse it."""
        self._reserved.add(name)

    def fresh(self, base: str) -> sympy.Symbol:
        base = base.rstrip("'") or "n"
        name = base
        while name in self._used or name in self._reserved:
            name += "'"
        self._used.add(name)
        return opaque(name)
