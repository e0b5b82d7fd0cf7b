"""Read the shape stubs (``stubs/*.shapes.pyi``) into a table of op definitions.

A stub file is Python syntax, parsed with :mod:`ast`, never imported.  Its
name gives the namespace (``torch.nn.functional.shapes.pyi`` declares
``torch.nn.functional.*``); the ``.shapes.pyi`` suffix means no type checker
can ever take it for torch's own stubs.

Inside a file:

* ``def f(input: "*#s", other: "*#s") -> "*s": ...`` declares ``ns.f``: a string
  annotation is a shape spec (the parameter is a tensor), a name such as
  ``int`` a plain parameter type; ``-> tuple["a", "b"]`` returns two tensors;
* ``@rule("name", key=value)`` hands the call to the Python rule ``name``
  (:mod:`tensorshape.rules.ops`), with the extra keyword parameters;
* ``@names("a", "b", ...)`` declares the same signature under several names;
* ``@kind("pointwise")`` tags the op for layered analyses (Vollo);
* several ``def`` s of one name are overloads, tried in order;
* ``class C(Module):`` declares an nn module: ``__init__``, ``forward``, and
  annotated attributes (``weight: "out_features in_features"``) whose names
  bind to the constructor's int arguments.
"""

from __future__ import annotations

import ast
import enum
import functools
import hashlib
import os
import pickle
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..lang.parse import ShapeSyntaxError, parse_shape
from ..model.spec import ShapeSpec
from ..model.values import (
    FloatV,
    IntV,
    SeqKind,
    TupleV,
    UnknownV,
    Value,
    constant_value,
)
from .stubdir import stubs_dir

__all__ = [
    "ParamKind",
    "Param",
    "Returns",
    "OpDef",
    "ClassDef",
    "Table",
    "load_table",
    "parse_table",
    "write_table",
    "table_key",
    "stubs_dir",
]


class ParamKind(enum.Enum):
    POSITIONAL_ONLY = "positional-only"
    POSITIONAL = "positional-or-keyword"
    VAR_POSITIONAL = "var-positional"
    KEYWORD_ONLY = "keyword-only"
    VAR_KEYWORD = "var-keyword"


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    kind: ParamKind
    #: The default value, or ``None`` when the parameter is required.
    default: Value | None = None
    #: The shape spec of a tensor parameter.
    spec: ShapeSpec | None = None
    #: The declared type name for other parameters (``int``, ``Tensor``, ``float``...).
    type: str | None = None


@dataclass(frozen=True, slots=True)
class Returns:
    #: ``tensor``, ``tuple`` (of tensors), ``int``, ``bool``, ``none``, ``same`` or ``unknown``.
    kind: str
    specs: tuple[ShapeSpec | None, ...] = ()


@dataclass(frozen=True, slots=True)
class OpDef:
    qualname: str
    params: tuple[Param, ...]
    returns: Returns
    #: The Python rule's name, for ``@rule`` ops.
    rule: str | None = None
    rule_args: Mapping[str, Any] = field(default_factory=dict)
    kinds: frozenset[str] = frozenset()
    #: Where it is declared, for messages.
    file: str = ""
    line: int = 0

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    def __hash__(self) -> int:
        return hash((self.qualname, self.file, self.line))


@dataclass(frozen=True, slots=True)
class ClassDef:
    """An nn module class: attribute specs and the names of its base classes."""

    qualname: str
    attrs: Mapping[str, ShapeSpec]
    bases: tuple[str, ...] = ()
    kinds: frozenset[str] = frozenset()

    def __hash__(self) -> int:
        return hash(self.qualname)


@dataclass(slots=True)
class Table:
    ops: dict[str, list[OpDef]] = field(default_factory=dict)
    classes: dict[str, ClassDef] = field(default_factory=dict)
    #: Stub errors (file, line, message): a test keeps this empty.
    errors: list[tuple[str, int, str]] = field(default_factory=list)

    def lookup(self, qualname: str) -> list[OpDef]:
        return self.ops.get(qualname, [])

    def __len__(self) -> int:
        return len(self.ops)


class StubError(Exception):
    pass


@functools.cache
def load_table(directory: str | None = None) -> Table:
    """Load every stub file (once per process), from the compiled table when it is current.

    The stubs are compiled once into a pickled table next to them (``__pycache__/``, as Python
    compiles modules: inside the installed package), or in the user's cache folder when that
    cannot be written; ``sys.dont_write_bytecode`` writes neither, as for bytecode.
    """
    root = Path(directory) if directory else stubs_dir()
    paths = sorted(root.glob("*.shapes.pyi"))
    key = table_key(root, paths)
    for place in _table_places(root, key):
        try:
            with place.open("rb") as stream:
                table = pickle.load(stream)
        except Exception:  # missing, truncated, unreadable: compiled again
            continue
        if isinstance(table, Table):
            return table
    table = parse_table(paths)
    if not sys.dont_write_bytecode:
        write_table(table, root, key)
    return table


def parse_table(paths: list[Path]) -> Table:
    """The table of these stub files, parsed."""
    table = Table()
    for path in paths:
        namespace = path.name[: -len(".shapes.pyi")]
        _load_file(table, path, namespace)
    return table


def write_table(table: Table, root: Path, key: str) -> Path | None:
    """Keep the compiled table for the stubs at ``root`` (the first place that can be written)."""
    data = pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)
    for place in _table_places(root, key):
        try:
            place.parent.mkdir(parents=True, exist_ok=True)
            tmp = place.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, place)  # whole or not at all: another process may be reading it
        except OSError:
            continue
        if place.parent.parent == root:
            # Tables of earlier stubs next to these: only these stubs read them (the user's cache
            # folder may serve several installations: kept).
            for old in place.parent.glob("shapes-table.*.pickle"):
                if old != place:
                    try:
                        old.unlink(missing_ok=True)
                    except OSError:
                        pass
        return place
    return None


#: The modules whose classes a compiled table holds: a change to one of them compiles it again.
TABLE_MODULES = (
    "tensorshape.rules.stubs",
    "tensorshape.lang.parse",
    "tensorshape.model.spec",
    "tensorshape.model.values",
    "tensorshape.model.dims",
    "tensorshape.model.shape",
)


def table_key(root: Path, paths: list[Path]) -> str:
    """What a compiled table depends on: the stubs, where they are (messages name the files), the
    loader's and the value classes' source, tensorshape's and Python's versions."""
    from .. import __version__

    h = hashlib.blake2b(digest_size=16)
    h.update(f"{__version__}\0{sys.implementation.cache_tag}\0{root}\0".encode("utf-8", "surrogatepass"))
    for name in TABLE_MODULES:
        h.update(Path(sys.modules[name].__file__ or "").read_bytes())
    for p in paths:
        h.update(p.name.encode("utf-8", "surrogatepass") + b"\0")
        h.update(p.read_bytes())
    return h.hexdigest()


def _table_places(root: Path, key: str) -> list[Path]:
    """Where the compiled table is kept: with the stubs, else the user's cache folder."""
    name = f"shapes-table.{key}.pickle"
    user = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [root / "__pycache__" / name, Path(user, "tensorshape", "stubs", name)]


def _load_file(table: Table, path: Path, namespace: str) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        try:
            if isinstance(node, ast.FunctionDef):
                for op in _function(node, namespace, str(path)):
                    table.ops.setdefault(op.qualname, []).append(op)
            elif isinstance(node, ast.ClassDef):
                _class(table, node, namespace, str(path))
        except StubError as e:
            table.errors.append((str(path), getattr(node, "lineno", 0), str(e)))


def _decorators(node: ast.FunctionDef | ast.ClassDef) -> tuple[str | None, dict[str, Any], list[str], set[str]]:
    rule: str | None = None
    rule_args: dict[str, Any] = {}
    names: list[str] = []
    kinds: set[str] = set()
    for dec in node.decorator_list:
        if not (isinstance(dec, ast.Call) and isinstance(dec.func, ast.Name)):
            raise StubError(f"unknown decorator {ast.unparse(dec)}")
        args = [ast.literal_eval(a) for a in dec.args]
        if dec.func.id == "rule":
            rule = args[0]
            rule_args = {k.arg: ast.literal_eval(k.value) for k in dec.keywords if k.arg}
        elif dec.func.id == "names":
            names.extend(args)
        elif dec.func.id == "kind":
            kinds.update(args)
        else:
            raise StubError(f"unknown decorator @{dec.func.id}")
    return rule, rule_args, names, kinds


def _spec(node: ast.expr, where: str) -> ShapeSpec:
    assert isinstance(node, ast.Constant) and isinstance(node.value, str)
    try:
        return parse_shape(node.value)
    except ShapeSyntaxError as e:
        raise StubError(f"{where}: {e.message} in {node.value!r}") from None


def _annotation(node: ast.expr | None, where: str) -> tuple[ShapeSpec | None, str | None]:
    """A parameter annotation: ``(spec, None)`` for a shape string, ``(None, type)`` otherwise."""
    if node is None:
        return None, None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _spec(node, where), "Tensor"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        # ``"b n" | None``: an optional tensor.
        for side in (node.left, node.right):
            if isinstance(side, ast.Constant) and isinstance(side.value, str):
                return _spec(side, where), "Tensor"
        return None, ast.unparse(node)
    return None, ast.unparse(node)


def _default(node: ast.expr) -> Value:
    if isinstance(node, ast.Constant):
        # ``= ...`` in a stub: a default the stub does not spell out.
        return UnknownV() if node.value is Ellipsis else constant_value(node.value) or UnknownV()
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        v = node.operand.value
        if isinstance(v, int) and not isinstance(v, bool):
            return IntV(-v)
        if isinstance(v, float):
            return FloatV(-v)
    if isinstance(node, ast.Tuple):
        return TupleV(tuple(_default(e) for e in node.elts), SeqKind.TUPLE)
    if isinstance(node, ast.List):
        return TupleV(tuple(_default(e) for e in node.elts), SeqKind.LIST)
    return UnknownV()


def _returns(node: ast.expr | None, where: str) -> Returns:
    if node is None:
        return Returns("unknown")
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str):
            return Returns("tensor", (_spec(node, where),))
        if node.value is None:
            return Returns("none")
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "tuple":
        elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        specs = tuple(
            _spec(e, where) if isinstance(e, ast.Constant) and isinstance(e.value, str) else None for e in elts
        )
        return Returns("tuple", specs)
    if isinstance(node, ast.Name):
        return Returns(
            {"Tensor": "tensor", "int": "int", "bool": "bool", "Self": "same"}.get(node.id, "unknown"),
            (None,) if node.id == "Tensor" else (),
        )
    return Returns("unknown")


def _params(args: ast.arguments, where: str, skip_self: bool) -> tuple[Param, ...]:
    out: list[Param] = []
    positional = list(args.posonlyargs) + list(args.args)
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for i, (a, d) in enumerate(zip(positional, defaults)):
        if skip_self and i == 0:
            continue
        kind = ParamKind.POSITIONAL_ONLY if i < len(args.posonlyargs) else ParamKind.POSITIONAL
        spec, typ = _annotation(a.annotation, f"{where} parameter {a.arg}")
        out.append(Param(a.arg, kind, None if d is None else _default(d), spec, typ))
    if args.vararg:
        spec, typ = _annotation(args.vararg.annotation, f"{where} parameter *{args.vararg.arg}")
        out.append(Param(args.vararg.arg, ParamKind.VAR_POSITIONAL, None, spec, typ))
    for a, d in zip(args.kwonlyargs, args.kw_defaults):
        spec, typ = _annotation(a.annotation, f"{where} parameter {a.arg}")
        out.append(Param(a.arg, ParamKind.KEYWORD_ONLY, None if d is None else _default(d), spec, typ))
    if args.kwarg:
        out.append(Param(args.kwarg.arg, ParamKind.VAR_KEYWORD))
    return tuple(out)


def _function(node: ast.FunctionDef, namespace: str, path: str, method: bool = False) -> list[OpDef]:
    rule, rule_args, extra_names, kinds = _decorators(node)
    names = extra_names or [node.name]
    where = f"{namespace}.{names[0]}"
    params = _params(node.args, where, skip_self=method)
    returns = _returns(node.returns, where)
    if rule is None and returns.kind == "unknown" and not kinds:
        pass  # a declaration whose result is an unknown tensor is still useful (it is known)
    return [
        OpDef(f"{namespace}.{n}", params, returns, rule, rule_args, frozenset(kinds), path, node.lineno) for n in names
    ]


def _class(table: Table, node: ast.ClassDef, namespace: str, path: str) -> None:
    """A module class; ``@names("A", "B")`` declares the same body under several class names."""
    _, _, names, kinds = _decorators(node)
    for name in names or [node.name]:
        qual = f"{namespace}.{name}"
        attrs: dict[str, ShapeSpec] = {}
        for item in node.body:
            if isinstance(item, ast.FunctionDef):
                for op in _function(item, qual, path, method=True):
                    table.ops.setdefault(op.qualname, []).append(op)
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                ann = item.annotation
                if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
                    attrs[item.target.id] = _spec(ann, f"{qual}.{item.target.id}")
        bases = tuple(ast.unparse(b) for b in node.bases)
        table.classes[qual] = ClassDef(qual, attrs, bases, frozenset(kinds))
