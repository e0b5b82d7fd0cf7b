"""Values one analysis takes from another: the opaque size names they hold.

Each analysis names its fresh sizes on its own (``n``, ``n'``...): a name means one size only inside
the analysis that gave it.  A value made by another analysis (a memoised call's result, a cached
instance, a module's global bound by the module's run) may hold a symbol whose name this analysis
gives to a different size, and the two would then read as one (``[1 n n]`` for a ``[1 3 18]``).
:func:`opaque_names` lists what such a value holds, for
:meth:`~tensorshape.unify.symbols.SymbolTable.adopt`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

import libcst as cst

from ..model.dims import Star, Unknown
from ..model.shape import Shape
from ..unify.symbols import is_rigid_symbol
from .project import ModuleInfo
from .values import ClassV, FunctionV, InstanceV, LambdaV

__all__ = ["opaque_names"]


def opaque_names(values: Iterable[Any]) -> frozenset[str]:
    """The names of the opaque symbols ``values`` hold, through containers, instances' attributes,
    closures and every other field of a value (cycles through instances are followed once)."""
    out: set[str] = set()
    seen: set[int] = set()
    todo: list[Any] = list(values)
    while todo:
        v = todo.pop()
        if v is None or isinstance(v, (int, float, str, bool, Unknown, Star, cst.CSTNode, ClassV, ModuleInfo)):
            continue
        if isinstance(v, Shape):
            todo.extend(v.items)
        elif isinstance(v, (tuple, list, set, frozenset)):
            todo.extend(v)
        elif isinstance(v, dict):
            todo.extend(v.values())
        elif isinstance(v, (InstanceV, FunctionV, LambdaV)):
            if id(v) in seen:
                continue
            seen.add(id(v))
            todo.append(v.attrs if isinstance(v, InstanceV) else v.closure)
        elif dataclasses.is_dataclass(v):
            todo.extend(getattr(v, f.name) for f in dataclasses.fields(v))
        elif hasattr(v, "free_symbols"):
            out.update(s.name for s in v.free_symbols if not is_rigid_symbol(s))
    return frozenset(out)
