"""Where a module's classes are built: which constructor parameters every call leaves to its default.

A model built as ``Model()`` runs with its ``__init__`` defaults
(``emb_dim: int = 128``), so the generic analysis of ``Model`` may use them as
the sizes.  That holds only when the file's every mention of the class is such
a call: a class passed as a value (``ResNet(BasicBlock, ...)``), subclassed or
aliased may be built elsewhere with other values, and then nothing is assumed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = ["ConstructionSites", "construction_sites"]


@dataclass(slots=True)
class _Calls:
    #: How many times the name is mentioned at all.
    mentions: int = 0
    #: ``(positional count, keyword names)`` of each call ``Name(...)``; ``None`` for ``*args``/``**kwargs``.
    calls: list[tuple[int, frozenset[str]] | None] = field(default_factory=list)


class ConstructionSites:
    """Calls of each name in one module, and every other mention of it."""

    def __init__(self) -> None:
        self._by_name: dict[str, _Calls] = {}

    def defaulted(self, name: str, params: list[str]) -> frozenset[str]:
        """The parameters (in order, without ``self``) that every call of ``name`` leaves to its default.

        Empty when the class is not built in the module or is mentioned other than as a call.
        """
        entry = self._by_name.get(name)
        if entry is None or not entry.calls or entry.mentions != len(entry.calls) or None in entry.calls:
            return frozenset()
        out = set()
        for i, p in enumerate(params):
            if all(c is not None and c[0] <= i and p not in c[1] for c in entry.calls):
                out.add(p)
        return frozenset(out)


def construction_sites(source: str, names: frozenset[str]) -> ConstructionSites:
    """The calls of the classes ``names`` in a module's source.

    Read with Python's own parser: a libcst visit of a large module costs as much as its parse.
    """
    sites = ConstructionSites()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return sites
    for node, in_annotation in _walk(tree):
        if isinstance(node, ast.Name) and node.id in names and not in_annotation:
            # ``-> Model`` is a type, not a value that could be called elsewhere.
            sites._by_name.setdefault(node.id, _Calls()).mentions += 1
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names:
            entry = sites._by_name.setdefault(node.func.id, _Calls())
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                entry.calls.append(None)
            else:
                entry.calls.append((len(node.args), frozenset(k.arg for k in node.keywords if k.arg is not None)))
    return sites


#: The fields that hold annotations: a parameter's, a function's return, an annotated assignment's.
_ANNOTATION_FIELDS: dict[type, str] = {
    ast.arg: "annotation", ast.FunctionDef: "returns", ast.AsyncFunctionDef: "returns", ast.AnnAssign: "annotation",
}  # fmt: skip


def _walk(tree: ast.AST) -> Iterator[tuple[ast.AST, bool]]:
    """Every node of ``tree`` (in no particular order), and whether it is inside an annotation.

    One pass over the fields, without :func:`ast.walk`'s generators per node (most of its cost)."""
    todo: list[tuple[ast.AST, bool]] = [(tree, False)]
    while todo:
        node, inside = todo.pop()
        yield node, inside
        annotation = _ANNOTATION_FIELDS.get(type(node))
        for name in node._fields:
            v = getattr(node, name, None)
            marked = inside or name == annotation
            if isinstance(v, list):
                todo.extend((x, marked) for x in v if isinstance(x, ast.AST))
            elif isinstance(v, ast.AST):
                todo.append((v, marked))
