"""The daemon: a module's shape errors stay shown while mypy re-checks only some of its functions.

mypy's daemon (``dmypy``) clears every message at each update, re-checks the
edited modules as a whole, and for the other modules re-checks only the
*targets* (a function, or a module's top level) that had errors or that the
edit touches; a re-check calls no per-module plugin hook, so the shape errors
reported when a module was checked as a whole would vanish at the next edit of
any other file.  Two things keep them:

* each shape error is reported in the target its line is in (:func:`targets_of`),
  as mypy does with its own errors, so the target counts as one with errors and
  the daemon re-checks it at the next update (and clears it first);
* when mypy calls a call hook while it re-checks a target of a module that was
  last checked as a whole, :class:`Replay` reports that target's shape errors
  again, once per re-check.

A module parsed again (edited) is checked as a whole and reported anew, so its
stored errors are forgotten when mypy parses it (:meth:`Replay.forget`).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from mypy.errors import ErrorInfo, Errors
from mypy.nodes import Block, ClassDef, Decorator, FuncDef, MypyFile, OverloadedFuncDef, Statement

from .report import report

if TYPE_CHECKING:
    from tensorshape.model.diagnostics import Diagnostic

__all__ = ["Replay", "targets_of"]


def _spans(statements: Iterable[Statement], out: list[tuple[int, int, str]]) -> None:
    """The line span of each function that is a target of its own (not nested in another function)."""
    for st in statements:
        if isinstance(st, Decorator):
            st = st.func
        if isinstance(st, (FuncDef, OverloadedFuncDef)):
            # A function nested in it (or a class) is part of its target: not walked.
            out.append((st.line, st.end_line or st.line, st.fullname))
        elif isinstance(st, ClassDef):
            # A class body is its module's target; its methods are targets of their own.
            _spans(st.defs.body, out)
        else:
            # Definitions under `if`, `try`, `with`, `for`, `while`, `match` at the top level.
            for name in ("body", "else_body", "finally_body", "handlers", "bodies"):
                blocks = getattr(st, name, None)
                for block in blocks if isinstance(blocks, list) else [blocks]:
                    if isinstance(block, Block):
                        _spans(block.body, out)


def targets_of(file: MypyFile) -> Callable[[int], str]:
    """The fine-grained target mypy puts an error at ``line`` of ``file`` in (``mod.f``,
    ``mod.Class.method``, or the module itself for its top level and class bodies)."""
    spans: list[tuple[int, int, str]] = []
    _spans(file.defs, spans)
    spans.sort()
    starts = [s for s, _, _ in spans]

    def target(line: int) -> str:
        i = bisect.bisect_right(starts, line) - 1
        if i >= 0 and spans[i][0] <= line <= spans[i][1]:
            return spans[i][2]
        return file.fullname

    return target


def report_in_targets(
    errors: Errors, diagnostics: Sequence[Diagnostic], target: Callable[[int], str]
) -> dict[str, list[Diagnostic]]:
    """Report ``diagnostics``, each in the target its line is in; returns them by target."""
    by_target: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_target.setdefault(target(d.span.line), []).append(d)
    for name, ds in by_target.items():
        _mark(report(errors, ds), name)
    return by_target


def _mark(infos: list[ErrorInfo], target: str) -> None:
    for info in infos:
        info.target = target


class Replay:
    """The shape errors of the modules the daemon last checked as a whole, by file and target."""

    def __init__(self) -> None:
        self._files: dict[str, dict[str, list[Diagnostic]]] = {}
        #: (file, target) -> mypy's messages (all of them, and the file's list) when the target's errors
        #: were last reported: the daemon replaces the file's list when it clears targets before a
        #: re-check, and all of them at each update.
        self._seen: dict[tuple[str, str], tuple[object, object]] = {}

    def keep(self, errors: Errors, path: str, by_target: dict[str, list[Diagnostic]]) -> None:
        """``path`` was just checked as a whole and ``by_target`` reported."""
        self.forget(path)
        if by_target:
            self._files[path] = by_target
            for target in by_target:
                self._seen[(path, target)] = self._messages(errors, path)

    def forget(self, path: str) -> None:
        """mypy parsed ``path`` again: it is checked (and reported) as a whole."""
        if self._files.pop(path, None) is not None:
            for key in [k for k in self._seen if k[0] == path]:
                del self._seen[key]

    def on_call(self, errors: Errors) -> None:
        """A call hook: if mypy is re-checking a target with shape errors, report them (once)."""
        path = errors.file
        by_target = self._files.get(path)
        if by_target is None:
            return
        target = errors.current_target()
        if target is None or not by_target.get(target):
            return
        ds = by_target[target]
        key = (path, target)
        seen = self._seen.get(key)
        now = self._messages(errors, path)
        if seen is not None and seen[0] is now[0] and seen[1] is now[1]:
            return
        # mypy calls hooks while it tries a call speculatively (operators, overloads, inference),
        # with its error watchers filtering what is reported: the target's shape errors are not
        # part of that try, so they go past the watchers.
        watchers, errors._watchers = errors._watchers, []
        try:
            _mark(report(errors, ds), target)
        finally:
            errors._watchers = watchers
        self._seen[key] = self._messages(errors, path)

    @staticmethod
    def _messages(errors: Errors, path: str) -> tuple[object, object]:
        return errors.error_info_map, errors.error_info_map.get(path)

    def __bool__(self) -> bool:
        return bool(self._files)
