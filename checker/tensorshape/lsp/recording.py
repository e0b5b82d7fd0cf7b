"""An analyser that notes which function bodies each analysis depends on.

A body counts when it is executed (a definition's own analysis, an inlined
call, an ``__init__`` run to build an instance) and also when a memoised call
or instance built by an earlier analysis is reused: memo entries remember the
bodies their computation executed.  Bodies are named by ``(lineage, index)``
(:mod:`.outline`), which stays the same while edits change only bodies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import libcst as cst

from ..infer.analyzer import Analyzer
from ..infer.base import Frame
from ..infer.memo import CallMemo
from ..infer.project import ModuleInfo, Project
from ..infer.signature import Signature
from ..infer.state import State
from ..infer.values import ClassV, FunctionV, InstanceV
from ..model.values import TensorV, Value
from ..rules.context import Options

__all__ = ["Body", "RecordingAnalyzer"]

R = TypeVar("R")

#: A function body: (chunk lineage, index of the ``def`` in the chunk's outline).
Body = tuple[int, int]


class _Memo(CallMemo[Any]):
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

    def forget(self, bodies: set[Body]) -> list[Any]:
        """Drop the entries whose computation used one of ``bodies``; their keys."""
        gone = [k for k, used in self._uses.items() if not used.isdisjoint(bodies)]
        for k in gone:
            del self._uses[k]
            self.pop(k, None)
        return gone


class RecordingAnalyzer(Analyzer):
    def __init__(self, project: Project, options: Options, bodies: Mapping[int, Body]):
        super().__init__(project, options, record=True)
        #: ``id`` of a ``def`` node -> its body's name.
        self._bodies = bodies
        self._regions: list[set[Body]] = [set()]
        self._memos = (_Memo(self), _Memo(self), _Memo(self), _Memo(self))
        self._call_memo, self._instances, self._generic_instances, self._through = self._memos
        #: The ``__init__`` parameters left to their default in each generic instance built.
        self.defaults_seen: dict[ClassV, frozenset[str]] = {}
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
        return self._in_region(super().generic_instance, (c, *args), kwargs)

    def _defaults_used(self, c: ClassV, sig: Signature) -> frozenset[str]:
        got = self.defaults_seen[c] = super()._defaults_used(c, sig)
        return got

    def nested_mark(self) -> int:
        """Where the queue of functions defined inside analysed functions ends now."""
        return len(self._nested)

    def analyze_nested(self, mark: int) -> None:
        """Analyse the functions and classes queued since ``mark``."""
        self._analyze_nested(mark)

    def guarded(self, info: ModuleInfo, node: cst.ClassDef, run: Callable[[object], None], value: ClassV) -> None:
        """Run ``run(value)``; an internal failure becomes a diagnostic on ``node`` (as for any definition)."""
        self._guarded(info, node, run, value)

    def forget(self, bodies: set[Body]) -> None:
        """Before the analyser serves the next version of the module: drop what used a changed body
        (memoised calls and instances) and what is cheap to find again."""
        calls, instances, generic, through = self._memos
        through.forget(bodies)
        for key in calls.forget(bodies):
            self._call_constraints.pop(key, None)
            self._call_facts.pop(key, None)
        instances.forget(bodies)
        for c in generic.forget(bodies):
            self.instance_constraints.pop(c, None)
            self.defaults_seen.pop(c, None)
        self._sites = None

    def defaults_changed(self, texts: Sequence[str]) -> bool:
        """Whether a built generic instance would now leave other ``__init__`` parameters to their default
        (the constructions in the module changed); ``texts``: the changed bodies, old and new (a class
        whose name none of them mentions has the same constructions)."""
        self._sites = None
        for c, used in list(self.defaults_seen.items()):
            if not any(c.node.name.value in t for t in texts):
                continue
            init = c.lookup("__init__")
            if isinstance(init, FunctionV) and super()._defaults_used(c, self.signature(init)) != used:
                return True
        return False

    def learned_through(self, *args: Any, **kwargs: Any) -> TensorV | None:
        return self._in_region(super().learned_through, args, kwargs)

    def inline(self, *args: Any, **kwargs: Any) -> Value:
        return self._in_region(super().inline, args, kwargs)

    def instantiate(self, *args: Any, **kwargs: Any) -> Value:
        return self._in_region(super().instantiate, args, kwargs)

    def _in_region(self, run: Callable[..., R], args: tuple[Any, ...], kwargs: dict[str, Any]) -> R:
        """Run a computation that may be memoised with a region of its own (merged into the enclosing one)."""
        self._regions.append(set())
        try:
            return run(*args, **kwargs)
        finally:
            inner = self._regions.pop()
            self._regions[-1] |= inner
