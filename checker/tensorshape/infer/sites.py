"""Where a module's classes are built: which constructor parameters every call leaves to its default.

A model built as ``Model()`` runs with its ``__init__`` defaults
(``emb_dim: int = 128``), so the generic analysis of ``Model`` may use them as
the sizes.  That holds only when the file's every mention of the class is such
a call: a class passed as a value (``ResNet(BasicBlock, ...)``), subclassed or
aliased may be built elsewhere with other values, and then nothing is assumed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

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


class _Collector(cst.CSTVisitor):
    def __init__(self, sites: ConstructionSites, names: frozenset[str]) -> None:
        self.sites = sites
        self.names = names
        self.in_annotation = 0

    def _entry(self, name: str) -> _Calls:
        return self.sites._by_name.setdefault(name, _Calls())

    def visit_Annotation(self, node: cst.Annotation) -> None:
        self.in_annotation += 1  # ``-> Model``: a type, not a value that could be called elsewhere

    def leave_Annotation(self, original_node: cst.Annotation) -> None:
        self.in_annotation -= 1

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names and not self.in_annotation:
            self._entry(node.value).mentions += 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        if node.name.value in self.names:
            self._entry(node.name.value).mentions -= 1  # the definition's own name is no use

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value in self.names:
            entry = self._entry(node.func.value)
            if any(a.star for a in node.args):
                entry.calls.append(None)
                return
            positional = sum(1 for a in node.args if a.keyword is None)
            keywords = frozenset(a.keyword.value for a in node.args if a.keyword is not None)
            entry.calls.append((positional, keywords))


def construction_sites(tree: cst.Module, names: frozenset[str]) -> ConstructionSites:
    """The calls of the classes ``names`` in a module."""
    sites = ConstructionSites()
    tree.visit(_Collector(sites, names))
    return sites
