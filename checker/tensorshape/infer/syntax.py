"""Small readings of libcst syntax shared by the interpreter's parts."""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import libcst as cst

__all__ = [
    "NAMING_CALLS",
    "CHILD_REGISTRATIONS",
    "by_function_body",
    "private_dicts",
    "private_lists",
    "literal_int",
    "simple_text",
    "blocks",
    "code_children",
    "class_level_reads",
    "definitions",
    "names_under",
    "node_kind",
    "node_layout",
    "self_assignments",
    "suite_body",
]

#: Fields of libcst nodes that hold only layout (whitespace, comments, brackets, punctuation).
_LAYOUT_FIELDS = frozenset(
    {
        "leading_lines", "lines_after_decorators", "header", "footer", "empty_lines", "trailing_whitespace",
        "newline", "indent", "lpar", "rpar", "lbrace", "rbrace", "lbracket", "rbracket", "comma",
        "trailing_comma", "colon", "first_colon", "second_colon", "dot", "equal", "semicolon", "operator",
        "asynchronous", "posonly_ind", "separator", "comment",
    }
)  # fmt: skip
#: The code-holding field names of each node class (libcst nodes are dataclasses).
_FIELDS: dict[type, tuple[str, ...]] = {}

_R = TypeVar("_R")
#: Answers kept per reading before its memo is emptied (:func:`by_function_body`).
MAX_BODY_MEMO = 4096


def by_function_body(read: Callable[[cst.FunctionDef], _R]) -> Callable[[cst.FunctionDef], _R]:
    """``read``, a reading of a function's syntax, answered once per ``def`` and body: by their ``id``,
    kept alive with the answer (a language server's edit puts a new body into the kept ``def``, so
    the ``def`` alone is no key).  For readings asked on every call or instance built (a library
    class's ``__post_init__`` or ``__setattr__``), each of which walked the whole function."""
    memo: dict[tuple[int, int], tuple[cst.FunctionDef, cst.CSTNode, _R]] = {}

    @functools.wraps(read)
    def answer(fn: cst.FunctionDef) -> _R:
        key = (id(fn), id(fn.body))  # a ``def`` made with another's body (``with_changes``) is another
        known = memo.get(key)
        if known is not None and known[0] is fn and known[1] is fn.body:
            return known[2]
        got = read(fn)
        if len(memo) >= MAX_BODY_MEMO:
            memo.clear()
        memo[key] = (fn, fn.body, got)
        return got

    return answer


def code_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes held by ``node``'s fields other than layout (whitespace, comments, brackets,
    punctuation): every child of ``node.children`` that can hold a name or an expression, without
    the visitor pass ``children`` costs."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _FIELDS[type(node)] = tuple(
            f.name
            for f in dataclasses.fields(node)
            if f.name not in _LAYOUT_FIELDS and not f.name.startswith("whitespace")
        )
    out: list[cst.CSTNode] = []
    kinds = _KINDS
    for name in names:
        v = getattr(node, name)
        kind = kinds.get(type(v))
        if kind is None:
            kind = node_kind(type(v))
        if kind == NODE:
            out.append(v)
        elif kind == SEQUENCE:
            out.extend(x for x in v if (kinds.get(type(x)) or node_kind(type(x))) == NODE)
    return out


#: What :func:`node_kind` says of a value's class.
OTHER, NODE, SEQUENCE = 0, 1, 2
_KINDS: dict[type, int] = {}


def node_kind(cls: type) -> int:
    """``NODE`` for a libcst node class, ``SEQUENCE`` for a tuple or list, ``OTHER`` else; kept by class.

    ``isinstance`` against a libcst class goes through ``ABCMeta.__instancecheck__`` (a Python call)
    whenever the class is not the value's own: the tree walks ask it of every field of every node."""
    kind = _KINDS.get(cls)
    if kind is None:
        kind = NODE if issubclass(cls, cst.CSTNode) else SEQUENCE if issubclass(cls, (tuple, list)) else OTHER
        _KINDS[cls] = kind
    return kind


@functools.lru_cache(maxsize=2048)
def names_under(node: cst.CSTNode) -> frozenset[str]:
    """Every name used in the code under ``node`` (``setattr``, ``self``, an attribute's ``attr``).

    Walked once per node (nodes hash by identity; the bounded cache keeps recent ones): a class's
    body is asked about again at every attribute read and construction, and a visitor pass over
    it cost a third of an edit's re-analysis in the language server."""
    out: set[str] = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, cst.Name):
            out.add(n.value)
        else:
            todo.extend(code_children(n))
    return frozenset(out)


@functools.lru_cache(maxsize=2048)
def literal_setattrs(node: cst.CSTNode) -> frozenset[str]:
    """Attribute names given as a literal to ``setattr(obj, "name", value)`` (or
    ``object.__setattr__``) in the code under ``node``."""
    out: set[str] = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if type(n) is cst.Call and len(n.args) >= 2 and type(n.args[1].value) is cst.SimpleString:
            f = n.func
            if (isinstance(f, cst.Name) and f.value == "setattr") or (
                type(f) is cst.Attribute and f.attr.value == "__setattr__"
            ):
                out.add(n.args[1].value.value.strip("\"'"))
        todo.extend(code_children(n))
    return frozenset(out)


#: ``nn.Module`` methods that set the attribute their first argument names.
_REGISTERS = frozenset({"register_buffer", "register_parameter", "add_module"})
#: Calls that give an object an attribute their first argument names (``nn.Module``'s registrations).
NAMING_CALLS = _REGISTERS | {"register_module"}
#: ``nn.Module`` methods that register a child module under the name their first argument gives.
CHILD_REGISTRATIONS = frozenset({"add_module", "register_module"})
#: Names by which code reaches an object's attributes other than by a name it spells out.
_UNNAMED_ACCESS = frozenset(
    {
        "__dict__",
        "vars",
        "__setattr__",
        "__delattr__",
        "__getattr__",
        "__getattribute__",
        "_modules",
        "_parameters",
        "_buffers",
        "set_submodule",
        "__class__",
    }
)


def _literal(e: cst.BaseExpression) -> str | None:
    if type(e) is cst.SimpleString and isinstance(e.evaluated_value, str):
        return e.evaluated_value
    return None


@functools.lru_cache(maxsize=2048)
def attribute_writes(node: cst.CSTNode) -> frozenset[str] | None:
    """The attribute names the code under ``node`` (a class) may give or take from some object other
    than by ``self.<name> = ...``: ``setattr``/``delattr`` of a literal name, a registration
    (``self.register_buffer("tril", ...)``), a write or ``del`` through any other attribute target
    (``cls.forward = ...``, ``child.scale = ...``, ``del self.cache``).  ``None`` when a name is not
    known (``setattr(self, key, v)``, ``self.add_module(name, m)``) or attributes are reached by other
    means (``__dict__``, ``vars``, ``__setattr__``, ``_modules``...)."""
    out: set[str] = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, cst.Name) and n.value in _UNNAMED_ACCESS:
            return None
        if type(n) is cst.Attribute and n.attr.value in _UNNAMED_ACCESS:
            return None
        if type(n) is cst.Call:
            f = n.func
            at = 1 if isinstance(f, cst.Name) and f.value in ("setattr", "delattr") else None
            if type(f) is cst.Attribute and f.attr.value in NAMING_CALLS:
                at = 0
            if at is not None:
                name = _literal(n.args[at].value) if len(n.args) > at and n.args[at].keyword is None else None
                if name is None:
                    return None
                out.add(name)
        elif isinstance(n, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del)):
            for t in _attribute_targets(n.target):
                if not (isinstance(t.value, cst.Name) and t.value.value == "self") or type(n) is cst.Del:
                    out.add(t.attr.value)
        elif isinstance(n, (cst.For, cst.CompFor)):
            out.update(t.attr.value for t in _attribute_targets(n.target))
        elif type(n) is cst.WithItem and n.asname is not None:
            out.update(t.attr.value for t in _attribute_targets(n.asname.name))
        todo.extend(code_children(n))
    return frozenset(out)


def _attribute_targets(t: cst.BaseExpression | None) -> list[cst.Attribute]:
    """The attribute targets of an assignment's target (through tuples, lists and starred items)."""
    if type(t) is cst.Attribute:
        return [t]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [a for e in t.elements for a in _attribute_targets(e.value)]
    if type(t) is cst.StarredElement:
        return _attribute_targets(t.value)
    return []


def simple_text(node: cst.CSTNode | None) -> str | None:
    """Source text of a name or attribute chain (``x``, ``self.proj``), else ``None``."""
    if isinstance(node, cst.Name):
        return node.value
    if type(node) is cst.Attribute:
        base = simple_text(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None


Statement = cst.BaseStatement | cst.BaseSmallStatement


def suite_body(suite: cst.BaseSuite) -> Sequence[Statement]:
    """The statements of an indented block or of a one-line suite."""
    return suite.body


def blocks(stmt: cst.CSTNode) -> list[Sequence[Statement]]:
    """The statement lists a compound statement holds, in source order (not function or class bodies).

    ``if``/``elif``/``else``, ``for``/``while`` (and their ``else``), ``with``,
    ``try``/``except``/``else``/``finally`` (``except*`` too) and ``match`` cases.
    """
    out: list[Sequence[Statement]] = []
    if type(stmt) is cst.If:
        out.append(suite_body(stmt.body))
        orelse = stmt.orelse
        if type(orelse) is cst.If:
            out.extend(blocks(orelse))
        elif type(orelse) is cst.Else:
            out.append(suite_body(orelse.body))
    elif isinstance(stmt, (cst.For, cst.While)):
        out.append(suite_body(stmt.body))
        if stmt.orelse is not None:
            out.append(suite_body(stmt.orelse.body))
    elif type(stmt) is cst.With:
        out.append(suite_body(stmt.body))
    elif isinstance(stmt, (cst.Try, cst.TryStar)):
        out.append(suite_body(stmt.body))
        out.extend(suite_body(h.body) for h in stmt.handlers)
        if stmt.orelse is not None:
            out.append(suite_body(stmt.orelse.body))
        if stmt.finalbody is not None:
            out.append(suite_body(stmt.finalbody.body))
    elif type(stmt) is cst.Match:
        out.extend(suite_body(c.body) for c in stmt.cases)
    return out


def definitions(stmts: Sequence[cst.CSTNode]) -> Iterator[cst.FunctionDef | cst.ClassDef]:
    """The ``def`` and ``class`` statements of a block, through its control flow (not inside them)."""
    for stmt in stmts:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            yield stmt
        else:
            for block in blocks(stmt):
                yield from definitions(block)


_MUTATORS = frozenset({"append", "extend", "insert", "pop", "clear", "remove", "update", "__setitem__"})


def _targets(t: cst.BaseExpression, out: set[str]) -> None:
    if type(t) is cst.Attribute and isinstance(t.value, cst.Name) and t.value.value == "self":
        out.add(t.attr.value)
    elif isinstance(t, (cst.Tuple, cst.List)):
        for e in t.elements:
            _targets(e.value, out)


def _scan(stmts: Sequence[cst.CSTNode], out: set[str]) -> None:
    """Walk statements (not expressions): cheap, and enough to find ``self.x = ...``."""
    for stmt in stmts:
        if type(stmt) is cst.SimpleStatementLine:
            _scan(stmt.body, out)
        elif type(stmt) is cst.Assign:
            for t in stmt.targets:
                _targets(t.target, out)
        elif isinstance(stmt, (cst.AugAssign, cst.AnnAssign)):
            _targets(stmt.target, out)
        elif type(stmt) is cst.Expr and type(stmt.value) is cst.Call:
            f = stmt.value.func
            if type(f) is cst.Attribute and f.attr.value in _MUTATORS:
                _targets(f.value, out)
            elif type(f) is cst.Attribute and f.attr.value in _REGISTERS and stmt.value.args:
                # ``self.register_buffer("tril", ...)`` sets ``self.tril``
                first = stmt.value.args[0].value
                if isinstance(f.value, cst.Name) and f.value.value == "self" and type(first) is cst.SimpleString:
                    out.add(first.evaluated_value if isinstance(first.evaluated_value, str) else "")
        else:
            for block in blocks(stmt):
                _scan(block, out)


def self_assignments(fn: cst.FunctionDef) -> set[str]:
    """Attributes of ``self`` a method's body assigns or mutates."""
    out: set[str] = set()
    _scan(suite_body(fn.body), out)
    return out


@functools.cache
def node_layout(cls: type) -> tuple[Callable[[Any], tuple[Any, ...]], tuple[Any, ...]]:
    """The fields of a libcst node class: a getter of all of them at once, and the slot
    descriptors that set them."""
    names: list[str] = []
    descriptors: list[Any] = []
    for k in cls.__mro__:
        for name in k.__dict__.get("__slots__", ()):
            if name != "__weakref__":
                names.append(name)
                descriptors.append(k.__dict__[name])
    if len(names) > 1:
        return operator.attrgetter(*names), tuple(descriptors)
    return (lambda o: tuple(getattr(o, n) for n in names)), tuple(descriptors)


def class_level_reads(body: Sequence[cst.BaseStatement | cst.BaseSmallStatement]) -> set[str]:
    """The names (and ``name.attr`` overlay keys) read by a class body outside its methods' bodies."""
    out: set[str] = set()
    todo: list[cst.CSTNode] = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, cst.Name):
            out.add(n.value)
        elif type(n) is cst.Attribute and isinstance(n.value, cst.Name):
            out.add(f"{n.value.value}.{n.attr.value}")
        if isinstance(n, cst.FunctionDef):  # its body is analysed later, against the module's globals
            todo.extend(d for d in n.decorators)
            todo.extend(p for p in (n.params, n.returns) if p is not None)
            continue
        todo.extend(code_children(n))
    return out


def literal_int(node: cst.BaseExpression) -> int | None:
    """The int a literal (``2``, ``-1``) spells; ``None`` for anything else."""
    if type(node) is cst.Integer:
        return int(node.value, 0)
    if (
        type(node) is cst.UnaryOperation
        and type(node.operator) is cst.Minus
        and type(node.expression) is cst.Integer
    ):
        return -int(node.expression.value, 0)
    return None


#: List methods that change a list in place without letting it escape (the analysis tracks them
#: on the variable, or makes the list unknown).
_LIST_METHODS = frozenset({"append", "extend", "insert", "pop", "clear", "remove", "index", "count"})


def _bound_or_called(
    node: cst.Name,
    parent: cst.CSTNode,
    grand: cst.CSTNode | None,
    fresh: tuple[type[cst.CSTNode], ...],
    methods: frozenset[str],
) -> tuple[bool | None] | None:
    """The uses :func:`_list_use` and :func:`_dict_use` read alike, as a 1-tuple of that reading: an
    assignment to the name (``True`` of a ``fresh`` display or comprehension, else ``None``), a call
    of one of its ``methods`` (``False``) or of another attribute (``None``); ``None`` otherwise."""
    if type(parent) is cst.AssignTarget and parent.target is node and type(grand) is cst.Assign:
        return (True if isinstance(grand.value, fresh) else None,)
    if type(parent) is cst.AnnAssign and parent.target is node:
        return (True if isinstance(parent.value, fresh) else None,)
    if type(parent) is cst.Attribute and parent.value is node:
        return (False if parent.attr.value in methods and type(grand) is cst.Call else None,)
    return None


def _list_use(node: cst.Name, parent: cst.CSTNode, grand: cst.CSTNode | None) -> bool | None:
    """How an occurrence of a local name uses the list it holds: ``True`` a fresh list assigned to
    it, ``False`` a use that keeps the list private (its methods, a test, ``len``, ``*``, a loop, an
    item), ``None`` anything else (an alias, an argument, a return: the list may change unseen)."""
    use = _bound_or_called(node, parent, grand, (cst.List, cst.ListComp), _LIST_METHODS)
    if use is not None:
        return use[0]
    if isinstance(parent, (cst.If, cst.While, cst.IfExp)) and parent.test is node:
        return False
    if type(parent) is cst.UnaryOperation and type(parent.operator) is cst.Not:
        return False
    if type(parent) is cst.Arg and parent.value is node:
        if parent.star == "*":
            return False
        is_len = type(grand) is cst.Call and isinstance(grand.func, cst.Name) and grand.func.value == "len"
        return False if is_len and not parent.keyword else None
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node:
        return False
    if type(parent) is cst.Subscript and parent.value is node:
        return False
    if type(parent) is cst.StarredElement and parent.value is node:
        return False  # ``[*stage, x]`` copies it; ``head, *rest = ...`` is a fresh list (:func:`private_lists`)
    return None


#: Dict methods that read a dict without changing it or letting it escape.
#: A private dict's methods: each read or edit is followed (an edit not followed leaves the dict
#: unknown, see ``configs.call_dict_method``), and none lets the dict escape.
_PRIVATE_DICT_METHODS = frozenset({"get", "keys", "values", "items", "copy", "pop", "setdefault", "update", "clear", "popitem"})
#: Calls that reach a function's locals by name (a private dict could change through them).
_FRAME_READERS = frozenset({"locals", "vars", "eval", "exec"})


def _dict_use(node: cst.Name, parent: cst.CSTNode, grand: cst.CSTNode | None) -> bool | None:
    """How an occurrence of a local name uses the dict it holds: ``True`` a fresh dict assigned to it
    (a display or a comprehension), ``False`` a use that neither changes its keys unseen nor lets it
    escape (an item read, written or deleted, a reading method, ``key in d``), ``None`` anything
    else (an alias, an argument, a return, another method: the dict may change unseen)."""
    use = _bound_or_called(node, parent, grand, (cst.Dict, cst.DictComp), _PRIVATE_DICT_METHODS)
    if use is not None:
        return use[0]
    if type(parent) is cst.Subscript and parent.value is node:
        return False
    if type(parent) is cst.Arg and parent.value is node and parent.star == "**":
        return False  # ``cls(config, **kwargs)``: the callee gets a copy
    if (
        type(parent) is cst.ComparisonTarget
        and parent.comparator is node
        and isinstance(parent.operator, (cst.In, cst.NotIn))
    ):
        return False
    return None


def _starred_targets(node: cst.Assign) -> list[str]:
    """The names an assignment unpacks the rest into (``a, *rest = ...``: ``rest``)."""
    out: list[str] = []
    for t in node.targets:
        if isinstance(t.target, (cst.Tuple, cst.List)):
            out += [
                e.value.value
                for e in t.target.elements
                if type(e) is cst.StarredElement and isinstance(e.value, cst.Name)
            ]
    return out


@by_function_body
def private_lists(fn: cst.FunctionDef) -> frozenset[str]:
    """The local names of ``fn`` that only ever hold lists it builds (``stage = []``) and never let
    them escape: no alias, no argument (other than ``*stage`` and ``len(stage)``), no return, no
    nested function.  Whether such a list is empty is what the appends the analysis followed say
    (EfficientNet's ``if stage:`` inside its ``for _ in range(cnf.num_layers)``)."""
    return _private_names(fn, _list_use, starred=True)


@by_function_body
def private_dicts(fn: cst.FunctionDef) -> frozenset[str]:
    """The local names of ``fn`` that only ever hold dicts it builds (``options = {}``, or the
    ``**kwargs`` each call makes anew) and never let them escape: used only as ``options[key]`` (read,
    written or deleted), the methods of ``_PRIVATE_DICT_METHODS``, ``**options`` in a call (a copy) and ``key in
    options``; no alias, argument, return or nested function, and no ``locals()``/``vars()``/
    ``eval``/``exec`` in ``fn``.  Which keys such a dict has is what the writes the analysis followed
    say (timm's ``_decode_block_str`` tests ``'n' in options`` of the options it parsed;
    transformers' ``_from_config`` tests ``"attn_implementation" in kwargs``)."""
    return _private_names(fn, _dict_use, starred=False, keywords=True)


def _private_names(
    fn: cst.FunctionDef,
    use_of: Callable[[cst.Name, cst.CSTNode, cst.CSTNode | None], bool | None],
    starred: bool,
    keywords: bool = False,
) -> frozenset[str]:
    """The local names of ``fn`` every occurrence of which ``use_of`` says keeps private (``False``)
    or binds to a fresh value (``True``, at least once); ``starred``: the rest of an unpacking
    (``head, *rest = ...``) is a fresh list; ``keywords``: the ``**kwargs`` parameter is fresh."""
    fresh: set[str] = set()
    escaped: set[str] = set()
    for p in (*fn.params.params, *fn.params.kwonly_params, *fn.params.posonly_params):
        escaped.add(p.name.value)
    for star in (fn.params.star_arg, fn.params.star_kwarg):
        if type(star) is cst.Param and keywords and star is fn.params.star_kwarg:
            fresh.add(star.name.value)  # a new dict each call
        elif type(star) is cst.Param and not starred:
            escaped.add(star.name.value)
    todo: list[tuple[cst.CSTNode, cst.CSTNode | None, cst.CSTNode | None, bool]] = [(fn.body, fn, None, False)]
    while todo:
        node, parent, grand, nested = todo.pop()
        if isinstance(node, cst.Name) and parent is not None:
            if type(parent) is cst.Attribute and parent.attr is node:
                continue  # ``x.stage``: an attribute, not the variable
            if type(parent) is cst.Arg and parent.keyword is node:
                continue
            if not starred and node.value in _FRAME_READERS and type(parent) is cst.Call:
                return frozenset()  # ``locals()``: every local may be reached
            use = None if nested else use_of(node, parent, grand)
            if use is True:
                fresh.add(node.value)
            elif use is None:
                escaped.add(node.value)
            continue
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            escaped.update(n.name.value for n in node.names if isinstance(n.name, cst.Name))
            continue
        if starred and type(node) is cst.Assign and not nested:
            # ``model_name, *tag_list = name.split(".", 1)``: the starred name gets a new list.
            fresh.update(_starred_targets(node))
        inner = nested or isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef))
        todo.extend((c, node, parent, inner) for c in code_children(node))
    return frozenset(fresh - escaped)
