"""The daemon: a module's shape errors and shapes stay shown while mypy re-checks only some of its functions.

mypy's daemon (``dmypy``) clears every message at each update, re-checks the
edited modules as a whole, and for the other modules re-checks only the
*targets* (a function, or a module's top level) that had errors or that the
edit touches.  Such a re-check calls no per-module plugin hook, only the
hooks its code reaches (a call, an attribute, an annotation, an assignment of
a call...).  So:

* each shape error is reported in a target, as mypy does with its own errors,
  so the target counts as one with errors and the daemon re-checks it at the
  next update (clearing it first).  The target is the one its line is in when
  a hook fired there during the module's whole check; otherwise (an error in
  an unannotated function with no annotation and no assignment of a call in
  it: mypy does not type check its body) a target of the same module where
  one fired (its *carrier*).  The module's top
  level is one: mypy analyses the types of its implicit attributes
  (``__name__``, ``__file__``...) whenever it checks it, asking for a hook for each;
* whenever mypy calls any of the plugin's hooks while it works on a module
  last checked as a whole, the shape errors of that module that are no longer
  among mypy's messages (their targets were cleared) are reported again, in
  the same targets: a re-check of a carrier re-reports what it carries;
* a ``reveal_type`` note is given its shape when mypy records it (a watcher at
  the bottom of mypy's error watchers, put back by the first hook after each
  reset), whichever target it is in.

A module parsed again (edited) is checked as a whole and reported anew, so its
stored errors are forgotten when mypy parses it (:meth:`Replay.forget`).  Under
the daemon the shape errors of a module checked as a whole are reported at the
first hook mypy calls in it, before mypy looks for unused ``# type: ignore``
comments (which the daemon does before the per-module hook that reports them in
a normal run).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from mypy.errors import ErrorInfo, Errors, ErrorWatcher
from mypy.nodes import Block, ClassDef, Decorator, FuncDef, MypyFile, OverloadedFuncDef, Statement

from .report import report
from .reveal import PREFIX, rewrite_note

if TYPE_CHECKING:
    from tensorshape.model.diagnostics import Diagnostic

    from .observe import Reveal

__all__ = ["Replay", "Unit", "mark", "recorded", "targets_of", "units_of"]


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


#: Reports one finding (a shape error with its notes, or a ``config-error``) and returns mypy's records.
Unit = Callable[[Errors], list[ErrorInfo]]


def units_of(diagnostics: Sequence[Diagnostic]) -> list[tuple[int, Unit]]:
    """Each diagnostic as a unit of reporting, with its line."""
    return [(d.span.line, partial(report_one, d)) for d in diagnostics]


def report_one(d: Diagnostic, errors: Errors) -> list[ErrorInfo]:
    return report(errors, [d])


def recorded(errors: Errors, infos: list[ErrorInfo]) -> list[ErrorInfo]:
    """The records mypy kept (not those a ``# type: ignore`` or a disabled code dropped)."""
    if not infos:
        return infos
    kept = {id(i) for i in errors.error_info_map.get(errors.file) or ()}
    return [i for i in infos if id(i) in kept]


def mark(infos: list[ErrorInfo], target: str) -> None:
    """Put mypy's records in ``target`` (the fine-grained target the daemon clears and re-checks)."""
    for info in infos:
        info.target = target


class _Kept:
    """A module last checked as a whole: by target, what reports its shape errors and mypy's records."""

    __slots__ = ("by_target", "seen")

    def __init__(self, by_target: dict[str, list[tuple[Unit, list[ErrorInfo]]]]) -> None:
        self.by_target = by_target
        #: mypy's messages (all of them, and the file's list) when the records were last checked: the
        #: daemon replaces the file's list when it clears targets, and all of them at each reset.
        self.seen: tuple[object, object] = (None, None)


class Replay:
    """What the daemon needs between builds: the shape errors and shapes of the modules checked as a
    whole, where hooks fire in them, and the modules whose errors are still to be reported."""

    def __init__(self) -> None:
        self._files: dict[str, _Kept] = {}
        self._reveals: dict[str, list[Reveal]] = {}
        #: Modules being checked as a whole (parsed, not yet done): the targets where a hook fired.
        self._fired: dict[str, set[str]] = {}
        #: Modules being checked as a whole whose shape errors are not reported yet: their units.
        self._due: dict[str, Callable[[], list[tuple[int, Unit]]]] = {}
        #: Their units and records, reported before the check ended.
        self._early: dict[str, list[tuple[int, Unit, list[ErrorInfo]]]] = {}
        #: mypy's own watcher (an interpreted class cannot extend it), given a filter that filters
        #: nothing: it sees every message mypy records and gives a ``reveal_type`` note its shapes.
        self._watcher: ErrorWatcher | None = None

    # -- a module checked as a whole ------------------------------------------------------------
    def forget(self, path: str) -> None:
        """mypy parsed ``path`` (again): it is checked (and reported) as a whole."""
        self._files.pop(path, None)
        self._reveals.pop(path, None)
        self._early.pop(path, None)
        self._due.pop(path, None)
        self._fired.pop(path, None)

    def checking(self, path: str, units: Callable[[], list[tuple[int, Unit]]]) -> None:
        """mypy checks ``path`` (a module the plugin reports on) as a whole: its shape errors, from
        ``units``, are reported at the first hook mypy calls in it."""
        self._fired[path] = set()
        self._due[path] = units

    def reported_early(self, path: str) -> list[tuple[int, Unit, list[ErrorInfo]]] | None:
        """What a hook reported of ``path``'s shape errors while mypy checked it (``None``: nothing)."""
        self._due.pop(path, None)
        return self._early.pop(path, None)

    def keep(self, path: str, reported: list[tuple[str, Unit, list[ErrorInfo]]], reveals: list[Reveal]) -> None:
        """``path`` was just checked as a whole and ``reported`` (target, unit, records).

        A target where no hook fired hands its errors to one where one did (its carrier): mypy
        re-checks the carrier at the next update, and the hooks there report them again."""
        fired = self._fired.pop(path, set())
        by_target: dict[str, list[tuple[Unit, list[ErrorInfo]]]] = {}
        for target, unit, infos in reported:
            carrier = target if target in fired or not fired else min(fired)
            mark(infos, carrier)
            by_target.setdefault(carrier, []).append((unit, infos))
        if by_target:
            self._files[path] = _Kept(by_target)
        if reveals:
            self._reveals[path] = reveals

    # -- any hook --------------------------------------------------------------------------------
    def signal(self, errors: Errors) -> None:
        """mypy called one of the plugin's hooks while it works on ``errors.file``."""
        path = errors.file
        fired = self._fired.get(path)
        if fired is not None:
            target = errors.current_target()
            if target is not None:
                fired.add(target)
            units = self._due.pop(path, None)
            if units is not None:
                self._early[path] = [(line, unit, self._report(errors, unit)) for line, unit in units()]
        if self._reveals:
            self._watch(errors)
        kept = self._files.get(path)
        if kept is not None:
            self._restore(errors, path, kept)

    def _watch(self, errors: Errors) -> None:
        watchers = errors._watchers
        if not watchers or watchers[0] is not self._watcher:
            if self._watcher is None or self._watcher.errors is not errors:
                self._watcher = ErrorWatcher(errors, filter_errors=self._on_message)
            watchers.insert(0, self._watcher)

    def _on_message(self, file: str, info: ErrorInfo) -> bool:
        if info.severity == "note" and file in self._reveals and info.message.startswith(PREFIX):
            rewrite_note(info, self._reveals[file])
        return False

    def _restore(self, errors: Errors, path: str, kept: _Kept) -> None:
        """Report again the shape errors of ``path`` whose records mypy dropped (targets it cleared)."""
        now = (errors.error_info_map, errors.error_info_map.get(path))
        if now[0] is kept.seen[0] and now[1] is kept.seen[1]:
            return
        present = {id(i) for i in now[1] or ()}
        for target, entries in kept.by_target.items():
            if all(id(i) in present for _, infos in entries for i in infos):
                continue
            # Cleared together (one target): reported again together, each in the same target.
            for k, (unit, _) in enumerate(entries):
                infos = self._report(errors, unit)
                mark(infos, target)
                entries[k] = (unit, infos)
        kept.seen = (errors.error_info_map, errors.error_info_map.get(path))

    @staticmethod
    def _report(errors: Errors, unit: Unit) -> list[ErrorInfo]:
        # mypy calls hooks while it tries a call speculatively (operators, overloads, inference),
        # with its error watchers filtering what is reported: the shape errors are not part of that
        # try, so they go past the watchers.
        watchers, errors._watchers = errors._watchers, []
        try:
            return recorded(errors, unit(errors))
        finally:
            errors._watchers = watchers
