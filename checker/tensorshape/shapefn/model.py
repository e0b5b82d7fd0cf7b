"""The data model of a derived shape function."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from ..model.constraints import Constraint
from ..model.dims import Dim, Star

__all__ = [
    "TensorInput",
    "Dynamic",
    "OutDim",
    "OutTensor",
    "OutTuple",
    "OutDict",
    "OutNone",
    "OutUnknown",
    "Output",
    "ShapeFunctionData",
]


@dataclass(frozen=True, slots=True)
class TensorInput:
    """A tensor parameter: the pattern its shape must match (ints, symbols, expressions, ``*name``)."""

    name: str
    #: ``None``: the rank is not known (the parameter has no shape annotation).
    pattern: tuple[Dim | Star, ...] | None


@dataclass(frozen=True, slots=True)
class Dynamic:
    """An output dim that cannot be computed from the input shapes (Relay's ``Any``)."""

    #: ``data-dependent`` (``nonzero``, masks, ``unique``), ``unannotated``, ``unsupported``...
    reason: str


OutDim = Union[Dim, Star, Dynamic]


@dataclass(frozen=True, slots=True)
class OutTensor:
    #: ``None``: not even the rank is known.
    dims: tuple[OutDim, ...] | None
    dynamic_rank_reason: str | None = None


@dataclass(frozen=True, slots=True)
class OutTuple:
    items: tuple[Output, ...]


@dataclass(frozen=True, slots=True)
class OutDict:
    items: tuple[tuple[str, Output], ...]


@dataclass(frozen=True, slots=True)
class OutNone:
    pass


@dataclass(frozen=True, slots=True)
class OutUnknown:
    """A returned value that is not a tensor, tuple, dict or None (or is not known)."""

    reason: str


Output = Union[OutTensor, OutTuple, OutDict, OutNone, OutUnknown]


@dataclass(frozen=True, slots=True)
class ShapeFunctionData:
    #: ``Block.forward``
    qualname: str
    #: The emitted function's name (``block_forward_shape``).
    name: str
    tensors: tuple[TensorInput, ...]
    #: Int arguments the shapes depend on, by emitted name, with the symbol they stand for.
    scalars: tuple[tuple[str, Any], ...]
    constraints: tuple[Constraint, ...]
    output: Output
    #: Emitted identifier of every symbol (rigid and opaque symbols may share a printed name).
    names: tuple[tuple[Any, str], ...]

    def expressions(self) -> Output:
        """The outputs, with dims as ints and sympy expressions over the inputs' symbols."""
        return self.output
