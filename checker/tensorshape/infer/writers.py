"""Where an installed package may write an attribute of a given name (issue 22).

``getattr(self, "_use_kernels", False)`` in transformers' ``PreTrainedModel.train`` reads a private
attribute that only ``set_use_kernels``, the ``use_kernels`` setter and ``kernelize`` ever write.
When none of those functions has run (nor any call the analysis did not follow that was given the
instance), the instance certainly lacks it.  This module finds those functions: every place in a
package's files where an attribute of the name may be given or taken (a store or ``del`` of
``x.name``, the name as a string anywhere but the second argument of ``getattr``/``hasattr``, a
keyword of that name), and the function each is in.  A place outside any named function (module or
class level, a lambda), a file that does not parse, or a name more than :data:`MAX_FILES` files
mention leaves the question open (``None``).

The same scan answers a second question, for a dict an attribute holds: where its *contents* may
change (``contents=True``).  transformers' ``_LazyAutoMapping._extra_content`` starts empty and only
``register`` fills it; while ``register`` has not run, ``type(config) in self._extra_content`` is
``False``.  Every use of ``x.name`` other than a plain read (``x.name[k]``, ``k in x.name``, a
read-only method such as ``x.name.get(k)``, iteration, ``len``) is taken to be a place that may fill
it: a store into it, a mutating method, an alias, the dict given to a call.

Files are chosen by their bytes (the name as a whole word) and only those are parsed, with
:mod:`ast` (a package of thousands of files mentions a private name in a few).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import libcst as cst

from .source import read_bytes

__all__ = ["PackageWriters", "function_key"]

#: The most files mentioning a name that are parsed to find its writers (more: not decided).
MAX_FILES = 32
#: The decorators of a property's other functions (``@name.setter``).
ROLES = ("setter", "deleter")
#: Reads of an attribute by a string name (the string is not a write).
_READERS = ("getattr", "hasattr")
#: A dict's methods that leave it as it is.
_READ_ONLY_METHODS = frozenset({"get", "keys", "values", "items", "copy", "__contains__", "__getitem__", "__len__"})
#: Builtins that read a dict given to them and keep no reference to it.
_READ_ONLY_CALLS = frozenset({"len", "list", "tuple", "set", "frozenset", "sorted", "dict", "iter", "bool", "any", "all"})


class PackageWriters:
    """The functions of a package's files that may write an attribute, by (package root, name)."""

    def __init__(self) -> None:
        self._found: dict[tuple[Path, str, bool, bool], frozenset[tuple[str, str]] | None] = {}
        self._files: dict[Path, tuple[Path, ...]] = {}

    def writers(self, root: Path, name: str, contents: bool = False, glob: bool = False) -> frozenset[tuple[str, str]] | None:
        """``(file, function name)`` (:func:`function_key`) of every function under ``root`` (a package's folder) that may
        write an attribute called ``name`` (with ``contents``: that may change what the dict an
        attribute of that name holds; with ``glob``: what a module's global of that name holds, see
        :func:`_global_sites`); ``None`` when some place that may is not in a named function (nor,
        with ``glob``, one of the edits a module's top level makes that the analysis follows), or a
        file mentioning it cannot be parsed."""
        key = (root, name, contents, glob)
        if key not in self._found:
            self._found[key] = self._scan(root, name, contents, glob)
        return self._found[key]

    def _scan(self, root: Path, name: str, contents: bool, glob: bool) -> frozenset[tuple[str, str]] | None:
        files = self._files.get(root)
        if files is None:
            files = self._files[root] = tuple(sorted(root.rglob("*.py")))
        word = name.encode()
        pattern = re.compile(rb"(?<![\w])" + re.escape(word) + rb"(?![\w])")
        out: set[tuple[str, str]] = set()
        mentioning = 0
        for path in files:
            raw, _ = read_bytes(path)
            if raw is None:
                return None
            if word not in raw or pattern.search(raw) is None:
                continue
            mentioning += 1
            if mentioning > MAX_FILES:
                return None  # a common name: not worth parsing its files (and written somewhere anyway)
            try:
                tree = ast.parse(raw)
            except (SyntaxError, ValueError):
                return None
            found = _global_sites(tree, name) if glob else _sites(tree, name, contents)
            if found is None:
                return None
            where = str(path.resolve())
            out.update((where, f) for f in found)
        return frozenset(out)


def _sites(tree: ast.Module, name: str, contents: bool = False) -> set[str] | None:
    """The names of the functions of ``tree`` holding a place that may write attribute ``name`` (with
    ``contents``: change the dict it holds) (``None``: one is outside a named function)."""
    readers: set[int] = set()
    for node in ast.walk(tree):
        if (
            not contents  # (``getattr(x, "name")`` gives the dict away: it may be filled)
            and isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _READERS
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
        ):
            readers.add(id(node.args[1]))
        if contents:
            readers.update(id(x) for x in _plain_reads(node, name))
            if isinstance(node, ast.Assign) and _empty_dict(node.value):
                # ``self.name = {}``: a fresh empty dict bound, nothing put in one.
                readers.update(id(t) for t in node.targets if isinstance(t, ast.Attribute) and t.attr == name)
    out: set[str] = set()
    for node, owner in _owned(tree):
        if _writes(node, name, readers) or (contents and _gives_away(node, name, readers)):
            if owner is None or owner == LAMBDA:
                return None
            out.add(owner)
    return out


#: The owner :func:`_owned` gives the places in a lambda's body (which has no name to follow).
LAMBDA = "<lambda>"


def _owned(tree: ast.Module) -> Iterator[tuple[ast.AST, str | None]]:
    """Every node of ``tree`` with the name of the function whose body holds it (``None``: the
    module's top level, where a class body runs too; :data:`LAMBDA` in a lambda's body)."""
    todo: list[tuple[ast.AST, str | None]] = [(tree, None)]
    while todo:
        node, owner = todo.pop()
        yield node, owner
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            # The decorators and defaults run where the function is defined; its body when called.
            inner = LAMBDA if isinstance(node, ast.Lambda) else node.name + _role(node.decorator_list)
            body = node.body if isinstance(node.body, list) else [node.body]
            todo.extend((child, inner) for child in body)
            outer: list[ast.AST] = [node.args]
            if not isinstance(node, ast.Lambda):
                outer += [*node.decorator_list, *([node.returns] if node.returns else [])]
            todo.extend((child, owner) for child in outer)
            continue
        # A class body runs where the class is defined: its own places are at that level.
        todo.extend(
            (child, owner if not isinstance(node, ast.ClassDef) else None) for child in ast.iter_child_nodes(node)
        )


def _role(decorators: list[ast.expr]) -> str:
    """``":setter"``/``":deleter"`` for a property's setter or deleter (``@name.setter``), which share
    the getter's name; ``""`` otherwise."""
    for d in decorators:
        if isinstance(d, ast.Attribute) and d.attr in ROLES:
            return f":{d.attr}"
    return ""


def function_key(path: str, node: cst.FunctionDef) -> tuple[str, str]:
    """The key of a function as :meth:`PackageWriters.writers` gives it: its file and name (a
    property's setter and deleter marked)."""
    role = ""
    for d in node.decorators:
        if type(d.decorator) is cst.Attribute and d.decorator.attr.value in ROLES:
            role = f":{d.decorator.attr.value}"
            break
    return path, node.name.value + role


def _plain_reads(node: ast.AST, name: str, bare: bool = False) -> list[ast.AST]:
    """The loads of ``x.name`` under ``node`` that only read the dict: ``x.name[k]`` read, ``k in
    x.name``, ``x.name.get(k)`` (a read-only method called), ``for k in x.name``, ``len(x.name)``."""
    held: list[ast.expr] = []
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        held.append(node.value)
    elif isinstance(node, ast.Compare):
        held.extend(c for op, c in zip(node.ops, node.comparators) if isinstance(op, (ast.In, ast.NotIn)))
    elif (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _READ_ONLY_METHODS
    ):
        held.append(node.func.value)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _READ_ONLY_CALLS:
        held.extend(node.args)
    elif isinstance(node, (ast.For, ast.comprehension)):
        held.append(node.iter)
    return [
        h
        for h in held
        if (isinstance(h, ast.Attribute) and h.attr == name and isinstance(h.ctx, ast.Load))
        or (bare and isinstance(h, ast.Name) and h.id == name)
    ]


def _gives_away(node: ast.AST, name: str, readers: set[int]) -> bool:
    """A load of ``x.name`` that is not a plain read: the dict may be changed through it."""
    return isinstance(node, ast.Attribute) and node.attr == name and id(node) not in readers


#: The key of a module's top-level edits of a global (``NAME.update({...})``), by :func:`_global_sites`.
TOP_LEVEL = "<module>"
#: A container's methods whose effect on a global the analysis follows where the module runs them.
_FOLLOWED_EDITS = frozenset({"update", "append", "extend", "insert", "setdefault"})


def _global_sites(tree: ast.Module, name: str) -> set[str] | None:
    """Where a module global ``name`` (a dict or list) may be changed or rebound: the functions
    holding such a place, and :data:`TOP_LEVEL` for the module's own top-level edits of the forms
    the analysis follows as it runs the module (``NAME.update(...)``, ``NAME[k] = v``, ``NAME =
    ...``).  ``None``: a top-level place of another form (an alias, the container given to a call,
    ``x.NAME = ...``, the name as a string, an import renaming it).  A top-level edit is followed
    only for the module's own binding: the caller accepts :data:`TOP_LEVEL` only in the module
    whose global is read."""
    followed: set[int] = set()
    plain: set[int] = set()
    for node in ast.walk(tree):
        plain.update(id(x) for x in _plain_reads(node, name, bare=True))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _FOLLOWED_EDITS
            and isinstance(node.func.value, ast.Name)
        ):
            followed.add(id(node.func.value))
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            followed.update(id(t.value) for t in targets if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name))
    out: set[str] = set()
    for node, owner in _owned(tree):
        site = _global_site(node, name, plain)
        if site is not None and owner == LAMBDA:
            return None
        if site is not None and owner is not None:
            out.add(owner)
        elif site is not None:
            if not site:
                return None
            if id(node) in followed:
                out.add(TOP_LEVEL)
            elif isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                return None
            # (else ``NAME = ...``: the module's own name rebound, which the analysis follows; another
            # module's binding of the old object is not changed by it)
    return out


def _global_site(node: ast.AST, name: str, plain: set[int]) -> bool | None:
    """Is ``node`` a place that may change global ``name``: ``True`` for one that may only at the
    top level of its module in a form the analysis follows (checked by the caller), ``False`` for one
    that may anywhere (through another module's attribute, a string, a renaming import); ``None``:
    not such a place."""
    if isinstance(node, ast.Name) and node.id == name:
        return None if isinstance(node.ctx, ast.Load) and id(node) in plain else True
    if isinstance(node, ast.Attribute) and node.attr == name:
        return None if isinstance(node.ctx, ast.Load) and id(node) in plain else False
    if isinstance(node, ast.Constant) and node.value == name:
        return False
    if isinstance(node, ast.alias) and node.name.rpartition(".")[2] == name and node.asname not in (None, name):
        return False
    return None


def _empty_dict(node: ast.expr) -> bool:
    if isinstance(node, ast.Dict):
        return not node.keys
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and not (
        node.args or node.keywords
    )


def _writes(node: ast.AST, name: str, readers: set[int]) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == name and not isinstance(node.ctx, ast.Load) and id(node) not in readers
    if isinstance(node, ast.Constant):
        return node.value == name and id(node) not in readers
    if isinstance(node, ast.keyword):
        return node.arg == name
    return False
