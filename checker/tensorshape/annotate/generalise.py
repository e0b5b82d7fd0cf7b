"""Generalise observed shapes into the most specific jaxtyping annotations all observations satisfy.

Input: the recorded calls of one function (argument name -> description, see
:func:`tensorshape.annotate.trace.describe`).  Output: one annotation per tensor argument and for the
result.  The rules, in the order they apply to each axis (a column of sizes, one per call):

1. one call observed: every size is a literal, and a note says so;
2. a size equal in every call is a literal, unless configured as a variable size (``batch=32``);
3. leading axes whose number varies from call to call are a variadic ``*batch`` (one name for the
   arguments whose leading sizes agree in every call);
4. columns equal in every call are one named dim;
5. a column always equal to ``k*`` (k = 2..8), a product or a sum of earlier columns is that
   expression (``2*d``, ``h*w``, ``a+b``); earlier means checked earlier by jaxtyping (argument order);
6. a name comes from the code (``b, t, d = x.shape``), else from an int argument always equal to the
   size (``batch_size``), else from a function of the same module whose dim took the same sizes, else
   ``batch`` for a leading axis, else ``n``, ``m``, ``k``...
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FunctionAnnotations", "ModuleNames", "generalise", "dtype_class", "RESULT"]

#: The key of the result among a call's slots.
RESULT = "return"
_POOL = ("n", "m", "k", "p", "q", "r", "s", "u", "v")
_FLOAT = {"float16", "float32", "float64", "bfloat16", "half", "float", "double"}
_BOOL = {"bool"}
_COMPLEX = {"complex32", "complex64", "complex128", "cfloat", "cdouble"}


def dtype_class(dtypes: Sequence[str]) -> str:
    """The jaxtyping dtype class covering every observed torch dtype (``Shaped`` when they mix kinds)."""
    kinds = set()
    for d in dtypes:
        if d in _FLOAT or d.startswith("float8"):
            kinds.add("Float")
        elif d in _BOOL:
            kinds.add("Bool")
        elif d in _COMPLEX:
            kinds.add("Complex")
        elif d.startswith("uint"):
            kinds.add("UInt")
        elif d.startswith("int"):
            kinds.add("Int")
        else:
            kinds.add("Shaped")
    if kinds == {"Int", "UInt"}:
        return "Integer"
    return kinds.pop() if len(kinds) == 1 else "Shaped"


@dataclass
class ModuleNames:
    """Dim names given in one module so far, by the set of sizes they took (to reuse across functions)."""

    by_sizes: dict[frozenset[int], str] = field(default_factory=dict)
    #: Sizes configured as variable: ``{32: "batch"}`` writes a constant 32 as ``batch``.
    variable: dict[int, str] = field(default_factory=dict)


@dataclass
class FunctionAnnotations:
    #: Argument name (or :data:`RESULT`) -> annotation source (``Float[Tensor, "b d"]``).
    annotations: dict[str, str]
    #: Dtype classes used (for the imports).
    classes: set[str]
    notes: list[str]
    calls: int


@dataclass
class _Leaf:
    slot: str
    #: index inside a tuple, or None for a bare tensor
    index: int | None
    shapes: list[tuple[int, ...]]
    dtypes: list[str]
    dims: list[str] = field(default_factory=list)
    #: the calls that passed a tensor, when others passed None (an optional tensor)
    where: tuple[int, ...] | None = None


def _tensor(d: Any) -> bool:
    return isinstance(d, dict) and "shape" in d


def _none(d: Any) -> bool:
    return isinstance(d, dict) and "none" in d


def _leaves(slot: str, descs: list[Any]) -> list[_Leaf] | str:
    """The tensors of one slot in every call: a tensor, a tensor or None, or a tuple of tensors of
    fixed length."""
    if all(_tensor(d) for d in descs):
        return [_Leaf(slot, None, [tuple(d["shape"]) for d in descs], [d["dtype"] for d in descs])]
    if all(_tensor(d) or _none(d) for d in descs):
        where = tuple(i for i, d in enumerate(descs) if _tensor(d))
        if not where:
            return []
        picked = [descs[i] for i in where]
        return [_Leaf(slot, None, [tuple(d["shape"]) for d in picked], [d["dtype"] for d in picked], where=where)]
    if all(isinstance(d, dict) and "tuple" in d for d in descs):
        items = [d["tuple"] for d in descs]
        if len({len(i) for i in items}) == 1 and all(_tensor(x) for i in items for x in i):
            return [
                _Leaf(slot, k, [tuple(i[k]["shape"]) for i in items], [i[k]["dtype"] for i in items])
                for k in range(len(items[0]))
            ]
        return "a tuple whose length or items vary"
    if any(isinstance(d, dict) and ("list" in d or "dict" in d) for d in descs):
        return "a list or dict of tensors (not annotated)"
    return "not a tensor in every call"


def generalise(
    calls: Sequence[Mapping[str, Any]],
    order: Sequence[str],
    *,
    module: ModuleNames | None = None,
    code_names: Mapping[str, Sequence[str | None]] | None = None,
    known: Sequence[tuple[tuple[int, ...], str]] = (),
    reserved: Sequence[str] = (),
) -> FunctionAnnotations:
    """Annotations for the slots in ``order`` (argument names, then :data:`RESULT`) from ``calls``.

    ``known`` are the columns of dims the function's existing annotations name (reused, never the
    base of an expression: jaxtyping may bind them later); ``reserved`` are names not to give.
    """
    module = module if module is not None else ModuleNames()
    code_names = code_names or {}
    notes: list[str] = []
    n = len(calls)
    leaves: list[_Leaf] = []
    for slot in order:
        descs = [c.get(slot) for c in calls]
        if not any(_tensor(d) or (isinstance(d, dict) and ("tuple" in d or "list" in d or "dict" in d)) for d in descs):
            continue  # never a tensor: nothing to say (ints, flags, None)
        got = _leaves(slot, descs)
        if isinstance(got, str):
            notes.append(f"{slot}: {got}")
            continue
        leaves.extend(got)
    if n == 1:
        notes.append("one call observed: sizes are written as literals")
    ints = {
        slot: [c[slot]["int"] for c in calls]
        for slot in order
        if all(isinstance(c.get(slot), dict) and "int" in c[slot] for c in calls)
    }
    used: set[str] = set(reserved) | {name for _, name in known}
    named: list[tuple[Column, str]] = []  # columns named so far, in jaxtyping's checking order
    old: list[tuple[Column, str]] = list(known)
    variadics: list[tuple[list[tuple[int, ...]], str]] = []

    def fresh(prefer: Sequence[str]) -> str:
        for name in prefer:
            if name and name not in used:
                return name
        for name in _POOL:
            if name not in used:
                return name
        i = 0
        while f"d{i}" in used:
            i += 1
        return f"d{i}"

    for leaf in leaves:
        rank = min(len(s) for s in leaf.shapes)
        if len({len(s) for s in leaf.shapes}) > 1:
            # the variadic takes the varying axes before the trailing constant ones (``*batch 16``)
            while rank and len({s[len(s) - rank] for s in leaf.shapes}) > 1:
                rank -= 1
            lead = [s[: len(s) - rank] for s in leaf.shapes]
            name = next((v for heads, v in variadics if heads == lead), None)
            if name is None:
                name = fresh(["batch", "batch2", "batch3"])
                used.add(name)
                variadics.append((lead, name))
                notes.append(f"{leaf.slot}: the number of leading dims varies: *{name}")
            leaf.dims.append("*" + name)
        names_here = list(code_names.get(leaf.slot, ())) if leaf.index is None else []
        for axis in range(rank):
            col: tuple[int | None, ...] = tuple(s[len(s) - rank + axis] for s in leaf.shapes)
            if leaf.where is not None:  # None where the call passed no tensor
                at = dict(zip(leaf.where, col, strict=True))
                col = tuple(at.get(i) for i in range(n))
            leaf.dims.append(_dim(col, axis, rank, n, names_here, ints, module, named, old, used, fresh))
    annotations: dict[str, str] = {}
    classes: set[str] = set()
    for slot in order:
        mine = [leaf for leaf in leaves if leaf.slot == slot]
        if not mine:
            continue
        parts = []
        for leaf in mine:
            cls = dtype_class(leaf.dtypes)
            classes.add(cls)
            spec = " ".join(leaf.dims)
            if len(leaf.dims) == 1:
                spec = " " + spec  # jaxtyping's advice: a lone name is not a forward reference
            parts.append(f'{cls}[Tensor, "{spec}"]')
        annotations[slot] = parts[0] if mine[0].index is None else "tuple[" + ", ".join(parts) + "]"
        if mine[0].where is not None:
            annotations[slot] += " | None"
    return FunctionAnnotations(annotations, classes, notes, n)


Column = tuple[int | None, ...]


def _agree(a: Column, b: Column) -> bool:
    """Equal in every call where both are sizes (None: the call passed no tensor there)."""
    return all(x == y or x is None or y is None for x, y in zip(a, b, strict=True)) and any(
        x is not None and y is not None for x, y in zip(a, b, strict=True)
    )


def _dim(
    col: Column,
    axis: int,
    rank: int,
    calls: int,
    code: Sequence[str | None],
    ints: Mapping[str, list[int]],
    module: ModuleNames,
    named: list[tuple[Column, str]],
    old: list[tuple[Column, str]],
    used: set[str],
    fresh: Any,
) -> str:
    sizes = {x for x in col if x is not None}
    holes = None in col
    if len(sizes) == 1:
        size = next(iter(sizes))
        var = module.variable.get(size)
        if var is None or calls == 1:
            return str(size)
        for c, name in named:
            if _agree(c, col) and name == var:
                return name
        named.append((col, var))
        used.add(var)
        return var
    for c, name in (*named, *old):  # rule 4: varies together with an earlier column
        if c == col or (holes and _agree(c, col)):
            return name
    expr = None if holes else _expression(col, named)
    if expr is not None:
        return expr
    from_code = code[axis] if axis < len(code) and code[axis] else None
    from_int = [s for s, v in ints.items() if tuple(v) == col]
    again = module.by_sizes.get(frozenset(sizes))
    lead = "batch" if axis == 0 and rank >= 2 else None
    name = fresh([x for x in (from_code, *from_int, again, lead) if x])
    used.add(name)
    named.append((col, name))
    module.by_sizes.setdefault(frozenset(sizes), name)
    return str(name)


def _expression(col: Column, named: list[tuple[Column, str]]) -> str | None:
    bases = [(c, name) for c, name in named if len(set(c)) > 1 and None not in c and name.isidentifier()]
    for c, name in bases:
        for k in range(2, 9):
            if all(x == k * y for x, y in zip(col, c, strict=True)):  # type: ignore[operator]
                return f"{k}*{name}"
    for i, (a, na) in enumerate(bases):
        for b, nb in bases[i:]:
            if all(x == y * z for x, y, z in zip(col, a, b, strict=True)):  # type: ignore[operator]
                return f"{na}*{nb}"
    for i, (a, na) in enumerate(bases):
        for b, nb in bases[i:]:
            if all(x == y + z for x, y, z in zip(col, a, b, strict=True)):  # type: ignore[operator]
                return f"{na}+{nb}"
    return None
