"""The abstract state at a program point: variables and facts, and how paths join."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..model.dims import Dim, Star, Unknown, UnknownSource
from ..model.shape import Item, Shape
from ..model.values import (
    NONE,
    BoolV,
    DatasetV,
    DictV,
    FloatV,
    IntV,
    Layout,
    LoaderV,
    ModuleV,
    NoneV,
    SeqKind,
    SeqV,
    StrV,
    TensorV,
    TupleV,
    UnknownV,
    Value,
)
from ..unify.arith import expand_bounded, to_sympy
from ..unify.bounds import replayed_cache
from ..unify.facts import NO_FACTS, Facts
from .values import (
    MAX_CHOICES,
    MAX_OPTION_KEYS,
    TRAINING,
    ArrayV,
    ChoiceV,
    ClassV,
    FunctionV,
    InstanceV,
    LambdaV,
    MapV,
    NothingV,
    OptionalV,
    PartialV,
    RangeV,
    as_container,
    choice_options,
    same_lambda,
    with_mode,
)

__all__ = ["State", "Widening", "join_values", "join_all", "join_states", "join_shapes"]

_JOIN = UnknownSource.JOIN


@dataclass(slots=True)
class State:
    vars: dict[str, Value] = field(default_factory=dict)
    facts: Facts = NO_FACTS

    def copy(self) -> State:
        return State(dict(self.vars), self.facts)


#: Gives the dim that stands for two different dims at a join (a fresh symbol), or ``None``
#: to make it unknown.  See :class:`Widening`.
Widen = Callable[[Dim, Dim], Dim]


class Widening:
    """Fresh symbols for the dims that differ at one join point (an ``if``, a loop head).

    Joining ``[b 4]`` and ``[b 8]`` keeps ``b`` and gives the other dim a fresh opaque
    symbol rather than ``?``: the rank stays known and later uses relate to it.  The same
    pair gets the same symbol each time the join runs, and a symbol this join made
    absorbs whatever meets it, so a loop reaches its fixpoint in a round or two
    (``d``, then ``2*d``, then ``2*n`` all become ``n``).
    """

    __slots__ = ("_made", "_memo", "_fresh")

    def __init__(self, fresh: Callable[[str], Dim]) -> None:
        self._fresh = fresh
        self._made: set[Dim] = set()
        self._memo: dict[tuple[Dim, Dim], Dim] = {}

    def __call__(self, a: Dim, b: Dim) -> Dim:
        if a in self._made:
            return a
        if b in self._made:
            return b
        key = (a, b)
        d = self._memo.get(key)
        if d is None:
            base = str(a) if getattr(a, "is_Symbol", False) else str(b) if getattr(b, "is_Symbol", False) else "n"
            d = self._memo[key] = self._fresh(base)
            self._made.add(d)
        return d


def _join_dim(a: Dim, b: Dim, widen: Widen | None = None, facts: tuple[Facts, Facts] = (NO_FACTS, NO_FACTS)) -> Dim:
    """One dim for ``a`` (on a path where ``facts[0]`` hold) and ``b`` (where ``facts[1]`` do)."""
    if a is b or a == b:
        return a
    fa, fb = facts
    if fa or fb:
        a, b = fa.simplify(a), fb.simplify(b)
        if a == b:
            return a
    if _same(a, b):
        return a
    if widen is not None and not isinstance(a, Unknown) and not isinstance(b, Unknown):
        return widen(a, b)
    return Unknown(_JOIN)


@replayed_cache(maxsize=8192)
def _same(a: Dim, b: Dim) -> bool:
    """Equal by expansion (a join needs no more: without sympy's assumption queries, which
    dominated joins; a pair it misses is widened, which loses precision, never soundness)."""
    if isinstance(a, Unknown) or isinstance(b, Unknown) or (type(a) is int and type(b) is int):
        return False
    diff = expand_bounded(to_sympy(a) - to_sympy(b))
    return diff is not None and bool(diff == 0)


def join_shapes(
    a: Shape, b: Shape, widen: Widen | None = None, facts: tuple[Facts, Facts] = (NO_FACTS, NO_FACTS)
) -> Shape:
    if a == b:
        return a
    if a.rank is not None and a.rank == b.rank:
        return Shape(tuple(_join_dim(x, y, widen, facts) for x, y in zip(a.dims, b.dims)))
    if a.rank is None and b.rank is None and len(a.items) == len(b.items) and a.star_index == b.star_index:
        items: list[Item] = []
        for x, y in zip(a.items, b.items):
            if isinstance(x, Star) or isinstance(y, Star):
                items.append(x if x == y else Star(None, _JOIN))
            else:
                items.append(_join_dim(x, y, widen, facts))
        return Shape(tuple(items))
    return Shape.unknown(_JOIN)


def _join_layout(a: Layout | None, b: Layout | None) -> Layout | None:
    if a == b:
        return a
    if a is None or b is None:
        return None
    return Layout(a.constant and b.constant, a.data_dim if a.data_dim == b.data_dim else None)


def join_values(
    a: Value, b: Value, widen: Widen | None = None, facts: tuple[Facts, Facts] = (NO_FACTS, NO_FACTS)
) -> Value:
    """The least value that describes both ``a`` and ``b`` (unknown, or with ``widen`` a fresh
    symbol, where dims differ; ``OptionalV`` where one is ``None``)."""
    if a is b or a == b:
        return a
    if isinstance(a, NothingV):
        return b
    if isinstance(b, NothingV):
        return a
    if isinstance(a, LambdaV) and isinstance(b, LambdaV) and same_lambda(a, b):
        return a
    if isinstance(a, OptionalV) or isinstance(b, OptionalV) or isinstance(a, NoneV) or isinstance(b, NoneV):
        return _join_optional(a, b, widen, facts)
    for p, f in ((a, b), (b, a)):
        if isinstance(p, PartialV) and not p.args and not p.kwargs and p.func == f:
            return f  # ``partial(f)`` binds nothing: called, it is ``f`` (timm's ``get_norm_layer``)
    if isinstance(a, TensorV) and isinstance(b, TensorV):
        return TensorV(
            join_shapes(a.shape, b.shape, widen, facts),
            a.dtype if a.dtype == b.dtype else None,
            _join_layout(a.layout, b.layout),
            a.names if a.names == b.names else None,
        )
    if isinstance(a, IntV) and isinstance(b, IntV):
        return IntV(_join_dim(a.value, b.value, widen, facts))
    if isinstance(a, TupleV) and isinstance(b, TupleV):
        if len(a.items) == len(b.items) and a.kind == b.kind:
            return TupleV(tuple(join_values(x, y, widen, facts) for x, y in zip(a.items, b.items)), a.kind)
        elems = list(a.items) + list(b.items)
        return SeqV(join_all(elems), a.kind)
    if isinstance(a, DictV) and isinstance(b, DictV) and type(a) is type(b):  # a dict, or a namespace (AttrsV)
        if [k for k, _ in a.items] == [k for k, _ in b.items] and a == replace(b, items=a.items):
            # (Also of a ``defaultdict``'s factory: the same on both paths.)
            return replace(
                a, items=tuple((k, join_values(x, y, widen, facts)) for (k, x), (_, y) in zip(a.items, b.items))
            )
        values = [v for _, v in (*a.items, *b.items)]
        if type(a) is DictV and not any(isinstance(v, (FunctionV, ClassV)) for v in values):
            # Paths that added different keys (a vocabulary filled word by word): any key reads one of
            # the values. A registry of functions or classes stays unknown: which one a key reads matters.
            return MapV(join_all(values), options=_dict_options(a, b))
        return UnknownV()
    if isinstance(a, MapV) or isinstance(b, MapV):
        # A dict whose keys are not known on one path: every value either path may read.
        if isinstance(a, (MapV, DictV)) and isinstance(b, (MapV, DictV)):
            return MapV(join_all([*_map_values(a), *_map_values(b)]), options=_dict_options(a, b))
        return UnknownV()
    if isinstance(a, SeqV) and isinstance(b, SeqV):
        length = a.length if a.length == b.length else None
        return SeqV(join_values(a.elem, b.elem, widen, facts), a.kind, length, a.varied or b.varied)
    if isinstance(a, SeqV) and isinstance(b, TupleV):
        return SeqV(join_all([a.elem, *b.items]), a.kind, a.length if a.length == len(b.items) else None, a.varied)
    if isinstance(a, TupleV) and isinstance(b, SeqV):
        return SeqV(join_all([b.elem, *a.items]), b.kind, b.length if b.length == len(a.items) else None, b.varied)
    if isinstance(a, UnknownV) and isinstance(b, UnknownV):
        return a
    if isinstance(a, InstanceV) and isinstance(b, InstanceV) and (a.origin or a) is (b.origin or b):
        # One module in two modes (``model.eval()`` on one path): in an unknown mode.
        for p in (a, b):
            if p.origin is not None and p.attrs.get(TRAINING) == BoolV(None):
                return p
        return with_mode(a.origin or a, BoolV(None))
    if isinstance(a, ModuleV) and isinstance(b, ModuleV) and a.qualname == b.qualname:
        if is_list_container(a):
            if is_list_container(b):
                # ``self.blocks.append(...)`` in a loop: the container after one more round or one fewer.
                return with_items(a, join_values(container_items(a), container_items(b), widen, facts))
        elif not a.children and not b.children and a.args.keys() == b.args.keys() and _sizes_differ(a, b):
            # One layer class built two ways (``nn.Conv2d(c, m)`` or ``nn.Conv2d(c, c)`` under a flag):
            # the arguments that agree stay, the sizes that differ join (a fresh name).
            args = {k: join_values(v, b.args[k], widen, facts) for k, v in a.args.items()}
            return ModuleV(a.qualname, args)
    if isinstance(a, InstanceV) and isinstance(b, InstanceV) and a.cls is b.cls:
        return _join_instances(a, b, widen, facts)
    if isinstance(a, ArrayV) and isinstance(b, ArrayV):
        return ArrayV(join_shapes(a.shape, b.shape, widen, facts), a.dtype if a.dtype == b.dtype else None)
    # ``lam = random.betavariate(a, a) if a > 0 else 1.0``: a float either way, its value known only
    # where both paths agree (a ratio's ``num / den`` is dropped: it differs).
    if isinstance(a, FloatV) and isinstance(b, FloatV):
        return FloatV(a.value if a.value == b.value else None)
    if isinstance(a, BoolV) and isinstance(b, BoolV):
        return BoolV(a.value if a.value == b.value else None)
    if isinstance(a, StrV) and isinstance(b, StrV):
        return StrV(a.value if a.value == b.value else None)
    choice = _join_choices(a, b)
    return choice if choice is not None else UnknownV(_JOIN)


def _join_choices(a: Value, b: Value) -> ChoiceV | None:
    """Two different modules or lambdas (or choices of them): a :class:`ChoiceV` of both, at most
    ``MAX_CHOICES`` options (``None``: not modules, or too many).  A lambda that computes the same as
    an option already there (made again on the next pass of a loop) is that option."""
    left, right = choice_options(a), choice_options(b)
    if left is None or right is None:
        return None
    options = list(left)
    for o in right:
        if not any(
            o is p or o == p or (isinstance(o, LambdaV) and isinstance(p, LambdaV) and same_lambda(o, p))
            for p in options
        ):
            options.append(o)
    return ChoiceV(tuple(options)) if len(options) <= MAX_CHOICES else None


def _sizes_differ(a: ModuleV, b: ModuleV) -> bool:
    """Do two layers' arguments differ only in sizes (ints, tuples of ints)?  A flag or a mode that
    differs (``bias=False`` on one path) stays unknown: a joined layer would claim a ``bias`` tensor
    that one path does not have."""

    def size(v: Value) -> bool:
        return isinstance(v, IntV) or (isinstance(v, TupleV) and all(isinstance(x, IntV) for x in v.items))

    return all(v == b.args[k] or (size(v) and size(b.args[k])) for k, v in a.args.items())


def _join_instances(a: InstanceV, b: InstanceV, widen: Widen | None, facts: tuple[Facts, Facts]) -> InstanceV:
    """Two instances of one project class (``self.conv = DoubleConv(c, m)`` or ``DoubleConv(c, c)``
    under a flag not known): attribute by attribute, so what agrees stays known and what differs is
    joined.  An attribute only one of them has is unknown (reading it raises on the other path).
    ``a`` itself when it already describes ``b`` (a loop head reaches its fixpoint)."""
    attrs: dict[str, Value] = {}
    for k, v in a.attrs.items():
        w = b.attrs.get(k)
        attrs[k] = join_values(v, w, widen, facts) if w is not None else UnknownV(_JOIN)
    for k in b.attrs.keys() - a.attrs.keys():
        attrs[k] = UnknownV(_JOIN)
    open_reason = a.open_reason or b.open_reason
    if (
        attrs.keys() == a.attrs.keys()
        and all(attrs[k] is v or attrs[k] == v for k, v in a.attrs.items())
        and open_reason == a.open_reason
        and b.setup <= a.setup
        and (b.pinned or not a.pinned)
        and a.born <= b.born
        and (a.born == b.born or a.several)
        and all(b.through.get(k, 0) >= w for k, w in a.through.items())
    ):
        return a
    pinned = a.pinned and b.pinned
    # Either object: stale where either may be (born the earlier, written through where both were).
    through = {k: min(w, b.through[k]) for k, w in a.through.items() if k in b.through}
    born = min(a.born, b.born)
    several = a.several or b.several or a.born != b.born  # (either object)
    return InstanceV(
        a.cls,
        attrs,
        f"({a.key}|{b.key})",
        a.setup | b.setup,
        open_reason,
        pinned=pinned,
        born=born,
        through=through,
        several=several,
    )


def is_list_container(m: ModuleV) -> bool:
    """An ``nn.ModuleList`` or ``nn.Sequential`` holding a list of modules (not a ``ModuleDict``
    nor a ``Sequential(OrderedDict(...))``)."""
    return m.qualname.endswith(("ModuleList", "Sequential")) and set(m.args) <= {"modules", "args"}


def dict_container(m: ModuleV) -> DictV | None:
    """An ``nn.ModuleDict``'s modules by name, when its keys are known (``ModuleDict(dict(wte=...))``,
    ``ModuleDict({"a": ...})``, ``ModuleDict()`` filled by ``d["a"] = ...``); ``None`` otherwise."""
    if not m.qualname.endswith("ModuleDict"):
        return None
    v = m.args.get("modules", NONE)
    if isinstance(v, NoneV):
        return DictV(())
    return v if isinstance(v, DictV) else None


def container_items(m: ModuleV) -> Value:
    """A list container's modules as a list value: exact (``TupleV``) or repeated (``SeqV``)."""
    v = m.args.get("modules", m.args.get("args"))
    return v if isinstance(v, SeqV) else TupleV(m.children, SeqKind.LIST)


def with_items(m: ModuleV, items: Value) -> ModuleV:
    """The container ``m`` holding ``items`` (from ``container_items``, appended to or joined)."""
    if isinstance(items, TupleV):
        return ModuleV(m.qualname, {}, items.items)
    key = "args" if m.qualname.endswith("Sequential") else "modules"
    return ModuleV(m.qualname, {key: items if isinstance(items, SeqV) else SeqV(UnknownV(_JOIN))}, ())


def _join_optional(a: Value, b: Value, widen: Widen | None, facts: tuple[Facts, Facts]) -> Value:
    """A join where one side is ``None`` or optional: optional of the join of the rest."""
    parts = [v.inner if isinstance(v, OptionalV) else v for v in (a, b) if not isinstance(v, NoneV)]
    if not parts:
        return NONE
    inner = parts[0] if len(parts) == 1 else join_values(parts[0], parts[1], widen, facts)
    if isinstance(inner, (UnknownV, NoneV, OptionalV)):
        return inner if not isinstance(inner, NoneV) else NONE
    return OptionalV(inner)


def _dict_options(a: Value, b: Value) -> tuple[tuple[str, ...], ...] | None:
    """The key sets the join of ``a`` and ``b`` may have (:attr:`MapV.options`), each once; ``None``
    when either side is not a dict of known keys or one with them, or they are too many."""
    out: list[tuple[str, ...]] = []
    for d in (a, b):
        if type(d) is DictV:
            ours: tuple[tuple[str, ...], ...] | None = (tuple(k for k, _ in d.items),)
        else:
            ours = d.options if isinstance(d, MapV) else None
        if ours is None:
            return None
        out.extend(o for o in ours if o not in out)
    if len(out) > MAX_CHOICES or any(len(o) > MAX_OPTION_KEYS for o in out):
        return None
    return tuple(out)


def _map_values(d: Value) -> list[Value]:
    return [d.value] if isinstance(d, MapV) else [v for _, v in d.items] if isinstance(d, DictV) else []


def join_all(values: list[Value]) -> Value:
    """The join of every value (unknown for none)."""
    if not values:
        return UnknownV(_JOIN)
    out = values[0]
    for v in values[1:]:
        out = join_values(out, v)
    return out


def join_states(a: State | None, b: State | None, widen: Widen | None = None) -> State | None:
    """Join two states; ``None`` is an unreachable path (after return/raise)."""
    if a is None:
        return b
    if b is None:
        return a
    out: dict[str, Value] = {}
    facts = (a.facts, b.facts)
    for k, v in a.vars.items():
        w = b.vars.get(k)
        out[k] = v if w is None else join_values(v, w, widen, facts)
    for k, w in b.vars.items():
        if k not in out:
            out[k] = w
    return State(out, a.facts.join(b.facts))


def built_length(elem: Value, fresh: Callable[[str], Dim]) -> Dim | None:
    """The length of a list of ``elem`` items whose count is not known: a fresh size when its items
    are scalars (``[stoi[c] for c in text]`` has some length, fixed once built, so ``len(ids)`` and
    ``torch.tensor(ids)`` agree), else ``None``.  A list of tensors stays of unknown count: its
    one ``elem`` stands for items whose sizes may differ (``torch.cat`` of it is not ``n`` times one)."""
    return fresh("n") if isinstance(elem, (IntV, FloatV, BoolV, StrV)) else None


def iteration_length(v: Value) -> Dim | None:
    """How many items iterating ``v`` gives, when that is a known size (an int or a symbol: a
    ``range(n)``, a tensor's first dim, a ``ModuleList`` built over ``range(n)``, a literal string's
    characters); else ``None``."""
    v = as_container(v)
    n: Any = None
    if isinstance(v, TupleV):
        n = len(v.items)
    elif isinstance(v, (SeqV, RangeV, DatasetV, LoaderV)):
        n = v.length
    elif isinstance(v, TensorV) and v.shape.rank:
        n = v.shape.dim(0)
    elif isinstance(v, StrV) and v.value is not None:
        n = len(v.value)  # ``[stoi[c] for c in "abc"]``: one item per character
    elif isinstance(v, ModuleV) and (named := dict_container(v)) is not None:
        n = len(named.items)
    elif isinstance(v, ModuleV) and is_list_container(v):
        return iteration_length(container_items(v))
    return None if n is None or isinstance(n, Unknown) else n
