"""Abstract values: what the analysis knows about each Python value.

Op rules receive and return these.  Both front ends translate their own view
(libcst expressions, mypy types) into these values, so both get the same verdicts.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from .dims import Dim, Unknown, UnknownSource
from .shape import Shape

__all__ = [
    "Value",
    "TensorV",
    "Layout",
    "Strides",
    "Contents",
    "IntV",
    "MaybeIntV",
    "FloatV",
    "BoolV",
    "StrV",
    "NoneV",
    "NONE",
    "EllipsisV",
    "ELLIPSIS",
    "TupleV",
    "SeqKind",
    "RunV",
    "SeqV",
    "SliceV",
    "DTypeV",
    "ModuleV",
    "DatasetV",
    "LoaderV",
    "PackedV",
    "UnknownV",
    "UNKNOWN",
    "unknown_tensor",
    "constant_value",
]


class Value:
    """Base of every abstract value.

    Front ends add their own value classes (functions, user objects) by
    subclassing; rules treat values they do not recognise as unknown.
    """

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Layout:
    """Vollo layout facts about a tensor (see ``docs/vollo.md``).

    ``constant`` tensors are compile-time constants (weights, buffers, tensors
    built from literals); they have no data dimension.  Activations have one,
    at axis ``data_dim`` (``None`` when not known).
    """

    constant: bool
    data_dim: int | None = None


@dataclass(frozen=True, slots=True)
class Strides:
    """A tensor's strides (in elements), where its memory layout is known.

    Set by the ops whose result's layout torch defines (a fresh tensor, ``contiguous()``,
    ``transpose``/``permute``, a ``view``), dropped by every other op.  ``assumed``: the
    layout derives from a tensor whose own layout was not known, taken as contiguous: what
    it implies is an obligation, never an error.
    """

    values: tuple[Dim, ...]
    assumed: bool = False
    #: Row-major contiguous (whatever the sizes): every view of it works and is contiguous.
    dense: bool = False


@dataclass(frozen=True, slots=True)
class Contents:
    """The elements of a small tensor that the code computes from constants (RegNet's stage widths,
    ``torch.arange(depth) * w_a + w_0``), in row-major order, as torch holds them (a ``float32``
    element is a float that ``float32`` represents).

    ``inexact``: some element came through a function torch computes to within an ulp or so rather
    than correctly rounded (``log``, ``exp``, ``pow``): an int read from it (``round``, ``floor``,
    ``int()``) is trusted only away from the boundary where the ulp could change it."""

    values: tuple[int | float | bool, ...]
    #: The element type torch computes in (``"int64"``, ``"float32"``...): the rules' ``dtype`` is
    #: not tracked through promotion, this one is.
    dtype: str
    inexact: bool = False


@dataclass(frozen=True, slots=True)
class TensorV(Value):
    """A tensor of a given shape."""

    shape: Shape
    #: ``"float32"``, ``"int64"``, ``"bool"``... or ``None`` when not known.
    dtype: str | None = None
    #: Vollo layout, when the Vollo analysis is on.
    layout: Layout | None = None
    #: PyTorch named-tensor names, one per axis, when known.
    names: tuple[str | None, ...] | None = None
    #: Memory layout, when known (``None``: no claim).
    strides: Strides | None = None
    #: The elements, for a small tensor computed from constants (``rules/contents.py``).
    contents: Contents | None = None

    def with_shape(self, shape: Shape) -> TensorV:
        return replace(self, shape=shape, strides=None, contents=None)


def unknown_tensor(source: UnknownSource = UnknownSource.UNANNOTATED, dtype: str | None = None) -> TensorV:
    return TensorV(Shape.unknown(source), dtype)


@dataclass(frozen=True, slots=True)
class IntV(Value):
    """A Python int, possibly symbolic (``b``) or unknown."""

    value: Dim


@dataclass(frozen=True, slots=True)
class MaybeIntV(IntV):
    """A value that is an int where an int is expected, but might be a tensor or a tuple.

    An unknown object's attribute (``config.hidden_size``) or an unannotated
    parameter used in int arithmetic: rules read it as an int size, but never
    as a 0-d tensor or as a one-element shape.
    """


@dataclass(frozen=True, slots=True)
class FloatV(Value):
    value: float | None = None


@dataclass(frozen=True, slots=True)
class BoolV(Value):
    value: bool | None = None


@dataclass(frozen=True, slots=True)
class StrV(Value):
    value: str | None = None


@dataclass(frozen=True, slots=True)
class NoneV(Value):
    def __reduce__(self) -> tuple[Callable[[], NoneV], tuple[()]]:
        # One ``None`` value once pickled (code compares with ``is NONE``): a cached op table's defaults.
        return _none, ()


NONE = NoneV()


def _none() -> NoneV:
    return NONE


@dataclass(frozen=True, slots=True)
class EllipsisV(Value):
    def __reduce__(self) -> tuple[Callable[[], EllipsisV], tuple[()]]:
        return _ellipsis, ()


ELLIPSIS = EllipsisV()


def _ellipsis() -> EllipsisV:
    return ELLIPSIS


class SeqKind(enum.Enum):
    TUPLE = "tuple"
    LIST = "list"
    #: ``torch.Size``: a tuple of ints that is a tensor's shape.
    SIZE = "size"
    #: A set display of distinct literals (``{"pool_size", "classifier"}``): what ``in`` and ``len``
    #: read; its iteration order is not the display's, so loops over it are not unrolled.
    SET = "set"
    #: A ``collections.deque``: a list to iteration, indexing and ``len``, edited at both ends
    #: (``appendleft``), and an instance of neither ``list`` nor ``tuple``.
    DEQUE = "deque"


@dataclass(frozen=True, slots=True)
class TupleV(Value):
    """A tuple, list or ``torch.Size`` of known length."""

    items: tuple[Value, ...]
    kind: SeqKind = SeqKind.TUPLE


@dataclass(frozen=True, slots=True)
class SeqV(Value):
    """A sequence whose elements all look like ``elem``, of ``length`` items when that is a known
    size though not a known count (``batch_size`` samples handed to a ``collate_fn``, ``n`` modules
    of a ``ModuleList`` built over ``range(n)``), of unknown length otherwise."""

    elem: Value
    kind: SeqKind = SeqKind.LIST
    #: The number of elements (an int or a symbol); ``None``: unknown.
    length: Dim | None = None
    #: The items may differ in the dims of ``elem`` that are not ints (a list appended to in a loop,
    #: one item per iteration): ``elem`` is their join, not each item's shape.
    varied: bool = False
    #: A tensor's ``.shape`` of unknown rank, or a slice of one (``x.shape[:-1]``): its sizes as a
    #: shape holding that run (``[b *s]``); ``None`` for any other sequence.
    sizes: Shape | None = None


@dataclass(frozen=True, slots=True)
class RunV(Value):
    """``*x.shape[:-1]`` spliced into the size arguments of ``view``/``reshape`` where ``x`` has a run
    of dims of unknown length: those sizes as a shape, the run among them."""

    sizes: Shape


@dataclass(frozen=True, slots=True)
class DictV(Value):
    """A dict with string-literal keys (``{"logits": x, "hidden": h}``), in insertion order."""

    items: tuple[tuple[str, Value], ...]

    def get(self, key: str) -> Value | None:
        """The value of the first entry with ``key`` (``None``: no such entry)."""
        items = self.items
        if len(items) < _INDEXED_FROM:
            for k, v in items:
                if k == key:
                    return v
            return None
        return _index(self).get(key)

    def has(self, key: str) -> bool:
        """Does the dict have an entry with ``key``?"""
        items = self.items
        if len(items) < _INDEXED_FROM:
            return any(k == key for k, _ in items)
        return key in _index(self)


#: Dicts with at least this many entries are looked up through an index (a registry filled one
#: entry at a time is looked up at each new entry: a scan of each would cost the square of its size).
_INDEXED_FROM = 16
#: The indexes of the last large dicts looked up, by ``id`` (each kept with its dict, so the ``id``
#: stays its own); emptied when it holds this many.
_MAX_INDEXES = 256
_INDEXES: dict[int, tuple[DictV, dict[str, Value]]] = {}


def carry_index(before: DictV, after: DictV, key: str, value: Value) -> None:
    """``after`` is ``before`` with ``key`` set to ``value`` (its entries replaced, else one added
    last): its index is ``before``'s with that entry, when ``before`` has one (a copy of a dict costs
    a small part of building it from the entries)."""
    hit = _INDEXES.get(id(before))
    if hit is not None and hit[0] is before and len(after.items) >= _INDEXED_FROM:
        index = hit[1].copy()
        index[key] = value
        if len(_INDEXES) >= _MAX_INDEXES:
            _INDEXES.clear()
        _INDEXES[id(after)] = (after, index)


def _index(d: DictV) -> dict[str, Value]:
    """Key -> value of the first entry with that key, of ``d``."""
    hit = _INDEXES.get(id(d))
    if hit is None or hit[0] is not d:
        if len(_INDEXES) >= _MAX_INDEXES:
            _INDEXES.clear()
        hit = (d, dict(reversed(d.items)))  # reversed: the first entry of a key wins, as a scan finds it
        _INDEXES[id(d)] = hit
    return hit[1]


@dataclass(frozen=True, slots=True)
class SliceV(Value):
    start: Value
    stop: Value
    step: Value


@dataclass(frozen=True, slots=True)
class DTypeV(Value):
    """A ``torch.dtype`` such as ``torch.float32`` (``name`` is ``"float32"``)."""

    name: str | None


@dataclass(frozen=True, slots=True)
class ModuleV(Value):
    """An instance of a modelled ``torch.nn`` module class (``nn.Linear(128, 10)``).

    ``qualname`` is the class's canonical name (``"torch.nn.Linear"``) and
    ``args`` the constructor arguments bound to its stub signature.
    ``children`` holds submodules of containers (``Sequential``, ``ModuleList``).
    """

    qualname: str
    args: Mapping[str, Value] = field(default_factory=dict)
    children: tuple[Value, ...] = ()

    def __hash__(self) -> int:
        return hash((self.qualname, tuple(self.args.items()), self.children))


@dataclass(frozen=True, slots=True)
class DatasetV(Value):
    """A map-style dataset (``torch.utils.data``): ``dataset[i]`` is ``sample``, ``len(dataset)`` is ``length``."""

    sample: Value
    #: ``len(dataset)``, when known (``None``: unknown).
    length: Dim | None = None


@dataclass(frozen=True, slots=True)
class LoaderV(Value):
    """A ``DataLoader``: iterating it gives ``batch``; the last batch may be ``last`` instead.

    ``last`` is the batch that a partial last batch gives (``batch_size`` rows
    replaced by what is left over), or ``None`` when every batch is full
    (``drop_last=True``, a length that is a multiple, or no batching).
    ``condition`` says, for messages, when that last batch happens.
    """

    batch: Value
    dataset: Value
    batch_size: Dim | None = None
    last: Value | None = None
    #: Rows in ``last`` (an int, or a symbol when the dataset's length is not known).
    last_rows: Dim | None = None
    condition: str | None = None
    #: ``len(loader)``: the number of batches, when known.
    length: Dim | None = None


@dataclass(frozen=True, slots=True)
class PackedV(Value):
    """A ``PackedSequence`` (``torch.nn.utils.rnn``): ``batch`` sequences of at most ``longest`` steps,
    their steps stacked in ``data`` (``[sum(lengths) *features]``)."""

    data: TensorV
    #: How many sequences (``len(lengths)``).
    batch: Dim
    #: ``max(lengths)``: the length ``pad_packed_sequence`` pads to without ``total_length``.
    longest: Dim


@dataclass(frozen=True, slots=True)
class UnknownV(Value):
    """A value the analysis knows nothing about."""

    source: UnknownSource = UnknownSource.UNANNOTATED
    #: Why, when a cause outside the code explains it (a library call that was not followed), shown
    #: by ``reveal_shape`` and hover: ``"not followed: C extension"``.
    why: str | None = None


UNKNOWN = UnknownV()


def int_value(v: Value) -> Dim | None:
    """The dim an int-like value holds (``IntV``, ``BoolV``), else ``None``."""
    if isinstance(v, IntV):
        return v.value
    if isinstance(v, BoolV):
        return Unknown() if v.value is None else int(v.value)
    return None


def constant_value(v: object, item: Callable[[object], Value | None] | None = None) -> Value | None:
    """The value of a Python constant, or ``None`` when ``v`` is not one.

    Constants are ``bool``, ``int``, ``float``, ``str``, ``None`` and ``...``,
    and slices, lists and tuples of them.  ``item`` converts the elements of
    slices, lists and tuples (a front end passes its own converter to accept
    tensors there); an element it cannot convert is unknown.  Shared by the stub
    loader (defaults), the mypy plugin (literal types) and the tests' harness.
    """
    if isinstance(v, bool):
        return BoolV(v)
    if isinstance(v, int):
        return IntV(v)
    if isinstance(v, float):
        return FloatV(v)
    if isinstance(v, str):
        return StrV(v)
    if v is None:
        return NONE
    if v is Ellipsis:
        return ELLIPSIS
    conv = item or constant_value

    def elem(x: object) -> Value:
        return conv(x) or UNKNOWN

    if isinstance(v, slice):
        return SliceV(elem(v.start), elem(v.stop), elem(v.step))
    if isinstance(v, (list, tuple)):
        return TupleV(tuple(elem(x) for x in v), SeqKind.LIST if isinstance(v, list) else SeqKind.TUPLE)
    return None
