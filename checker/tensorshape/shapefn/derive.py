"""Derive a shape function by analysing one function with symbolic inputs."""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..lang.parse import ShapeSyntaxError, parse_shape
from ..model.constraints import Constraint
from ..model.diagnostics import Diagnostic, Severity
from ..model.dims import Star, Unknown, UnknownSource
from ..model.shape import Item, Shape
from ..model.spec import DimKind, ShapeSpec
from ..model.values import NONE, DictV, TensorV, TupleV, Value
from ..rules.context import Options
from ..unify.specexpr import evaluate
from ..unify.symbols import opaque
from .function import ShapeFunction
from .model import (
    Dynamic,
    OutDict,
    OutDim,
    OutNone,
    Output,
    OutTensor,
    OutTuple,
    OutUnknown,
    TensorInput,
)

__all__ = ["derive", "ShapeFunctionUnavailable"]


class ShapeFunctionUnavailable(Exception):
    """The function cannot be given a shape function (not found, or its analysis reports errors)."""

    def __init__(self, message: str, diagnostics: Iterable[Diagnostic] = ()):
        super().__init__(message)
        self.message = message
        self.diagnostics = list(diagnostics)


def derive(
    path: str | Path,
    qualname: str,
    inputs: Mapping[str, str] | None = None,
    *,
    options: Options | None = None,
    source: str | None = None,
) -> ShapeFunction:
    """The shape function of ``qualname`` (``f`` or ``Class.method``) in the file ``path``.

    ``inputs`` gives shape strings for tensor parameters that have no shape
    annotation (``{"x": "b t d"}``).  ``source`` checks that text instead of
    reading ``path``.
    """
    from ..infer.analyzer import Analyzer, Frame, _body
    from ..infer.project import Project
    from ..infer.state import State, join_values
    from ..infer.values import ClassV, FunctionV

    project = Project()
    if source is not None:
        info = project.add_source(source, str(path))
    else:
        loaded = project.load_path(Path(path))
        if isinstance(loaded, str):
            raise ShapeFunctionUnavailable(f"{path}: {loaded}")
        info = loaded
    if info.tree is None or info.spans is None:
        f = info.failure
        why = f.message if f is not None and f.skipped else f"syntax error: {f.message if f else 'cannot parse'}"
        raise ShapeFunctionUnavailable(f"{path}: {why}")
    an = Analyzer(project, replace(options or Options(), exact_bounds=True))
    an.checked = info
    an._module_diags = []
    an._module_obligations = []
    an.run_module(info)

    owner: ClassV | None = None
    found: Any = info.globals.get(qualname.split(".")[0])
    for part in qualname.split(".")[1:]:
        if not isinstance(found, ClassV):
            found = None
            break
        owner = found
        found = found.lookup(part)
    if not isinstance(found, FunctionV):
        raise ShapeFunctionUnavailable(f"{path}: no function `{qualname}`")
    func = found
    sig = an.signature(func)
    opaque_paths: dict[str, Any] = {}
    instance = an.generic_instance(owner, opaque_paths) if owner is not None and sig.is_method else None
    frame = Frame(info, an.new_context(), func, sig, opaque=opaque_paths)
    state = State()
    an.bind_generic_params(frame, state, sig, instance)
    for name, text in (inputs or {}).items():
        if name not in {p.name for p in sig.params}:
            raise ShapeFunctionUnavailable(f"`{qualname}` has no parameter `{name}`")
        try:
            spec = parse_shape(text)
        except ShapeSyntaxError as e:
            raise ShapeFunctionUnavailable(f"--input {name}: {e}") from None
        state.vars[name] = TensorV(_input_shape(spec))

    tensors: list[TensorInput] = []
    for i, p in enumerate(sig.params):
        if i == 0 and instance is not None:
            continue
        v = state.vars.get(p.name)
        if isinstance(v, TensorV):
            tensors.append(TensorInput(p.name, _pattern(v.shape)))

    end = an.exec_block(frame, state, list(_body(func.node)))
    result: Value | None = None
    for r in frame.returns:
        result = r if result is None else join_values(result, r)
    if end is not None:
        result = NONE if result is None else join_values(result, NONE)

    errors = [d for d in an._module_diags + frame.ctx.diagnostics if d.severity is Severity.ERROR]
    if errors:
        resolved = info.spans.resolve_all(errors)
        first = resolved[0]
        raise ShapeFunctionUnavailable(
            f"{path}:{first.span.line}:{first.span.column + 1}: the analysis of `{qualname}` reports "
            f"{len(errors)} error(s), first: {first.message}",
            resolved,
        )

    constraints: list[Constraint] = []
    if owner is not None:
        constraints.extend(an.instance_constraints.get(owner, ()))
    for c in frame.ctx.constraints:
        if c not in constraints:
            constraints.append(c)
    input_stars = {d.name for t in tensors for d in t.pattern or () if isinstance(d, Star) and d.name}
    output = _output(result, input_stars)

    bound = _bound_symbols(tensors)
    output = _without_ragged_internals(output, bound)
    symbols: dict[Any, None] = {}
    for t in tensors:
        for d in t.pattern or ():
            _collect(d, symbols)
    for c in constraints:
        _collect(c.lhs, symbols)
        _collect(c.rhs, symbols)
    _collect_output(output, symbols)
    names = _names(list(symbols), {t.name for t in tensors})
    from ..rules.ops.jagged import DERIVED

    scalars = tuple((names[s], s) for s in symbols if s not in bound and str(s) not in DERIVED)
    fn_name = _identifier(qualname.replace(".", "_").lower() + "_shape")
    return ShapeFunction(qualname, fn_name, tuple(tensors), scalars, tuple(constraints), output, tuple(names.items()))


def _input_shape(spec: ShapeSpec) -> Shape:
    """The shape of a tensor described by ``--input``: its names are opaque symbols shared across inputs."""
    items: list[Item] = []
    for d in spec.dims:
        if d.kind is DimKind.FIXED:
            assert d.size is not None
            items.append(d.size)
        elif d.kind is DimKind.NAMED:
            assert d.name is not None
            items.append(opaque(d.name))
        elif d.kind is DimKind.EXPR:
            assert d.expr is not None
            v = evaluate(d.expr, lambda n: opaque(n))
            items.append(v if v is not None else Unknown(UnknownSource.ANNOTATED))
        elif d.kind is DimKind.VARIADIC:
            items.append(Star(d.name))
        elif d.kind is DimKind.ANON_VARIADIC:
            items.append(Star(None, UnknownSource.ANNOTATED))
        else:
            items.append(Unknown(UnknownSource.ANNOTATED))
    return Shape(tuple(items))


def _pattern(shape: Shape) -> tuple[Any, ...] | None:
    if shape.rank is None and not any(isinstance(d, Star) and d.name for d in shape.items):
        return None
    return tuple(shape.items)


def _output(v: Value | None, input_stars: set[str]) -> Output:
    if v is None:
        return OutUnknown("the function never returns")
    if v is NONE:
        return OutNone()
    if isinstance(v, TensorV):
        items = v.shape.items
        if any(isinstance(d, Star) and (d.name is None or d.name not in input_stars) for d in items):
            star = next(d for d in items if isinstance(d, Star))
            return OutTensor(None, star.source.value)
        dims: list[OutDim] = []
        for d in items:
            if isinstance(d, Unknown):
                dims.append(Dynamic(d.source.value))
            else:
                dims.append(d)
        return OutTensor(tuple(dims))
    if isinstance(v, TupleV):
        return OutTuple(tuple(_output(x, input_stars) for x in v.items))
    if isinstance(v, DictV):
        return OutDict(tuple((k, _output(x, input_stars)) for k, x in v.items))
    return OutUnknown(f"returns {type(v).__name__.removesuffix('V').lower()}, not tensors")


def _without_ragged_internals(o: Output, bound: set[Any]) -> Output:
    """A ragged dim made inside the function (``nested_tensor_from_jagged(values, offsets)``), and
    its longest row or total, depend on the offsets' values, not on input shapes: data-dependent.
    (Those of a ragged *input* are computed from the row lengths passed in.)"""
    from ..rules.ops.jagged import DERIVED, jagged_info

    names = {str(s) for s in bound}

    def internal(sym: Any) -> bool:
        rule = DERIVED.get(str(sym))
        if rule is not None:
            return rule[1] not in names
        return jagged_info(sym) is not None and str(sym) not in names

    def dim(d: OutDim) -> OutDim:
        if isinstance(d, (int, Star, Dynamic, Unknown)) or not any(internal(s) for s in d.free_symbols):
            return d
        return Dynamic(UnknownSource.DATA_DEPENDENT.value)

    if isinstance(o, OutTensor):
        return o if o.dims is None else OutTensor(tuple(dim(d) for d in o.dims), o.dynamic_rank_reason)
    if isinstance(o, OutTuple):
        return OutTuple(tuple(_without_ragged_internals(x, bound) for x in o.items))
    if isinstance(o, OutDict):
        return OutDict(tuple((k, _without_ragged_internals(x, bound)) for k, x in o.items))
    return o


def _bound_symbols(tensors: list[TensorInput]) -> set[Any]:
    """Symbols an input pattern binds directly (a dim that is exactly the symbol)."""
    out: set[Any] = set()
    for t in tensors:
        for d in t.pattern or ():
            if not isinstance(d, (int, Star, Unknown)) and getattr(d, "is_Symbol", False):
                out.add(d)
    return out


def _collect(d: Any, into: dict[Any, None]) -> None:
    if isinstance(d, (int, Star, Unknown, Dynamic)):
        return
    for s in sorted(d.free_symbols, key=str):
        into.setdefault(s, None)


def _collect_output(o: Output, into: dict[Any, None]) -> None:
    if isinstance(o, OutTensor):
        for d in o.dims or ():
            _collect(d, into)
    elif isinstance(o, OutTuple):
        for x in o.items:
            _collect_output(x, into)
    elif isinstance(o, OutDict):
        for _, x in o.items:
            _collect_output(x, into)


def _identifier(text: str) -> str:
    out = re.sub(r"\W", "_", text.replace("'", "_p"))
    if not out or out[0].isdigit():
        out = "s_" + out
    if keyword.iskeyword(out):
        out += "_"
    return out


def _names(symbols: list[Any], taken: set[str]) -> dict[Any, str]:
    """A distinct Python identifier for each symbol (a rigid and an opaque ``d`` both exist)."""
    used = set(taken) | {"ShapeFunctionError", "shape", "len", "tuple", "min", "max"}
    out: dict[Any, str] = {}
    for s in sorted(symbols, key=lambda s: (not s.is_positive, str(s))):
        name = _identifier(str(s))
        while name in used:
            name += "_"
        used.add(name)
        out[s] = name
    return out
