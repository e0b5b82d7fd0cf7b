"""Dims: the size of one tensor axis.

A dim is one of

* a plain ``int`` (kept out of sympy: most dims in real code are literals),
* a sympy expression over integer symbols (``b``, ``2*d``, ``floor(d/h)``),
* :class:`Unknown`, the gradual part: a size nobody can know statically.

A run of dims of unknown length is a :class:`Star` (``*batch`` or ``...``); it
only appears inside a shape, never as a dim.

Symbols come in two roles (see :mod:`tensorshape.unify.symbols`): *rigid* symbols
are names a user wrote in an annotation (universally quantified: the code must
work for every value), *opaque* symbols stand for a value that exists but is
unknown (``heads: int``, ``b, t = x.shape`` of an unannotated ``x``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias, Union

if TYPE_CHECKING:
    import sympy

__all__ = ["Dim", "Unknown", "UnknownSource", "Star", "is_int", "is_unknown", "is_symbolic"]


class UnknownSource(enum.Enum):
    """Why a dim or shape is unknown.

    ``tensorshape instrument`` and ``--statistics`` report unknowns by cause.
    """

    #: The user wrote ``_``, ``...``, ``Any`` or a bare ``Tensor`` annotation.
    ANNOTATED = "annotated"
    #: No annotation and nothing to infer from (an unannotated parameter).
    UNANNOTATED = "unannotated"
    #: The size depends on tensor values: ``nonzero()``, boolean masks, ``unique()``.
    DATA_DEPENDENT = "data-dependent"
    #: An op or construct tensorshape does not model.
    UNSUPPORTED = "unsupported"
    #: Control-flow paths (branches, loop iterations) disagree.
    JOIN = "join"
    #: A symbolic expression exceeded the work bound and was given up on.
    TOO_COMPLEX = "too-complex"
    #: The value of an expression that already produced an error.
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class Unknown:
    """A dim whose size is not known statically (the gradual ``Any``)."""

    #: Why it is unknown.
    source: UnknownSource = UnknownSource.UNANNOTATED

    def __str__(self) -> str:
        return "?"


@dataclass(frozen=True, slots=True)
class Star:
    """A run of dims of unknown length inside a shape.

    ``name`` is the variadic's name when it came from an annotation (``*batch``):
    two shapes holding ``Star("batch")`` share the same run of dims.  ``None``
    is anonymous (``...`` or a tensor of unknown rank).
    """

    name: str | None = None
    #: Why the run is unknown (only meaningful for anonymous runs).
    source: UnknownSource = UnknownSource.UNANNOTATED
    #: The most dims the run can have, when an op bounds it (an LSTM state's batch dim is there or
    #: not: at most 1); ``None``: no bound.  Only indexing reads it, anything else sees a plain run.
    most: int | None = None

    def __str__(self) -> str:
        return f"*{self.name}" if self.name else "..."


if TYPE_CHECKING:
    Expr: TypeAlias = sympy.Expr
else:
    Expr = Any

#: The size of one axis.
Dim: TypeAlias = Union[int, "Expr", Unknown]


def is_int(d: object) -> bool:
    """True for a concrete size (a Python ``int``, never ``bool``)."""
    return type(d) is int


def is_unknown(d: object) -> bool:
    return isinstance(d, Unknown)


def is_symbolic(d: object) -> bool:
    """True for a sympy expression (a dim that is neither an int nor unknown)."""
    return not (type(d) is int or isinstance(d, (Unknown, Star)))
