"""Generalise observed shapes into the most specific jaxtyping annotations all observations satisfy.

Input: the recorded calls of one function (argument name -> description, see
:func:`tensorshape.annotate.trace.describe`).  Output: one annotation per tensor argument and for the
result (a list, dict or tuple of varying length of tensors gets one annotation for its items; an
axis whose size differs between the items of one call is ``_``).  The rules, in the order they apply to each axis (a column of sizes, one per call):

1. one call observed: every size is a literal, and a note says so;
2. a size equal in every call is a literal, unless configured as a variable size (``batch=32``), or
   it is the last axis and equal in every call to one int argument of the constructor of ``self``
   (``query_dim``: the size is the configuration's, the run had one configuration);
3. leading axes whose number varies from call to call are a variadic ``*batch`` (one name for the
   arguments whose leading sizes agree in every call);
4. columns equal in every call are one named dim;
5. a column always equal to ``k*`` (k = 2..8), a product or a sum of earlier columns is that
   expression (``2*d``, ``h*w``, ``a+b``); earlier means checked earlier by jaxtyping (argument order);
6. a name comes from the code (``b, t, d = x.shape``), else from an int argument always equal to the
   size (``batch_size``), else from a constructor argument of ``self`` always equal to it
   (``context_dim``; on the last axis, or with three sizes or more: two sizes of a sequence axis equal
   to two ``dim_head`` values are a coincidence of the run), else from a function of the same module whose dim took the same sizes, else
   ``batch`` for a leading axis, else ``n``, ``m``, ``k``...
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FunctionAnnotations", "ModuleNames", "generalise", "dtype_class", "RESULT", "INIT"]

#: The key of the result among a call's slots.
RESULT = "return"
#: The key of the int arguments ``self`` was constructed with, among a method call's slots.
INIT = "self.__init__"
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
    #: index inside a fixed-length tuple, or None
    index: int | None
    shapes: list[tuple[int, ...]]
    dtypes: list[str]
    dims: list[str] = field(default_factory=list)
    #: the call of each shape, when not one shape per call (a tensor left out or None in some calls,
    #: the items of a list, a dict or a tuple of varying length)
    where: tuple[int, ...] | None = None
    #: ``list``, ``dict`` or ``tuple`` when the leaf is every item of a container of tensors
    items: str | None = None
    #: a call passed None
    none: bool = False


def _tensor(d: Any) -> bool:
    return isinstance(d, dict) and "shape" in d


def _none(d: Any) -> bool:
    return isinstance(d, dict) and "none" in d


def _int(d: Any) -> bool:
    return isinstance(d, dict) and "int" in d


def _contents(d: Any) -> tuple[str, list[Any]] | None:
    """A container's kind and items (a dict's values), or None."""
    if not isinstance(d, dict):
        return None
    for kind in ("list", "tuple"):
        if kind in d:
            return kind, list(d[kind])
    if "dict" in d:
        return "dict", list(d["dict"].values())
    return None


def _leaves(slot: str, descs: list[Any], missing_ok: bool = False) -> list[_Leaf] | str:
    """The tensors of one slot in every call: a tensor, a tensor or None, a tuple of tensors of fixed
    length, or the items of a list, dict or tuple of tensors.  ``missing_ok``: a call without a
    tensor there (the parameter's default, not None, was used) is a hole, not a reason to give up."""
    given = [i for i, d in enumerate(descs) if not (_none(d) or (missing_ok and (d is None or _int(d))))]
    none = any(_none(d) for d in descs)
    if not given:
        return []
    where = None if len(given) == len(descs) else tuple(given)
    picked = [descs[i] for i in given]
    if all(_tensor(d) for d in picked):
        return [
            _Leaf(slot, None, [tuple(d["shape"]) for d in picked], [d["dtype"] for d in picked], where=where, none=none)
        ]
    got = [_contents(d) for d in picked]
    if any(g is None for g in got):
        return "not a tensor in every call"
    kinds = {g[0] for g in got if g is not None}
    if len(kinds) > 1:
        return "a tuple in some calls, a list or dict in others"
    kind = kinds.pop()
    items = [g[1] for g in got if g is not None]
    if not all(_tensor(x) for i in items for x in i):
        return f"a {kind} whose items are not all tensors"
    if kind == "tuple" and len({len(i) for i in items}) == 1 and where is None:
        return [
            _Leaf(slot, k, [tuple(i[k]["shape"]) for i in items], [i[k]["dtype"] for i in items])
            for k in range(len(items[0]))
        ]
    if kind == "dict" and any(d.get("keys", "str") != "str" for d in picked):
        return "a dict whose keys are not all strings"
    shapes = [tuple(x["shape"]) for i in items for x in i]
    if not shapes:
        return f"an empty {kind} in every call"
    if len({len(s) for s in shapes}) > 1:
        return f"a {kind} whose tensors differ in rank"
    calls = tuple(c for c, i in zip(given, items, strict=True) for _ in i)
    dtypes = [x["dtype"] for i in items for x in i]
    return [_Leaf(slot, None, shapes, dtypes, where=calls, items=kind, none=none)]


def generalise(
    calls: Sequence[Mapping[str, Any]],
    order: Sequence[str],
    *,
    module: ModuleNames | None = None,
    code_names: Mapping[str, Sequence[str | None]] | None = None,
    known: Sequence[tuple[tuple[int, ...], str]] = (),
    reserved: Sequence[str] = (),
    defaulted: Collection[str] = (),
) -> FunctionAnnotations:
    """Annotations for the slots in ``order`` (argument names, then :data:`RESULT`) from ``calls``.

    ``known`` are the columns of dims the function's existing annotations name (reused, never the
    base of an expression: jaxtyping may bind them later); ``reserved`` are names not to give;
    ``defaulted`` are parameters whose default (not None) some calls may have used: a call without
    a tensor there says nothing about the tensor's dims.  A call's :data:`INIT` (the int arguments
    its ``self`` was constructed with) names the sizes equal to one of them.
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
        got = _leaves(slot, descs, slot in defaulted)
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
    inits = [c.get(INIT) or {} for c in calls]
    ctor = {k: [i[k] for i in inits] for k in inits[0] if all(isinstance(i.get(k), int) for i in inits)} if n else {}
    used: set[str] = set(reserved) | {name for _, name in known}
    named: list[tuple[Column, str]] = []  # columns named so far, in jaxtyping's checking order
    old: list[tuple[Column, str]] = list(known)
    variadics: list[tuple[list[tuple[int, ...]], str]] = []
    configured: set[str] = set()  # names of constant sizes equal to a constructor argument

    def fresh(prefer: Sequence[str]) -> str:
        for name in prefer:
            if name and name not in used:
                return name
        for name in _POOL:
            if name not in used and name not in order:  # not a parameter's name (``n`` of ``split(x, n)``)
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
                at: dict[int, set[int | None]] = {}
                for i, size in zip(leaf.where, col, strict=True):
                    at.setdefault(i, set()).add(size)
                if any(len(v) > 1 for v in at.values()):  # items of one call differ: no one name holds
                    leaf.dims.append("_")
                    continue
                col = tuple(next(iter(at[i])) if i in at else None for i in range(n))
            leaf.dims.append(
                _dim(col, axis, rank, n, names_here, ints, ctor, configured, module, named, old, used, fresh)
            )
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
        text = parts[0] if mine[0].index is None else "tuple[" + ", ".join(parts) + "]"
        if mine[0].items == "list":
            text = f"list[{text}]"
        elif mine[0].items == "dict":
            text = f"dict[str, {text}]"
        elif mine[0].items == "tuple":
            text = f"tuple[{text}, ...]"
        annotations[slot] = text + (" | None" if mine[0].none else "")
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
    ctor: Mapping[str, list[int]],
    configured: set[str],
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
        if var is None and calls > 1:
            for c, name in named:  # a configured size named already, on any axis (``seq_len`` of ``x``)
                if _agree(c, col) and name in configured:
                    return name
        if var is None and axis == rank - 1 and size > 1:
            # a feature size equal to one constructor argument in every call: the configuration's
            # size (``query_dim``), not a constant, though one configuration was run
            same = [k for k, v in ctor.items() if all(x == size for x in v)]
            if len(same) == 1 and calls > 1:
                want = (code[axis] if axis < len(code) else None) or same[0]
                if want not in used:
                    configured.add(want)
                    var = want
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
    if axis == rank - 1 or len(sizes) >= 3:  # a feature size, or too many sizes for a coincidence
        from_int += [k for k, v in ctor.items() if all(x is None or x == y for x, y in zip(col, v, strict=True))]
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
