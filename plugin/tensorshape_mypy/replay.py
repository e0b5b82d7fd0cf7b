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
stored errors are forgotten when mypy parses it (:meth:`Replay.forget`).

What a module's analysis reads of other modules (the body of an unannotated
callee, the dims of a jaxtyping annotation) is not in mypy's view of their
interfaces, and the daemon re-checks what its own dependencies say changed.
So each user module carries a *stamp* in its symbol table, a name whose type
changes with the module's contents (:func:`stamp`, never written to mypy's
cache), and each module the plugin reports on declares a dependency of its
top level on the stamps of the modules its analysis read (:func:`depend`,
mypy's ``plugin_deps``): an edit of one re-checks the top level of the others.
At the first hook of an update in a module whose files changed since its
analysis, the module is analysed again and its shape errors replace those of
its last analysis (:meth:`Replay.signal`).  Under
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
from mypy.nodes import (
    GDEF,
    Block,
    ClassDef,
    Decorator,
    FuncDef,
    MypyFile,
    OverloadedFuncDef,
    Statement,
    SymbolTableNode,
    Var,
)
from mypy.server.trigger import make_trigger
from mypy.types import UnboundType

from .report import report
from .reveal import PREFIX, rewrite_note
from .session import files_digest

if TYPE_CHECKING:
    from tensorshape.model.diagnostics import Diagnostic

    from .observe import Reveal

__all__ = ["Replay", "Unit", "Fresh", "mark", "recorded", "targets_of", "units_of", "stamp", "depend", "STAMP"]


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


#: The name of a module's stamp in its symbol table.
STAMP = "__tensorshape_stamp__"


def stamp(file: MypyFile) -> None:
    """Give ``file`` a name whose type changes with the file's contents (the daemon's snapshot of the
    module's symbols differs after any edit, and fires the trigger :func:`depend` waits on).

    Private (no ``import *`` takes it) and not serialized: it never reaches mypy's cache."""
    var = Var(STAMP, UnboundType(files_digest([file.path])))
    var._fullname = f"{file.fullname}.{STAMP}"
    file.names[STAMP] = SymbolTableNode(GDEF, var, module_public=False, no_serialize=True)


def depend(file: MypyFile, modules: Iterable[str]) -> None:
    """The daemon re-checks ``file``'s top level when the stamp of one of ``modules`` changes."""
    for module in modules:
        if module != file.fullname:
            file.plugin_deps.setdefault(make_trigger(f"{module}.{STAMP}"), set()).add(file.fullname)


#: What a new analysis of a file gives: its units of reporting, the files it read, its ``reveal_type`` shapes.
Fresh = tuple[list[tuple[int, Unit]], list[str], list["Reveal"]]


class _Kept:
    """A module last analysed: by target, what reports its shape errors and mypy's records; the files
    the analysis read, with their digest, and the update that last looked at them."""

    __slots__ = ("by_target", "seen", "files", "digest", "update")

    def __init__(
        self, by_target: dict[str, list[tuple[Unit, list[ErrorInfo]]]], files: list[str], update: object
    ) -> None:
        self.by_target = by_target
        #: mypy's messages (all of them, and the file's list) when the records were last checked: the
        #: daemon replaces the file's list when it clears targets, and all of them at each reset.
        self.seen: tuple[object, object] = (None, None)
        self.files = files
        self.digest = files_digest(files)
        #: mypy's messages of the update that last compared the files (new at each update).
        self.update = update


class Replay:
    """What the daemon needs between builds: the shape errors and shapes of the modules checked as a
    whole, where hooks fire in them, and the modules whose errors are still to be reported."""

    def __init__(self, fresh: Callable[[str], Fresh]) -> None:
        #: Analyses a file anew (its files changed since its last analysis).
        self._fresh = fresh
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

    def keep(
        self,
        errors: Errors,
        path: str,
        reported: list[tuple[str, Unit, list[ErrorInfo]]],
        reveals: list[Reveal],
        files: list[str],
    ) -> None:
        """``path`` was just checked as a whole and ``reported`` (target, unit, records); its analysis
        read ``files``.

        A target where no hook fired hands its errors to one where one did (its carrier): mypy
        re-checks the carrier at the next update, and the hooks there report them again."""
        fired = self._fired.pop(path, set())
        by_target: dict[str, list[tuple[Unit, list[ErrorInfo]]]] = {}
        for target, unit, infos in reported:
            carrier = target if target in fired or not fired else min(fired)
            mark(infos, carrier)
            by_target.setdefault(carrier, []).append((unit, infos))
        self._files[path] = _Kept(by_target, files, errors.error_info_map)
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
            if kept.update is not errors.error_info_map:
                # The first hook of an update in this module: did a file its analysis read change?
                kept.update = errors.error_info_map
                if files_digest(kept.files) != kept.digest:
                    self._renew(errors, path, kept)
            self._restore(errors, path, kept)

    def _renew(self, errors: Errors, path: str, kept: _Kept) -> None:
        """Analyse ``path`` again and report its shape errors instead of those of its last analysis, all
        in the target mypy re-checks now (the daemon re-checks it at the next update, as any target
        with errors)."""
        units, files, reveals = self._fresh(path)
        old = {id(i) for entries in kept.by_target.values() for _, infos in entries for i in infos}
        mine = errors.error_info_map.get(path)
        if mine and old:
            mine[:] = [i for i in mine if id(i) not in old]
        target = errors.current_target() or min(kept.by_target, default=None)
        by_target: dict[str, list[tuple[Unit, list[ErrorInfo]]]] = {}
        for _, unit in units:
            infos = self._report(errors, unit)
            if target is not None:
                mark(infos, target)
            by_target.setdefault(target or "", []).append((unit, infos))
        kept.by_target = by_target
        kept.files = files
        kept.digest = files_digest(files)
        kept.seen = (errors.error_info_map, errors.error_info_map.get(path))
        if reveals:
            self._reveals[path] = reveals
        else:
            self._reveals.pop(path, None)

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
