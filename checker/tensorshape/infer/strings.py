"""Methods of strings whose value is known: ``name.split(".")``, ``source.partition(":")``.

A library resolves a model by taking its name apart (timm's ``"vit_small_patch16_224.augreg_in21k"``
is split into a registry key and a pretrained tag); the parts must stay literal for the registry
read that follows.  Each method here is computed with Python's own, so the result is what the
program sees; an argument that is not a known value makes the result unknown (a ``str`` of unknown
value where the method returns a string).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..model.dims import Unknown
from ..model.values import BoolV, IntV, NoneV, SeqKind, SeqV, StrV, TupleV, UnknownV, Value
from ..rules.context import Arg

__all__ = [
    "RE_FUNCTIONS",
    "SEQ_METHODS",
    "SeqMethodV",
    "StrMethodV",
    "STR_METHODS",
    "call_re",
    "call_seq_method",
    "call_str_method",
]


@dataclass(frozen=True, slots=True)
class StrMethodV(Value):
    """``s.split`` of a string of known value, before it is called."""

    receiver: str
    name: str


def _tuple(parts: Sequence[str], kind: SeqKind) -> Value:
    return TupleV(tuple(StrV(p) for p in parts), kind)


#: The methods followed, each with how its Python result becomes a value.
STR_METHODS: dict[str, Callable[[Any], Value]] = {
    **{m: StrV for m in ("lower", "upper", "strip", "lstrip", "rstrip", "replace", "removeprefix", "removesuffix")},
    **{m: StrV for m in ("title", "capitalize", "casefold", "join", "zfill", "ljust", "rjust", "center")},
    **{m: (lambda r: _tuple(r, SeqKind.LIST)) for m in ("split", "rsplit", "splitlines")},
    **{m: (lambda r: _tuple(r, SeqKind.TUPLE)) for m in ("partition", "rpartition")},
    **{m: BoolV for m in ("startswith", "endswith", "isdigit", "isalnum", "isalpha", "isidentifier")},
    **{m: BoolV for m in ("islower", "isupper", "isspace", "isnumeric", "isdecimal")},
    **{m: IntV for m in ("count", "find", "rfind")},
}


def _literal(v: Value) -> object:
    """The Python value of a known str, int, bool or ``None`` (or a tuple/list of known strs); raises
    ``LookupError`` otherwise."""
    if isinstance(v, StrV) and v.value is not None:
        return v.value
    if isinstance(v, BoolV) and v.value is not None:
        return v.value
    if type(v) is IntV and type(v.value) is int:
        return v.value
    if isinstance(v, TupleV):
        items = tuple(_literal(i) for i in v.items)
        return list(items) if v.kind is SeqKind.LIST else items
    if isinstance(v, NoneV):
        return None
    raise LookupError


def _literal_args(args: Sequence[Arg], kwargs: Mapping[str, Arg]) -> tuple[list[object], dict[str, object]]:
    """The Python values of a call's arguments (:func:`_literal`); raises ``LookupError`` when one is
    not known."""
    return [_literal(a.value) for a in args], {k: _literal(a.value) for k, a in kwargs.items()}


def call_str_method(method: StrMethodV, args: Sequence[Arg], kwargs: Mapping[str, Arg]) -> Value:
    """``s.<method>(...)`` computed with Python when every argument is known."""
    convert = STR_METHODS[method.name]
    unknown: Value = StrV(None) if convert is StrV else UnknownV()
    try:
        pos, kw = _literal_args(args, kwargs)
    except LookupError:
        return unknown
    try:
        result = getattr(method.receiver, method.name)(*pos, **kw)
    except (TypeError, ValueError):
        return unknown  # a call Python refuses: not this analysis's to report
    return convert(result)


#: The methods of a list or tuple that return an int (``labels.index(word)``, ``xs.count(x)``).
SEQ_METHODS = frozenset({"index", "count"})


@dataclass(frozen=True, slots=True)
class SeqMethodV(Value):
    """``labels.index`` of a list or tuple, before it is called."""

    receiver: TupleV | SeqV
    name: str


def call_seq_method(method: SeqMethodV, args: Sequence[Arg], kwargs: Mapping[str, Arg]) -> Value:
    """``xs.index(x)`` / ``xs.count(x)``: an int, computed with Python when the list and the
    arguments are known (a label's position in a vocabulary: ``torch.tensor(labels.index(word))``
    is a 0-d tensor whatever the word); of unknown value otherwise, or where Python raises (an item
    not in the list: not this analysis's to report)."""
    try:
        receiver = _literal(method.receiver)
        pos, kw = _literal_args(args, kwargs)
        result = getattr(receiver, method.name)(*pos, **kw)
    except (LookupError, TypeError, ValueError, AttributeError):
        return IntV(Unknown())
    return IntV(result) if type(result) is int else IntV(Unknown())


#: The functions of ``re`` computed on known strings, each with how its result becomes a value: the
#: ones that return strings or lists of them (a match object is not modelled).
RE_FUNCTIONS: dict[str, Callable[[Any], Value]] = {
    # (An optional group that took no part is ``None`` among the strings.)
    "re.split": lambda r: TupleV(tuple(StrV(p) if isinstance(p, str) else NoneV() for p in r), SeqKind.LIST),
    "re.sub": StrV,
    "re.escape": StrV,
}
#: A pattern or subject longer than this is not matched by the analysis (a string of unknown value).
MAX_RE_TEXT = 1_000


def call_re(name: str, args: Sequence[Arg], kwargs: Mapping[str, Arg]) -> Value:
    """``re.split(r"(\\d.*)", "k3")`` (timm's block strings), ``re.sub``, ``re.escape``: computed with
    Python's ``re`` when the pattern, the string and every other argument are known (and short);
    of unknown value otherwise, or where Python refuses the call."""
    convert = RE_FUNCTIONS[name]
    unknown: Value = StrV(None) if convert is StrV else UnknownV()
    try:
        pos, kw = _literal_args(args, kwargs)
    except LookupError:
        return unknown
    if any(isinstance(v, str) and len(v) > MAX_RE_TEXT for v in (*pos, *kw.values())):
        return unknown
    try:
        result = getattr(re, name.removeprefix("re."))(*pos, **kw)
    except (TypeError, ValueError, re.error, RecursionError):
        return unknown
    return convert(result)
