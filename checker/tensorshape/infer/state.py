"""The abstract state at a program point: variables and facts, and how paths join."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model.dims import Dim, Star, Unknown, UnknownSource
from ..model.shape import Item, Shape
from ..model.values import DictV, IntV, Layout, SeqV, TensorV, TupleV, UnknownV, Value
from ..unify.compare import Truth, eq3
from ..unify.facts import NO_FACTS, Facts

__all__ = ["State", "join_values", "join_states", "join_shapes"]

_JOIN = UnknownSource.JOIN


@dataclass(slots=True)
class State:
    vars: dict[str, Value] = field(default_factory=dict)
    facts: Facts = NO_FACTS

    def copy(self) -> State:
        return State(dict(self.vars), self.facts)


def _join_dim(a: Dim, b: Dim) -> Dim:
    if a is b or a == b:
        return a
    if eq3(a, b) is Truth.TRUE:
        return a
    return Unknown(_JOIN)


def join_shapes(a: Shape, b: Shape) -> Shape:
    if a == b:
        return a
    if a.rank is not None and a.rank == b.rank:
        return Shape(tuple(_join_dim(x, y) for x, y in zip(a.dims, b.dims)))
    if a.rank is None and b.rank is None and len(a.items) == len(b.items) and a.star_index == b.star_index:
        items: list[Item] = []
        for x, y in zip(a.items, b.items):
            if isinstance(x, Star) or isinstance(y, Star):
                items.append(x if x == y else Star(None, _JOIN))
            else:
                items.append(_join_dim(x, y))
        return Shape(tuple(items))
    return Shape.unknown(_JOIN)


def _join_layout(a: Layout | None, b: Layout | None) -> Layout | None:
    if a == b:
        return a
    if a is None or b is None:
        return None
    return Layout(a.constant and b.constant, a.data_dim if a.data_dim == b.data_dim else None)


def join_values(a: Value, b: Value) -> Value:
    """The least value that describes both ``a`` and ``b`` (unknown where they differ)."""
    if a is b or a == b:
        return a
    from .values import NothingV

    if isinstance(a, NothingV):
        return b
    if isinstance(b, NothingV):
        return a
    if isinstance(a, TensorV) and isinstance(b, TensorV):
        return TensorV(
            join_shapes(a.shape, b.shape),
            a.dtype if a.dtype == b.dtype else None,
            _join_layout(a.layout, b.layout),
            a.names if a.names == b.names else None,
        )
    if isinstance(a, IntV) and isinstance(b, IntV):
        return IntV(_join_dim(a.value, b.value))
    if isinstance(a, TupleV) and isinstance(b, TupleV):
        if len(a.items) == len(b.items) and a.kind == b.kind:
            return TupleV(tuple(join_values(x, y) for x, y in zip(a.items, b.items)), a.kind)
        elems = list(a.items) + list(b.items)
        return SeqV(_join_all(elems), a.kind)
    if isinstance(a, DictV) and isinstance(b, DictV):
        if [k for k, _ in a.items] == [k for k, _ in b.items]:
            return DictV(tuple((k, join_values(x, y)) for (k, x), (_, y) in zip(a.items, b.items)))
        return UnknownV()
    if isinstance(a, SeqV) and isinstance(b, SeqV):
        return SeqV(join_values(a.elem, b.elem), a.kind)
    if isinstance(a, SeqV) and isinstance(b, TupleV):
        return SeqV(_join_all([a.elem, *b.items]), a.kind)
    if isinstance(a, TupleV) and isinstance(b, SeqV):
        return SeqV(_join_all([b.elem, *a.items]), b.kind)
    if isinstance(a, UnknownV) and isinstance(b, UnknownV):
        return a
    return UnknownV(_JOIN)


def _join_all(values: list[Value]) -> Value:
    if not values:
        return UnknownV(_JOIN)
    out = values[0]
    for v in values[1:]:
        out = join_values(out, v)
    return out


def join_states(a: State | None, b: State | None) -> State | None:
    """Join two states; ``None`` is an unreachable path (after return/raise)."""
    if a is None:
        return b
    if b is None:
        return a
    out: dict[str, Value] = {}
    for k, v in a.vars.items():
        w = b.vars.get(k)
        out[k] = v if w is None else join_values(v, w)
    for k, w in b.vars.items():
        if k not in out:
            out[k] = w
    return State(out, a.facts.join(b.facts))
