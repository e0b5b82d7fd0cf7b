"""Configuration objects that are plain data: dicts with string keys and namespaces.

``cfg = {"d_model": 64}`` is a :class:`~tensorshape.model.values.DictV` (``cfg["d_model"]`` is 64),
``types.SimpleNamespace(d_model=64)`` an :class:`~.values.AttrsV` (``ns.d_model`` is 64); both are
values, so an edit makes a new value that the analysis rebinds where it was read from
(``cfg["d_model"] = 128``, ``cfg.update(...)``, ``ns.depth = 4``).  An edit the analysis cannot
follow makes the holder unknown rather than leave a stale size: a function that edits a parameter
(``def apply(cfg, args): cfg["d_model"] = args.d``) leaves its caller's dict unknown.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import replace

import libcst as cst

from ..model.values import NONE, DictV, SeqKind, SeqV, StrV, TupleV, UnknownV, Value
from ..rules.context import Arg
from .state import join_all
from .syntax import code_children, suite_body
from .values import AttrsV, DictMethodV, MapV

__all__ = ["NAMESPACE_CLASSES", "DICT_EDITS", "namespace", "call_dict_method", "edited_params", "carried_params"]

#: Classes whose instances are namespaces built from keywords.
NAMESPACE_CLASSES = frozenset({"types.SimpleNamespace", "argparse.Namespace"})

#: Dict methods that change the dict.
DICT_EDITS = _EDITS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__"})


def namespace(args: Sequence[Arg], kwargs: Mapping[str, Arg]) -> Value:
    """``SimpleNamespace(d_model=64)``, ``SimpleNamespace(**cfg)``, ``SimpleNamespace(cfg)`` (3.13)."""
    base: dict[str, Value] = {}
    if args:
        if len(args) > 1 or not isinstance(args[0].value, DictV):
            return UnknownV()
        base.update(args[0].value.items)
    base.update((k, a.value) for k, a in kwargs.items())
    return AttrsV(tuple(base.items()))


def call_dict_method(method: DictMethodV, args: Sequence[Arg], kwargs: Mapping[str, Arg]) -> tuple[Value, Value | None]:
    """The result of ``d.<method>(...)`` and, for an edit, the dict after it (``None``: unchanged;
    ``UnknownV``: changed in a way not followed)."""
    d, name = method.receiver, method.name
    key = args[0].value if args else None
    literal = key.value if isinstance(key, StrV) else None
    if isinstance(d, MapV):
        return _call_map_method(d, name, args)
    if name in ("get", "setdefault") and args and len(args) <= 2 and literal is None:
        # A key that is not a literal reads one of the values, or the default; ``setdefault`` may
        # add it, so the dict's keys are no longer known.
        values = [v for _, v in d.items]
        read = join_all([*values, args[1].value if len(args) == 2 else NONE])
        return read, (MapV(join_all([*values, args[1].value])) if name == "setdefault" and len(args) == 2 else None)
    if name == "get" and args and len(args) <= 2:
        if literal is None:
            return UnknownV(), None
        found = d.get(literal)
        return (found if found is not None else args[1].value if len(args) == 2 else NONE), None
    if name == "__getitem__" and len(args) == 1:
        # ``super().__getitem__(key)`` of a dict subclass: the item, unknown when not found.
        found = d.get(literal) if literal is not None else None
        return (found if found is not None else UnknownV()), None
    if name == "__setitem__" and literal is not None and len(args) == 2:
        # ``super().__setitem__(key, value)`` of a dict subclass: the items with that entry.
        return NONE, _with(d, {literal: args[1].value})
    if name == "__delitem__" and literal is not None and len(args) == 1 and d.get(literal) is not None:
        return NONE, type(d)(tuple((k, v) for k, v in d.items if k != literal))
    if name == "copy" and not args:
        return DictV(d.items), None
    if name == "keys" and not args:
        return TupleV(tuple(StrV(k) for k, _ in d.items), SeqKind.LIST), None
    if name == "values" and not args:
        return TupleV(tuple(v for _, v in d.items), SeqKind.LIST), None
    if name == "items" and not args:
        return TupleV(tuple(TupleV((StrV(k), v)) for k, v in d.items), SeqKind.LIST), None
    if name == "update" and len(args) <= 1:
        if args and not isinstance(args[0].value, DictV):
            return NONE, UnknownV()
        extra = dict(args[0].value.items) if args and isinstance(args[0].value, DictV) else {}
        extra.update((k, a.value) for k, a in kwargs.items())
        return NONE, _with(d, extra)
    if name == "setdefault" and literal is not None and len(args) <= 2:
        found = d.get(literal)
        if found is not None:
            return found, None
        value = args[1].value if len(args) == 2 else NONE
        return value, _with(d, {literal: value})
    if name == "pop" and literal is not None and len(args) <= 2:
        found = d.get(literal)
        if found is None:
            return (args[1].value if len(args) == 2 else UnknownV()), None
        return found, replace(d, items=tuple((k, v) for k, v in d.items if k != literal))
    if name == "pop" and len(args) == 2 and not d.items:
        # ``kwargs.pop(parameter_name, None)`` over names not known, once no keyword is left: the
        # default, and the dict stays empty.
        return args[1].value, None
    if name in _EDITS:
        return UnknownV(), UnknownV()
    return UnknownV(), None


def _call_map_method(d: MapV, name: str, args: Sequence[Arg]) -> tuple[Value, Value | None]:
    """``d.<method>(...)`` of a dict whose keys are not known: any key reads its one kind of value."""
    if name in ("get", "setdefault") and args and len(args) <= 2:
        default = args[1].value if len(args) == 2 else NONE
        return join_all([d.value, default]), (MapV(join_all([d.value, default])) if name == "setdefault" else None)
    if name == "__getitem__" and len(args) == 1:
        return d.value, None
    if name == "values" and not args:
        return SeqV(d.value, SeqKind.LIST), None
    if name == "copy" and not args:
        return d, None
    if name in _EDITS:
        return UnknownV(), UnknownV()
    return UnknownV(), None


def _with(d: DictV, extra: Mapping[str, Value]) -> DictV:
    """``d`` with ``extra``'s entries set (new keys last, as a dict keeps them)."""
    merged = dict(d.items)
    merged.update(extra)
    return replace(d, items=tuple(merged.items()))


#: Methods that change a dict, a list or a set passed as a parameter.
_PARAM_EDITS = _EDITS | {"append", "extend", "insert", "remove", "sort", "reverse", "add", "discard"}


def _target(t: cst.BaseExpression, found: set[str]) -> None:
    if isinstance(t, (cst.Subscript, cst.Attribute)) and isinstance(t.value, cst.Name):
        found.add(t.value.value)
    elif isinstance(t, (cst.Tuple, cst.List)):
        for e in t.elements:
            _target(e.value, found)


@functools.cache
def _edited(node: cst.FunctionDef) -> frozenset[str]:
    params = {p.name.value for p in (*node.params.params, *node.params.posonly_params, *node.params.kwonly_params)}
    found: set[str] = set()
    # Every node of the body, nested definitions included, by the layout-free field walk (a libcst
    # visitor pass rebuilds every node it walks and cost a tenth of a check).
    todo: list[cst.CSTNode] = list(suite_body(node.body))
    while todo:
        n = todo.pop()
        if type(n) is cst.AssignTarget:
            _target(n.target, found)
        elif isinstance(n, (cst.AugAssign, cst.Del)):
            _target(n.target, found)
        elif type(n) is cst.Call:
            f = n.func
            if type(f) is cst.Attribute and f.attr.value in _PARAM_EDITS and isinstance(f.value, cst.Name):
                found.add(f.value.value)
            if isinstance(f, cst.Name) and f.value == "setattr" and n.args and isinstance(n.args[0].value, cst.Name):
                found.add(n.args[0].value.value)
        todo.extend(code_children(n))
    return frozenset(found & params - {"self"})


def edited_params(node: cst.FunctionDef) -> frozenset[str]:
    """The parameters a function's body edits in place (``cfg["x"] = ...``, ``cfg.update(...)``,
    ``ns.x = ...``, ``setattr(ns, ...)``, ``layers.append(...)``), ``self`` aside."""
    return _edited(node)


def _rebinds(t: cst.BaseExpression, found: set[str]) -> None:
    if isinstance(t, cst.Name):
        found.add(t.value)
    elif isinstance(t, (cst.Tuple, cst.List)):
        for e in t.elements:
            _rebinds(e.value, found)
    elif type(t) is cst.StarredElement:
        _rebinds(t.value, found)


@functools.cache
def _carried(node: cst.FunctionDef) -> frozenset[str]:
    edited = _edited(node)
    if not edited:
        return edited
    plain = {p.name.value for p in (*node.params.params, *node.params.posonly_params, *node.params.kwonly_params)}
    # A name the body binds anew (``kwargs = dict(kwargs)``, a loop target, ``global``/``nonlocal``,
    # ``del``, a nested definition's parameter of the same name) is not the caller's object on the
    # way out; neither is one a nested function or class may edit (its scope is not followed here).
    rebound: set[str] = set()
    todo: list[cst.CSTNode] = list(suite_body(node.body))
    nested = False
    while todo:
        n = todo.pop()
        if type(n) is cst.AssignTarget:
            _rebinds(n.target, rebound)
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor)):
            _rebinds(n.target, rebound)
        elif type(n) is cst.NamedExpr:
            _rebinds(n.target, rebound)
        elif type(n) is cst.AsName:
            _rebinds(n.name, rebound)
        elif isinstance(n, (cst.Global, cst.Nonlocal, cst.Del)):
            return frozenset()
        elif isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            nested = True
        todo.extend(code_children(n))
    if nested:
        return frozenset()
    return frozenset(edited & plain - rebound)


def carried_params(node: cst.FunctionDef) -> frozenset[str]:
    """The parameters a function edits in place and never rebinds (nor hands to a nested scope): the
    caller's dict passed there is the parameter as the body leaves it (``_update_kwargs(cfg, kwargs)``
    whose ``kwargs.setdefault("in_chans", 3)`` the caller's ``kwargs`` has after the call)."""
    return _carried(node)
