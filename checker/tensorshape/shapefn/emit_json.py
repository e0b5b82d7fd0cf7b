"""A shape function as JSON: sympy expressions as strings, for runtimes not written in Python."""

from __future__ import annotations

from typing import Any

from ..model.dims import Star, Unknown
from .emit_python import expr_to_python
from .model import Dynamic, OutDict, OutNone, Output, OutTensor, OutTuple, ShapeFunctionData

__all__ = ["to_json"]


def to_json(fn: ShapeFunctionData) -> dict[str, Any]:
    names = dict(fn.names)

    def dim(d: Any) -> Any:
        if isinstance(d, int):
            return d
        if isinstance(d, Star):
            return {"variadic": d.name}
        if isinstance(d, (Unknown, Dynamic)):
            return {"dynamic": d.source.value if isinstance(d, Unknown) else d.reason}
        return {
            "expr": str(d.xreplace({s: _sym(names[s]) for s in d.free_symbols})),
            "python": expr_to_python(d, names),
        }

    def out(o: Output) -> Any:
        if isinstance(o, OutTensor):
            if o.dims is None:
                return {"tensor": None, "dynamic_rank": o.dynamic_rank_reason}
            return {"tensor": [dim(d) for d in o.dims]}
        if isinstance(o, OutTuple):
            return {"tuple": [out(x) for x in o.items]}
        if isinstance(o, OutDict):
            return {"dict": {k: out(x) for k, x in o.items}}
        if isinstance(o, OutNone):
            return {"none": True}
        return {"unknown": o.reason}

    return {
        "version": 1,
        "function": fn.qualname,
        "name": fn.name,
        "inputs": [
            {"name": t.name, "pattern": None if t.pattern is None else [dim(d) for d in t.pattern]} for t in fn.tensors
        ],
        "scalars": [n for n, _ in fn.scalars],
        "constraints": [
            {"rel": c.rel.name.lower(), "lhs": dim(c.lhs), "rhs": dim(c.rhs), "message": c.message}
            for c in fn.constraints
        ],
        "output": out(fn.output),
    }


def _sym(name: str) -> Any:
    import sympy

    return sympy.Symbol(name, integer=True)
