"""Generalise observed shapes into the most specific jaxtyping annotations all observations satisfy.

Input: the recorded calls of one function (argument name -> description, see
:func:`tensorshape.annotate.trace.describe`).  Output: one annotation per tensor argument and for the
result (a list, dict or tuple of varying length of tensors gets one annotation for its items; an
axis whose size differs between the items of one call is ``_``).  The rules, in the order they apply to each axis (a column of sizes, one per call):

1. one call observed: every size is a literal, and a note says so;
2. a size equal in every call is a literal, unless configured as a variable size (``batch=32``), or
   it is equal in every call to one int argument of the constructor of ``self`` that a last axis of
   that size in the function is (``query_dim``: the size is the configuration's, the run had one
   configuration; ``image_size`` names the height before the width), and the code does not name
   the axis otherwise;
3. leading axes whose number varies from call to call are a variadic ``*batch`` (one name for the
   arguments whose leading sizes agree in every call);
4. columns equal in every call are one named dim;
5. a column always equal to ``k*`` (k = 2..8), a product or a sum of earlier columns is that
   expression (``2*d``, ``h*w``, ``a+b``); earlier means checked earlier by jaxtyping (argument order);
6. a name comes from the code (``b, t, d = x.shape``, for every column equal to that axis's, in an
   earlier argument too), else from an int argument always equal to the
   size (``batch_size``), else from a constructor argument of ``self`` always equal to it
   (``context_dim``; on the last axis, or with three sizes or more: two sizes of a sequence axis equal
   to two ``dim_head`` values are a coincidence of the run), else from a function of the same module whose dim took the same sizes, else
   ``batch`` for a leading axis, else ``n``, ``m``, ``k``...
7. a size equal in every call (rules 1 and 2 would write a literal) that is, in every call whose
   caller is known, the caller's named dim is that name: the dim of the same tensor object's axis
   when the argument is one of the caller's own, else the caller's one named dim of that size (not
   for a size 1: a keepdim axis or a batch of one matches by chance).  A helper reached at one size
   only (``indices`` of ``"1 256 8"`` from a caller's ``"1 n 8"``) so takes the caller's ``n``;
8. a size other than 1 equal in every call to one dim the function's existing annotations name is
   that name (its callees given that tensor take it by rule 7);
9. in a function seen with one observation only (every call the same shapes), a size other than 1
   that one dim of the module took among other sizes is that dim.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Caller", "FunctionAnnotations", "ModuleNames", "generalise", "dtype_class", "RESULT", "INIT"]

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


@dataclass(frozen=True)
class Caller:
    """What the caller of one call (the traced call of the project's code it was made from) names."""

    #: the caller's named dims (not literals, not expressions) -> their sizes in that call
    sizes: Mapping[str, int]
    #: this call's argument -> the caller's dims of the argument it is the same tensor object as
    #: (``None`` for an axis whose dim is not a name)
    same: Mapping[str, Sequence[str | None]] = field(default_factory=dict)
    #: the caller's qualified name (for the notes)
    name: str = "the caller"


@dataclass
class FunctionAnnotations:
    #: Argument name (or :data:`RESULT`) -> annotation source (``Float[Tensor, "b d"]``).
    annotations: dict[str, str]
    #: Dtype classes used (for the imports).
    classes: set[str]
    notes: list[str]
    calls: int
    #: For each call, the named dims (written or already there) -> their size in it.
    sizes: list[dict[str, int]] = field(default_factory=list)
    #: Argument name -> its dims by axis (``None`` for one that is not a name), for a tensor argument.
    axes: dict[str, list[str | None]] = field(default_factory=dict)


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
    callers: Sequence[Caller | None] = (),
) -> FunctionAnnotations:
    """Annotations for the slots in ``order`` (argument names, then :data:`RESULT`) from ``calls``.

    ``known`` are the columns of dims the function's existing annotations name (reused, never the
    base of an expression: jaxtyping may bind them later); ``reserved`` are names not to give;
    ``defaulted`` are parameters whose default (not None) some calls may have used: a call without
    a tensor there says nothing about the tensor's dims.  A call's :data:`INIT` (the int arguments
    its ``self`` was constructed with) names the sizes equal to one of them.  ``callers`` (one per
    call, None where not known) name a constant size after the caller's dim it is.
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
    ints = {
        slot: [c[slot]["int"] for c in calls]
        for slot in order
        if all(isinstance(c.get(slot), dict) and "int" in c[slot] for c in calls)
    }
    inits = [c.get(INIT) or {} for c in calls]
    ctor = {k: [i[k] for i in inits] for k in inits[0] if all(isinstance(i.get(k), int) for i in inits)} if n else {}
    single = n > 1 and all(len(set(leaf.shapes)) == 1 and leaf.where is None for leaf in leaves)
    namer = _Namer(n, single, order, ints, ctor, module, known, reserved, callers, notes)
    laid = [_columns(leaf, n) for leaf in leaves]
    code_of = [list(code_names.get(leaf.slot, ())) if leaf.index is None else [] for leaf in leaves]
    namer.foresee([(cols, code) for (_, cols), code in zip(laid, code_of, strict=True)])
    for leaf, (lead, cols), names_here in zip(leaves, laid, code_of, strict=True):
        if lead is not None:
            leaf.dims.append("*" + namer.variadic(leaf.slot, lead))
        rank = len(cols)
        plain = leaf.index is None and leaf.items is None
        for axis, col in enumerate(cols):
            if col is None:  # items of one call differ: no one name holds
                leaf.dims.append("_")
                continue
            leaf.dims.append(namer.dim(col, axis, rank, names_here, leaf.slot if plain else None))
    if n == 1:
        named = [x for x in notes if " named " in x]
        notes.insert(
            0,
            "one call observed: sizes are written as literals"
            + (" except those named after a caller or the module (below)" if named else ""),
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
    axes: dict[str, list[str | None]] = {  # the trailing axes, after a variadic
        leaf.slot: [d if d.isidentifier() else None for d in leaf.dims if not d.startswith("*")]
        for leaf in leaves
        if leaf.index is None and leaf.items is None
    }
    sizes: list[dict[str, int]] = [{} for _ in range(n)]
    for col, name in (*namer.old, *namer.named):
        if name.isidentifier():
            for i, x in enumerate(col):
                if x is not None:
                    sizes[i].setdefault(name, x)
    return FunctionAnnotations(annotations, classes, notes, n, sizes, axes)


Column = tuple[int | None, ...]


def _columns(leaf: _Leaf, n: int) -> tuple[list[tuple[int, ...]] | None, list[Column | None]]:
    """A leaf's leading dims when their number varies (the variadic's, by call), and its columns
    after them: one size per call (None where the call passed no tensor), or None for an axis
    whose size differs between the items of one call."""
    rank = min(len(s) for s in leaf.shapes)
    lead = None
    if len({len(s) for s in leaf.shapes}) > 1:
        # the variadic takes the varying axes before the trailing constant ones (``*batch 16``)
        while rank and len({s[len(s) - rank] for s in leaf.shapes}) > 1:
            rank -= 1
        lead = [s[: len(s) - rank] for s in leaf.shapes]
    cols: list[Column | None] = []
    for axis in range(rank):
        col: Column = tuple(s[len(s) - rank + axis] for s in leaf.shapes)
        if leaf.where is not None:
            at: dict[int, set[int | None]] = {}
            for i, size in zip(leaf.where, col, strict=True):
                at.setdefault(i, set()).add(size)
            if any(len(v) > 1 for v in at.values()):
                cols.append(None)
                continue
            col = tuple(next(iter(at[i])) if i in at else None for i in range(n))
        cols.append(col)
    return lead, cols


def _agree(a: Column, b: Column) -> bool:
    """Equal in every call where both are sizes (None: the call passed no tensor there)."""
    return all(x == y or x is None or y is None for x, y in zip(a, b, strict=True)) and any(
        x is not None and y is not None for x, y in zip(a, b, strict=True)
    )


class _Namer:
    """Names the columns of one function's calls, in jaxtyping's checking order (rules 2 to 9)."""

    def __init__(
        self,
        calls: int,
        single: bool,
        order: Sequence[str],
        ints: Mapping[str, list[int]],
        ctor: Mapping[str, list[int]],
        module: ModuleNames,
        known: Sequence[tuple[Column, str]],
        reserved: Sequence[str],
        callers: Sequence[Caller | None],
        notes: list[str],
    ) -> None:
        self.calls = calls
        #: every call had the same shapes (one observation, however many calls)
        self.single = single or calls == 1
        self.order = order
        self.ints = ints
        self.ctor = ctor
        self.module = module
        self.callers = list(callers) if len(callers) == calls else [None] * calls
        self.notes = notes
        self.used: set[str] = set(reserved) | {name for _, name in known}
        self.named: list[tuple[Column, str]] = []  # columns named so far, in jaxtyping's checking order
        self.old: list[tuple[Column, str]] = list(known)
        self.variadics: list[tuple[list[tuple[int, ...]], str]] = []
        #: constant sizes that are the configuration's (a last axis equal to one constructor argument)
        #: -> their name, found before any axis is named (:meth:`foresee`)
        self.configured: dict[int, str] = {}
        #: varying columns the code names somewhere in the function -> that name
        self.hints: list[tuple[Column, str]] = []
        #: configured sizes the code also names otherwise (on another axis): named on last axes only
        self.contested: set[int] = set()

    def foresee(self, leaves: Sequence[tuple[Sequence[Column | None], Sequence[str | None]]]) -> None:
        """Before naming: the names the code and the constructor give to columns anywhere in the
        function (each leaf's columns and the code's names of its axes), so a name reaches every
        axis whose sizes agree, not only those after the axis that gives it (``gMLPVision``'s
        images: the height, before the width, is ``image_size`` too)."""
        for cols, code in leaves:
            rank = len(cols)
            for axis, col in enumerate(cols):
                if col is None:
                    continue
                here = code[axis] if axis < len(code) else None
                sizes = {x for x in col if x is not None}
                if len(sizes) > 1:
                    if here:
                        self.hints.append((col, here))
                    continue
                size = next(iter(sizes))
                if axis != rank - 1 or size <= 1 or self.calls < 2 or size in self.module.variable:
                    continue
                # a feature size equal to one constructor argument in every call: the configuration's
                # size (``query_dim``), not a constant, though one configuration was run
                same = [k for k, v in self.ctor.items() if all(x == size for x in v)]
                if len(same) == 1 and size not in self.configured:
                    want = here or same[0]
                    if want not in self.used:
                        self.configured[size] = want
        for cols, code in leaves:  # the code names an axis of that size otherwise: which one is which is unsure
            for axis, col in enumerate(cols):
                here = code[axis] if axis < len(code) else None
                if col is not None and here and len(set(col) - {None}) == 1:
                    size = next(x for x in col if x is not None)
                    if self.configured.get(size, here) != here:
                        self.contested.add(size)

    def fresh(self, prefer: Sequence[str]) -> str:
        for name in prefer:
            if name and name not in self.used:
                return name
        for name in _POOL:
            if name not in self.used and name not in self.order:  # not a parameter's name (``n`` of ``split(x, n)``)
                return name
        i = 0
        while f"d{i}" in self.used:
            i += 1
        return f"d{i}"

    def variadic(self, slot: str, lead: list[tuple[int, ...]]) -> str:
        name = next((v for heads, v in self.variadics if heads == lead), None)
        if name is None:
            name = self.fresh(["batch", "batch2", "batch3"])
            self.used.add(name)
            self.variadics.append((lead, name))
            self.notes.append(f"{slot}: the number of leading dims varies: *{name}")
        return name

    def dim(self, col: Column, axis: int, rank: int, code: Sequence[str | None], slot: str | None) -> str:
        """The dim of one column: ``slot`` is the argument when the column is an axis of it (not of
        a tuple's or a container's items), for the callers' tensors it is the same object as."""
        sizes = {x for x in col if x is not None}
        if len(sizes) == 1:
            return self._constant(col, next(iter(sizes)), axis, rank, code, slot)
        for c, name in (*self.named, *self.old):  # rule 4: varies together with an earlier column
            if c == col or (None in col and _agree(c, col)):
                return name
        expr = None if None in col else _expression(col, self.named)
        if expr is not None:
            return expr
        from_code = code[axis] if axis < len(code) and code[axis] else None
        from_int = [s for s, v in self.ints.items() if tuple(v) == col]
        if axis == rank - 1 or len(sizes) >= 3:  # a feature size, or too many sizes for a coincidence
            from_int += [
                k for k, v in self.ctor.items() if all(x is None or x == y for x, y in zip(col, v, strict=True))
            ]
        hint = next((name for c, name in self.hints if c == col or (None in col and _agree(c, col))), None)
        again = self.module.by_sizes.get(frozenset(sizes))
        lead = "batch" if axis == 0 and rank >= 2 else None
        name = self.fresh([x for x in (from_code, hint, *from_int, again, lead) if x])
        self.used.add(name)
        self.named.append((col, name))
        self.module.by_sizes.setdefault(frozenset(sizes), name)
        return str(name)

    def _constant(
        self, col: Column, size: int, axis: int, rank: int, code: Sequence[str | None], slot: str | None
    ) -> str:
        var = self.module.variable.get(size)
        if var is None and size > 1:
            # the function's own annotations name that size, one name only (``batched_model``'s
            # ``weights: "f"``): the name, so a callee given that tensor takes it too (rule 7)
            mine = {name for c, name in self.old if _agree(c, col)}
            if len(mine) == 1:
                name = mine.pop()
                if self.calls == 1:  # the note on one call's literals says which are not
                    self.notes.append(f"{slot or 'an item'}: {size} named {name}, after the function's annotations")
                return name
        if var is None and self.calls > 1 and size in self.configured:
            # the configuration's size, on any axis (``seq_len`` of ``x``, the height of an image of
            # ``image_size``), unless the code names this axis otherwise (``b, t, d = x.shape``: t is
            # not d, though both were 8)
            want = self.configured[size]
            here = code[axis] if axis < len(code) else None
            sure = size not in self.contested or axis == rank - 1
            if (here is None or here == want) and sure and self._free(want, col):
                var = want
        if var is not None and self.calls > 1:
            for c, name in self.named:
                if _agree(c, col) and name == var:
                    return name
            self.named.append((col, var))
            self.used.add(var)
            return var
        return self._outer(col, size, rank - axis, slot) or str(size)

    def _free(self, name: str, col: Column) -> bool:
        """``name`` may be given to ``col``: not given yet, or given to a column equal to it in every call."""
        if name not in self.used:
            return True
        return any(n == name and _agree(c, col) for c, n in (*self.named, *self.old))

    def _outer(self, col: Column, size: int, from_end: int, slot: str | None) -> str | None:
        """A constant size named from outside the function (rules 7 and 9), or None: the name of
        the caller's dim the size is (the same tensor object's axis, else the one named dim of the
        caller of that size in every linked call), else, for a function seen with one observation
        only, the one dim of the module that took this size among others."""
        name = self._from_callers(col, from_end, slot)
        why = " and ".join(sorted({c.name for c in self.callers if c is not None}))
        if name is None and self.single and size > 1:
            took = {v for sizes, v in self.module.by_sizes.items() if len(sizes) > 1 and size in sizes}
            if len(took) == 1:
                name, why = took.pop(), "the module, where it varies"
        if name is None or not self._free(name, col):
            return None
        if name not in self.used:
            self.notes.append(f"{slot or 'an item'}: {size} named {name}, after {why}")
        self.used.add(name)
        self.named.append((col, name))
        return name

    def _from_callers(self, col: Column, from_end: int, slot: str | None) -> str | None:
        """The one name every linked call gives the column: the same tensor object's dim where the
        argument is the caller's, else the caller's names of that size (none for a size 1: a keepdim
        axis or a batch of one matches by chance)."""
        common: set[str] | None = None
        for size, caller in zip(col, self.callers, strict=True):
            if caller is None or size is None:
                continue
            axes = caller.same.get(slot) if slot is not None else None
            if axes is not None and len(axes) >= from_end:
                got = axes[len(axes) - from_end]
                here = {got} if got else set()
            elif size == 1:
                here = set()
            else:
                here = {name for name, s in caller.sizes.items() if s == size}
            common = here if common is None else common & here
        return common.pop() if common is not None and len(common) == 1 else None


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
