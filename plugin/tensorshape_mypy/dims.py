"""First-class dims (``functorch.dim``) for mypy: no noise from code that uses them.

functorch ships no ``py.typed``: with ``ignore_missing_imports`` (or
``# type: ignore[import-untyped]``) its names are ``Any`` for mypy, but torch's
own annotations turn ``A[i, k]`` (an index by dims) and ``torch.where(i <= j, a, 0)``
back into a ``Tensor``, and then ``.order(i, j)`` is an ``attr-defined`` error
although the value is functorch's dim tensor.  A ``torch`` function or
``Tensor`` method that receives a value derived from ``functorch`` is typed
``Any`` instead, as the values it was given.  The shapes are the core
analysis's business (docs/first-class-dims.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from mypy.nodes import Import, ImportFrom, MypyFile
from mypy.plugin import FunctionContext, MethodContext
from mypy.types import AnyType, Instance, TupleType, Type, TypeOfAny, UnionType, get_proper_type

__all__ = ["dim_result"]

_FUNCTORCH = "functorch"


def _imported_from(modules: Mapping[str, MypyFile], local: str) -> str:
    """What the name ``module.name``, made ``Any`` by an unfollowed import, was imported from."""
    module, _, name = local.rpartition(".")
    file = modules.get(module)
    for imp in file.imports if file is not None else ():
        if isinstance(imp, ImportFrom) and not imp.relative:
            for n, as_name in imp.names:
                if (as_name or n) == name:
                    return f"{imp.id}.{n}"
        elif isinstance(imp, Import):
            for mod, as_name in imp.ids:
                if (as_name or mod.partition(".")[0]) == name:
                    return mod
    return local


def _from_functorch(t: Type, modules: Mapping[str, MypyFile], depth: int = 0) -> bool:
    p = get_proper_type(t)
    if isinstance(p, AnyType):
        src = p.source_any if p.source_any is not None else p
        local = src.missing_import_name
        return local is not None and _imported_from(modules, local).startswith(_FUNCTORCH)
    if isinstance(p, Instance):
        return p.type.fullname.startswith(_FUNCTORCH)
    if isinstance(p, (TupleType, UnionType)) and depth < 3:
        # ``A[i, k]``, ``A[(i, j), k]``; the depth bound stops at recursive types.
        return any(_from_functorch(i, modules, depth + 1) for i in p.items)
    return False


def dim_result(ctx: FunctionContext | MethodContext, modules: Mapping[str, MypyFile]) -> Type:
    """``Any`` for a call given first-class dims (or their tensors), mypy's own type otherwise."""
    for ts in ctx.arg_types:
        for t in ts:
            if _from_functorch(t, modules):
                p = get_proper_type(t)
                if isinstance(p, AnyType):
                    return AnyType(TypeOfAny.from_another_any, source_any=p.source_any or p)
                return AnyType(TypeOfAny.special_form)
    return ctx.default_return_type
