"""Packed sequences (``torch.nn.utils.rnn``): ``pack_padded_sequence``, ``pack_sequence`` and
``pad_packed_sequence``, whose ``PackedSequence`` (:class:`PackedV`) an RNN, GRU or LSTM runs over
(see ``rnn`` in ``nn.py``)."""

from __future__ import annotations

from ...lang.render import render_dim, render_shape
from ...model import codes
from ...model.constraints import Rel
from ...model.dims import Dim, Unknown, UnknownSource
from ...model.shape import Item, Shape
from ...model.values import IntV, PackedV, SeqV, TensorV, TupleV, UnknownV, Value, unknown_tensor
from ...unify.compare import Verdict, eq3, le3
from ..call import Call
from ..registry import rule
from .shape_ops import sequences

_ERR = unknown_tensor(UnknownSource.ERROR)
_SORTED_HINT = "sort the batch by length, longest first, or pass enforce_sorted=False"


def _sorted(call: Call, lengths: tuple[Dim, ...], at: str) -> bool:
    """``enforce_sorted`` (the default) needs lengths in decreasing order: false when known not to be."""
    if call.bool("enforce_sorted") is False:
        return True
    known = [d for d in lengths if type(d) is int]
    if len(known) == len(lengths) and any(a < b for a, b in zip(known, known[1:])):
        shown = ", ".join(render_dim(d) for d in lengths)
        call.error(
            codes.INVALID_ARG,
            f"`lengths` [{shown}] must be sorted in decreasing order when `enforce_sorted` is True",
            at,
            _SORTED_HINT,
        )
        return False
    return True


def _packed(
    call: Call, features: tuple[Item, ...], batch: Dim, lengths: tuple[Dim, ...] | None, padded: Dim | None
) -> PackedV:
    """The ``PackedSequence`` of ``batch`` sequences of ``*features``,
    of lengths ``lengths`` when known, padded to ``padded`` when it came from a padded batch."""
    known = [d for d in lengths or () if type(d) is int]
    if lengths and len(known) == len(lengths):
        total: Dim = sum(known)
        longest: Dim = max(known)
    else:
        total = call.fresh("packed")
        longest = call.fresh("max_len")
        # Every sequence has a step (torch raises for a length of 0), and none is longer than the
        # padded batch it is read from (a longer one reads past its end: garbage, or a later error).
        call.ctx.at_least_one(longest)
        if padded is not None:
            call.ctx.at_most(longest, padded)
    return PackedV(TensorV(Shape((total, *features))), batch, longest)


def _lengths(call: Call) -> tuple[Dim | None, tuple[Dim, ...] | None] | None:
    """``lengths``: its count (``None`` when not known) and its values when they are known ints or
    sizes (a list); ``None`` after an error."""
    v = call.value("lengths")
    if isinstance(v, TupleV):
        items = tuple(x.value if isinstance(x, IntV) else Unknown() for x in v.items)
        return len(items), items
    if isinstance(v, SeqV):
        return v.length, None
    if isinstance(v, TensorV):
        s = v.shape
        if s.rank is not None and s.rank != 1:
            call.error(
                codes.RANK_MISMATCH,
                f"'lengths' argument should be a 1-D CPU int64 tensor, got {render_shape(s)}",
                "lengths",
                "one length per sequence of the batch",
            )
            return None
        return (s.dims[0] if s.rank == 1 else None), None
    return None, None


@rule("pack_padded_sequence")
def pack_padded_sequence(call: Call) -> Value:
    """``pack_padded_sequence([B L *f] or [L B *f], lengths)``: a ``PackedSequence`` of ``B`` sequences
    whose steps are ``[sum(lengths) *f]``; ``lengths`` is 1-D with ``B`` entries, each at least 1, in
    decreasing order unless ``enforce_sorted=False``."""
    x = call.shape("input")
    if x is None:
        return UnknownV()
    if x.rank is not None and x.rank < 2:
        call.error(
            codes.RANK_MISMATCH, f"input must be [L, B, *] or [B, L, *] (at least 2-D), got {render_shape(x)}", "input"
        )
        return _ERR
    got = _lengths(call)
    if got is None:
        return _ERR
    count, values = got
    if values is not None:
        bad = [d for d in values if type(d) is int and d <= 0]
        if bad:
            call.error(
                codes.INVALID_ARG,
                f"every sequence needs a step, but a length in `lengths` is {bad[0]}",
                "lengths",
                "drop empty sequences from the batch",
            )
            return _ERR
        if not _sorted(call, values, "lengths"):
            return _ERR
    batch_first = call.bool("batch_first")
    if x.rank is None or batch_first is None:
        return PackedV(TensorV(Shape.unknown()), Unknown(), Unknown())
    batch, padded = (x.dims[0], x.dims[1]) if batch_first else (x.dims[1], x.dims[0])
    if count is not None:
        verdict = call.check(
            eq3(count, batch, call.facts),
            (count, batch),
            lambda: (
                f"expected `len(lengths)` ({render_dim(count)}) to be the batch size {render_dim(batch)}"
                f" of {render_shape(x)}"
            ),
            at="lengths",
            rel=Rel.EQ,
            hint="one length per sequence; with batch_first=False the batch is the input's second dim",
        )
        if verdict is Verdict.ERROR:
            return _ERR
    return _packed(call, x.items[2:], batch, values, padded)


@rule("pack_sequence")
def pack_sequence(call: Call) -> Value:
    """``pack_sequence([L_i *f])``: the ``PackedSequence`` of the sequences (each must fit the first's
    ``*f``), in decreasing order of length unless ``enforce_sorted=False``."""
    got = sequences(call, "sequences")
    if isinstance(got, Value):
        return UnknownV() if isinstance(got, TensorV) and got != _ERR else got
    if got.lengths is not None and not _sorted(call, got.lengths, "sequences"):
        return _ERR
    return _packed(call, got.trailing, got.rows, got.lengths, None)


@rule("pad_packed_sequence")
def pad_packed_sequence(call: Call) -> Value:
    """``pad_packed_sequence(packed)``: ``(padded, lengths)``, ``padded`` of ``[B T *f]``
    (``batch_first``) or ``[T B *f]`` where ``T`` is ``max(lengths)``, or ``total_length``, which must
    not be less; ``lengths`` is ``[B]`` (int64)."""
    p = call.value("sequence")
    if not isinstance(p, PackedV):
        return UnknownV()
    length: Dim = p.longest
    if call.has("total_length") and not call.is_none("total_length"):
        total = call.int("total_length")
        if total is None or isinstance(total, Unknown):
            length = Unknown()
        else:
            verdict = call.check(
                le3(p.longest, total, call.facts),
                (p.longest, total),
                lambda: f"total_length={render_dim(total)} is less than the longest sequence ({render_dim(p.longest)})",
                at="total_length",
                code=codes.INVALID_ARG,
                rel=Rel.LE,
                hint="total_length pads every batch to one length: it must be at least the longest",
            )
            if verdict is Verdict.ERROR:
                return TupleV((_ERR, _ERR))
            length = total
    data = p.data.shape
    features = data.items[1:] if data.rank is not None else None
    batch_first = call.bool("batch_first")
    if features is None or batch_first is None:
        padded = TensorV(Shape.unknown(), p.data.dtype)
    else:
        lead = (p.batch, length) if batch_first else (length, p.batch)
        padded = TensorV(Shape((*lead, *features)), p.data.dtype)
    return TupleV((padded, TensorV(Shape((p.batch,)), "int64")))
