"""Shape functions: a function's output shapes as a function of its input shapes.

``derive(path, "Block.forward")`` analyses one function and returns a
:class:`~tensorshape.shapefn.function.ShapeFunction`: its inputs (shape patterns
and the int arguments the shapes depend on), its outputs as sympy expressions,
and every constraint the analysis found.  It emits standalone Python (no
dependency but the standard library) or JSON, as TVM Relay's shape functions
let a runtime allocate outputs before running a model.  See ``docs/shapefn.md``.
"""

from __future__ import annotations

from .derive import ShapeFunctionUnavailable, derive
from .function import ShapeFunction
from .model import Dynamic, OutDict, OutNone, OutTensor, OutTuple, OutUnknown, TensorInput

__all__ = [
    "derive",
    "ShapeFunction",
    "ShapeFunctionUnavailable",
    "TensorInput",
    "OutTensor",
    "OutTuple",
    "OutDict",
    "OutNone",
    "OutUnknown",
    "Dynamic",
]
