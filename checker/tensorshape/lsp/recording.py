"""An analyser that notes which function bodies each analysis depends on.

A body counts when it is executed (a definition's own analysis, an inlined
call, an ``__init__`` run to build an instance) and also when a memoised call
or instance built by an earlier analysis is reused: memo entries remember the
bodies their computation executed.  Bodies are named by ``(lineage, index)``
(:mod:`.outline`), which stays the same while edits change only bodies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import libcst as cst

from ..infer.analyzer import Analyzer
from ..infer.base import Frame
from ..infer.project import Project
from ..infer.state import State
from ..infer.values import ClassV, FunctionV, InstanceV
from ..model.values import Value
from ..rules.context import Options

__all__ = ["Body", "RecordingAnalyzer"]

#: A function body: (chunk lineage, index of the ``def`` in the chunk's outline).
Body = tuple[int, int]


class _Memo(dict[Any, Any]):
    """A memo table whose entries carry the bodies their computation used."""

    def __init__(self, owner: RecordingAnalyzer):
        super().__init__()
        self._owner = owner
        self._uses: dict[Any, set[Body]] = {}

    def __setitem__(self, key: Any, value: Any) -> None:
        self._uses[key] = self._owner.region  # filled as the computation goes on
        super().__setitem__(key, value)

    def __getitem__(self, key: Any) -> Any:
        self._owner.region.update(self._uses.get(key, ()))
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        if key in self:
            return self[key]
        return default


class RecordingAnalyzer(Analyzer):
    def __init__(self, project: Project, options: Options, bodies: Mapping[int, Body]):
        super().__init__(project, options, record=True)
        #: ``id`` of a ``def`` node -> its body's name.
        self._bodies = bodies
        self._regions: list[set[Body]] = [set()]
        self._call_memo = _Memo(self)
        self._instances = _Memo(self)
        self._generic_instances = _Memo(self)
        #: Definitions analysed (qualified names; ``C.__init__`` when a class's generic instance is built).
        self.analysed_definitions: list[str] = []

    @property
    def region(self) -> set[Body]:
        """The bodies the innermost computation under way has used so far."""
        return self._regions[-1]

    def take_bodies(self) -> frozenset[Body]:
        """The bodies used since the last call."""
        out = frozenset(self._regions[0])
        self._regions = [set()]
        return out

    def exec_block(
        self, frame: Frame, state: State, stmts: Sequence[cst.BaseStatement | cst.BaseSmallStatement]
    ) -> State | None:
        f = frame.function
        if f is not None:
            body = self._bodies.get(id(f.node))
            if body is not None:
                self._regions[-1].add(body)
        return super().exec_block(frame, state, stmts)

    def analyze_function(self, f: FunctionV, *args: Any, **kwargs: Any) -> None:
        self.analysed_definitions.append(f.qualname)
        super().analyze_function(f, *args, **kwargs)

    def generic_instance(self, c: ClassV, *args: Any, **kwargs: Any) -> InstanceV:
        if c not in self._generic_instances:
            self.analysed_definitions.append(f"{c.qualname}.__init__")
        return super().generic_instance(c, *args, **kwargs)

    def inline(self, *args: Any, **kwargs: Any) -> Value:
        return self._in_region(super().inline, args, kwargs)

    def instantiate(self, *args: Any, **kwargs: Any) -> Value:
        return self._in_region(super().instantiate, args, kwargs)

    def _in_region(self, run: Callable[..., Value], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Value:
        """Run a computation that may be memoised with a region of its own (merged into the enclosing one)."""
        self._regions.append(set())
        try:
            return run(*args, **kwargs)
        finally:
            inner = self._regions.pop()
            self._regions[-1] |= inner
