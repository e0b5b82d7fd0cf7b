"""Carry tensorshape values on mypy types.

A shape rides on the real ``torch.Tensor`` instance (never a type of our own):
``Instance.extra_attrs`` holds one attribute, :data:`KEY`, whose type is a
``Literal`` string.  The string is either

* ``A<dtype>|<shape string>``: an annotation (``Float[Tensor, "b t d"]``), read
  as rigid symbols inside the annotated function and matched at its call sites;
* ``V<json>``: a computed abstract value (:func:`encode`), in the scope where
  it was computed.

mypy serialises ``extra_attrs`` with the type, so carried values survive the
incremental cache and the daemon.  Joins of different values drop them (mypy
builds a fresh instance), which is the gradual answer: unknown.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any

from mypy.types import ExtraAttrs, Instance, LiteralType, Type, get_proper_type
from tensorshape.lang.jaxtyping import tensor_dtype
from tensorshape.lang.parse import parse_shape
from tensorshape.model.dims import Dim, Star, Unknown, UnknownSource
from tensorshape.model.shape import Shape
from tensorshape.model.spec import ShapeSpec
from tensorshape.model.values import (
    NONE,
    BoolV,
    FloatV,
    IntV,
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
from tensorshape.unify.symbols import is_rigid_symbol

__all__ = ["KEY", "Spec", "attach", "carried", "encode", "decode", "has_carried"]

#: The attribute name on ``extra_attrs`` (never a real tensor attribute).
KEY = "__tensorshape__"


@dataclass(frozen=True, slots=True)
class Spec:
    """A shape annotation carried on a tensor type."""

    spec: ShapeSpec
    #: jaxtyping's dtype family (``"float"``, ``"int32"``...), or ``None``.
    family: str | None

    def value(self) -> TensorV:
        """The annotated value inside the annotated function: rigid symbols named as written."""
        from tensorshape.rules.signature import rigid_shape  # the rules: only once there is code to check

        return TensorV(rigid_shape(self.spec), tensor_dtype(self.family))


# -- on mypy types -------------------------------------------------------------------------


def attach(typ: Instance, text: str) -> Instance:
    """A copy of ``typ`` carrying ``text`` (``copy_modified`` cannot set ``extra_attrs``)."""
    lit = LiteralType(text, _str_fallback(typ))
    extra = typ.extra_attrs.copy() if typ.extra_attrs else ExtraAttrs({}, set(), None)
    extra.attrs[KEY] = lit
    extra.immutable.add(KEY)
    return Instance(typ.type, typ.args, typ.line, typ.column, last_known_value=typ.last_known_value, extra_attrs=extra)


def strip(typ: Instance) -> Instance:
    """``typ`` without a carried value."""
    if typ.extra_attrs is None or KEY not in typ.extra_attrs.attrs:
        return typ
    extra = typ.extra_attrs.copy()
    del extra.attrs[KEY]
    extra.immutable.discard(KEY)
    return Instance(
        typ.type,
        typ.args,
        typ.line,
        typ.column,
        last_known_value=typ.last_known_value,
        extra_attrs=extra if extra.attrs else None,
    )


_STR: list[Instance] = []


def set_str_type(t: Instance) -> None:
    """The ``builtins.str`` instance used as the literal's fallback (set once per run)."""
    _STR[:] = [t]


def _str_fallback(typ: Instance) -> Instance:
    # The fallback only matters if mypy ever looks at the attribute's type
    # (``x.__tensorshape__``); any instance works for serialisation.
    return _STR[0] if _STR else typ


def has_carried(typ: Type) -> bool:
    t = get_proper_type(typ)
    return isinstance(t, Instance) and t.extra_attrs is not None and KEY in t.extra_attrs.attrs


def carried_text(typ: Type) -> str | None:
    t = get_proper_type(typ)
    if not isinstance(t, Instance) or t.extra_attrs is None:
        return None
    lit = get_proper_type(t.extra_attrs.attrs.get(KEY))
    if isinstance(lit, LiteralType) and isinstance(lit.value, str):
        return lit.value
    return None


def carried(typ: Type) -> Value | Spec | None:
    """The value or annotation ``typ`` carries, or ``None``."""
    text = carried_text(typ)
    return None if text is None else decode(text)


# -- the text form ---------------------------------------------------------------------------


def annotation_text(spec_text: str, family: str | None) -> str:
    return f"A{family or ''}|{spec_text}"


def encode(v: Value) -> str | None:
    """``v`` as text, or ``None`` when it says nothing worth carrying."""
    j = _enc(v)
    if j is None or j == ["?"]:
        return None
    return "V" + json.dumps(j, separators=(",", ":"))


@functools.lru_cache(maxsize=8192)
def decode(text: str) -> Value | Spec | None:
    try:
        if text.startswith("A"):
            family, _, spec = text[1:].partition("|")
            return Spec(parse_shape(spec), family or None)
        if text.startswith("V"):
            return _dec(json.loads(text[1:]))
    except Exception:  # noqa: BLE001 - a value we cannot read back is unknown
        return None
    return None


def _enc_dim(d: Dim | Star) -> Any:
    if isinstance(d, Star):
        return f"*{d.name}" if d.name else "..."
    if type(d) is int:
        return d
    if isinstance(d, Unknown):
        return "?"
    # Opaque symbols belong to one analysed call: outside it they are unknown.
    if any(not is_rigid_symbol(s) for s in getattr(d, "free_symbols", ())):
        return "?"
    from sympy import srepr

    return {"e": srepr(d)}


def _dec_dim(j: Any) -> Dim | Star:
    if type(j) is int:
        return j
    if j == "?":
        return Unknown(UnknownSource.UNSUPPORTED)
    if j == "...":
        return Star(None)
    if isinstance(j, str) and j.startswith("*"):
        return Star(j[1:])
    if isinstance(j, dict):
        return _sym(j["e"])
    raise ValueError(j)


@functools.lru_cache(maxsize=4096)
def _sym(text: str) -> Any:
    import sympy

    return sympy.sympify(text)


def _enc(v: Value) -> Any:
    if isinstance(v, TensorV):
        return ["T", [_enc_dim(d) for d in v.shape.items], v.dtype]
    if isinstance(v, IntV):
        return ["I", _enc_dim(v.value)] if not isinstance(v.value, Unknown) else None
    if isinstance(v, BoolV):
        return ["B", v.value]
    if isinstance(v, FloatV):
        return ["F", v.value]
    if isinstance(v, StrV):
        return ["S", v.value]
    if isinstance(v, NoneV):
        return ["N"]
    if isinstance(v, TupleV):
        return ["U", v.kind.value, [_enc(i) or ["?"] for i in v.items]]
    if isinstance(v, SeqV):
        return ["Q", v.kind.value, _enc(v.elem) or ["?"]]
    if isinstance(v, ModuleV):
        args = {}
        for k, a in v.args.items():
            e = _enc(a)
            if e is not None:
                args[k] = e
        return ["M", v.qualname, args, [_enc(c) or ["?"] for c in v.children]]
    return None


def _dec(j: Any) -> Value:
    tag = j[0]
    if tag == "T":
        items = tuple(_dec_dim(d) for d in j[1])
        return TensorV(Shape(items), j[2])
    if tag == "I":
        d = _dec_dim(j[1])
        assert not isinstance(d, Star)
        return IntV(d)
    if tag == "B":
        return BoolV(j[1])
    if tag == "F":
        return FloatV(j[1])
    if tag == "S":
        return StrV(j[1])
    if tag == "N":
        return NONE
    if tag == "U":
        return TupleV(tuple(_dec(i) for i in j[2]), SeqKind(j[1]))
    if tag == "Q":
        return SeqV(_dec(j[2]), SeqKind(j[1]))
    if tag == "M":
        return ModuleV(j[1], {k: _dec(a) for k, a in j[2].items()}, tuple(_dec(c) for c in j[3]))
    return UnknownV(UnknownSource.UNSUPPORTED)
