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

Files are chosen by their bytes (the name as a whole word) and only those are parsed, with
:mod:`ast` (a package of thousands of files mentions a private name in a few).
"""

from __future__ import annotations

import ast
import re
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


class PackageWriters:
    """The functions of a package's files that may write an attribute, by (package root, name)."""

    def __init__(self) -> None:
        self._found: dict[tuple[Path, str], frozenset[tuple[str, str]] | None] = {}
        self._files: dict[Path, tuple[Path, ...]] = {}

    def writers(self, root: Path, name: str) -> frozenset[tuple[str, str]] | None:
        """``(file, function name)`` (:func:`function_key`) of every function under ``root`` (a package's folder) that may
        write an attribute called ``name``; ``None`` when some place that may is not in a named
        function, or a file mentioning it cannot be parsed."""
        key = (root, name)
        if key not in self._found:
            self._found[key] = self._scan(root, name)
        return self._found[key]

    def _scan(self, root: Path, name: str) -> frozenset[tuple[str, str]] | None:
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
            found = _sites(tree, name)
            if found is None:
                return None
            where = str(path.resolve())
            out.update((where, f) for f in found)
        return frozenset(out)


def _sites(tree: ast.Module, name: str) -> set[str] | None:
    """The names of the functions of ``tree`` holding a place that may write attribute ``name``
    (``None``: one is outside a named function)."""
    readers: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _READERS
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
        ):
            readers.add(id(node.args[1]))
    out: set[str] = set()
    todo: list[tuple[ast.AST, str | None]] = [(tree, None)]
    while todo:
        node, owner = todo.pop()
        if _writes(node, name, readers):
            if owner is None:
                return None
            out.add(owner)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            # The decorators and defaults run where the function is defined; its body when called
            # (a lambda has no name to follow).
            inner = None if isinstance(node, ast.Lambda) else node.name + _role(node.decorator_list)
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
    return out


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


def _writes(node: ast.AST, name: str, readers: set[int]) -> bool:
    if isinstance(node, ast.Attribute):
        return node.attr == name and not isinstance(node.ctx, ast.Load)
    if isinstance(node, ast.Constant):
        return node.value == name and id(node) not in readers
    if isinstance(node, ast.keyword):
        return node.arg == name
    return False
