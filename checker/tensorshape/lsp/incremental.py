"""Re-analyse only what an edit can affect, reusing the results of the other top-level statements.

Each version of a document is split into chunks (:mod:`.chunks`); the module
is assembled from their cached parses and its top level is interpreted again
(cheap: definitions are not entered).  The functions and classes of a chunk are
analysed again only when the chunk is *dirty*:

* its text is new, or
* its analysis executed (or reused, through a memoised call or instance) a
  function body that the edit changed, or
* it mentions a name that a changed, added or removed chunk binds, or that a
  chunk dirty for this reason binds (transitively: a class that subclasses a
  changed class is dirty, and so is whatever mentions that one).  A name the
  changed chunk binds to what it was bound to before (compared right after the
  top level ran: the same object, or an import of the same qualified name)
  does not count, when no other chunk binds it.

An edit of blank lines and comments between top-level statements leaves every
chunk as it was: nothing runs again, not even the module's top level (the
results are placed at the chunks' new lines, and ``# type: ignore`` comments
read again).  An edit that changes only comments and layout, or only function bodies (a new
chunk has the same :mod:`.outline` as the one it replaces), binds no changed
name: only analyses that ran one of the changed bodies (:mod:`.recording`) are
redone.  A statement
that binds names in ways its text does not show (``from x import *``,
``global``) makes every chunk dirty, and so do reordering chunks and a changed
body that the module's top level executes.  The other chunks keep their
diagnostics, obligations and observed shapes, whose positions are relative to
chunks (:mod:`.locate`).  Results are then merged in
document order exactly as a full analysis merges them, so the outcome is the
same as :func:`~.analysis.analyse` on the whole text (``tests/lsp/test_incremental.py``
checks that over random edits).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from time import process_time
from typing import TypeVar

import libcst as cst

from ..infer.analyzer import ClassRun
from ..infer.api import CheckSettings, report
from ..infer.project import ModuleInfo, Project
from ..infer.source import text_digest
from ..infer.values import ClassV, ExternalV, LazyImportV
from ..lang.render import render_shape
from ..model import codes
from ..model.diagnostics import Diagnostic, Span
from ..model.dims import Dim
from ..model.obligations import Obligation
from ..model.values import TensorV, Value
from .analysis import Analysis, ShapeAt, analyse
from .chunks import Chunk, ChunkPool
from .locate import STRIDE, ChunkSpans, chunk_span, chunk_uids, to_document
from .outline import Outline, defs, outline
from .recording import Body, RecordingAnalyzer

__all__ = ["IncrementalAnalyser", "EARLY_AFTER"]

#: CPU seconds after which a newly opened document's first diagnostics are published (the rest follow).
EARLY_AFTER = 0.4

#: CPU seconds after which an edit of function bodies publishes the edited definitions' diagnostics,
#: while the definitions that ran the edited bodies (callers, often far more work) are analysed again.
EARLY_EDIT_AFTER = 0.03

#: Function bodies replaced in place before a body edit is analysed with a new analyser (to free them).
MAX_REPLACED = 200

#: Observed tensor expressions by node id: the chunk the node is in (its span is computed when hover or
#: inlay hints first ask: diagnostics do not wait for the positions of every chunk), last value, node;
#: for a parameter's learnt shape, the parameter (its name is placed when asked for too).
_Observed = dict[int, tuple[Chunk | None, TensorV, cst.CSTNode]]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class _Result:
    """What analysing one chunk (or the module's top level) found, with chunk spans."""

    diagnostics: list[tuple[object, Diagnostic]]
    obligations: list[tuple[object, Obligation]]
    observed: _Observed
    dependencies: frozenset[str]
    #: Chunks (uids) its spans point into: it is stale when one of them is gone.
    refs: frozenset[int]
    #: Function bodies the analysis executed or reused (through memoised calls and instances).
    bodies: frozenset[Body]
    #: The span table the tickets below were taken from, and the diagnostics and obligations with
    #: their tickets: placed again when a chunk they point into is replaced by an edit of its bodies.
    spans: ChunkSpans | None = None
    raw: tuple[list[Diagnostic], list[Obligation]] = ([], [])


@dataclass(slots=True)
class _Unit:
    """One step of a class's analysis (its instance, or one member) and the class's sizes around it."""

    result: _Result
    before: tuple[dict[str, Dim], frozenset[str]]
    after: tuple[dict[str, Dim], frozenset[str]]


@dataclass(slots=True)
class _ClassUnits:
    """A top-level class's analysis in steps, by the analyser that ran it (see :meth:`IncrementalAnalyser._run_class`)."""

    an: RecordingAnalyzer
    run: ClassRun
    units: list[_Unit]
    #: An internal error cut the analysis short: it is redone whole.
    broken: bool = False


class IncrementalAnalyser:
    """One open document's chunks and per-chunk results, updated version by version."""

    def __init__(self, project: Project, settings: CheckSettings, path: str):
        self.project = project
        self.settings = settings
        self.path = path
        self._pool = ChunkPool()
        self._chunks: list[Chunk] = []
        self._results: dict[Chunk, _Result] = {}
        self._defs: dict[Chunk, list[cst.FunctionDef]] = {}
        self._outlines: dict[Chunk, Outline] = {}
        #: Bodies the module's top level executed (decorators, module-level calls) in the last version.
        self._module_bodies: frozenset[Body] = frozenset()
        #: The module's globals right after its top level ran, in the last version analysed whole.
        self._values: dict[str, Value] = {}
        #: Chunks analysed again by the last update (tests and benchmarks look).
        self.reanalysed = 0
        #: Definitions (qualified names) analysed again by the last update, ``C.__init__`` for an instance built.
        self.reanalysed_definitions: list[str] = []
        #: The analyser of the last version, its module and span table and the module's top-level result:
        #: kept while edits change only function bodies (its memoised calls and instances that did not
        #: use a changed body stay valid).
        self._an: RecordingAnalyzer | None = None
        self._info: ModuleInfo | None = None
        self._spans: ChunkSpans | None = None
        self._top: _Result | None = None
        #: Top-level classes analysed in steps, by chunk.
        self._classes: dict[Chunk, _ClassUnits] = {}
        #: Chunks whose result is still that of an earlier version: a body edit's analyses left to redo when
        #: a newer version came (see :meth:`_body_edit`), with the bodies changed since they last ran.
        self._stale: dict[Chunk, frozenset[Body]] = {}
        #: Function bodies replaced in the kept trees: their nodes stay alive while the analyser that may
        #: hold their ``id`` does.
        self._replaced: list[object] = []
        #: How many times the module's top level was run (tests look: an edit of comments and blank
        #: lines between statements does not run it).
        self.module_runs = 0

    def update(
        self,
        source: str,
        version: int | None,
        early: Callable[[Analysis], None] | None = None,
        superseded: Callable[[], bool] | None = None,
    ) -> Analysis:
        """Analyse a new version of the document (the same result as :func:`~.analysis.analyse`).

        ``early``: for a document analysed for the first time, called once with what the
        definitions analysed in the first :data:`EARLY_AFTER` seconds of CPU found, when more are
        left; for an edit of function bodies, with the edited definitions' results (see
        :meth:`_body_edit`).  ``superseded``: whether a newer version is waiting; a body edit then
        leaves the analyses of other definitions to that version (the result returned holds their
        previous results, and is not this version's whole: it is not to be published)."""
        start = process_time()
        if self.settings.options.vollo:
            # Vollo's checks of a model's ``forward`` look at every class of the file.
            return self._full(source, version)
        _, chunks = self._pool.chunks(source)
        if any(c.tree is None for c in chunks):
            return self._full(source, version)  # the full parse reports the syntax error as usual
        if self._same_statements(chunks) and not self._stale:
            return self._trivia_edit(source, version, chunks)
        fast = self._body_edit(source, version, chunks, early, start, superseded)
        if fast is not None:
            return fast
        plan = self._plan(chunks)
        tree = cst.Module(body=[s for c in chunks for s in c.tree.body])  # type: ignore[union-attr]
        spans = ChunkSpans(tree, chunks)
        info = self.project.add_parsed(source, tree, spans, self.path)
        self.module_runs += 1
        for c in chunks:
            if c not in self._defs:
                self._defs[c] = defs(c)
        bodies = {id(d): (c.lineage, i) for c in chunks for i, d in enumerate(self._defs[c])}
        an = RecordingAnalyzer(self.project, self.settings.options, bodies)
        an.report_unknown_ops = codes.UNKNOWN_OP.id in self.settings.enable
        an.begin(info)
        an.run_module(info)
        top = _take(an, spans)
        an.analysed_definitions.clear()
        self._module_bodies = top.bodies
        # The module's values as its top level left them (the analyses below resolve imports in place).
        values = dict(info.globals)
        dirty = set(chunks) if plan is None else self._spread(chunks, *plan, self._values, values)
        self._values = values
        uids = {c.uid for c in chunks}
        results: dict[Chunk, _Result] = {}
        self.reanalysed = 0
        first = not self._results
        for k, c in enumerate(chunks):
            if early is not None and first and k and process_time() - start > EARLY_AFTER:
                # What the chunks analysed so far found: a prefix of the final result in document
                # order, so nothing it shows is taken back (the first report of each place is kept).
                early(self._merge(source, version, chunks, [top, *(results[d] for d in chunks[:k])]))
                early = None
            r = self._results.get(c)
            if c in dirty or r is None or not r.refs <= uids or c in self._stale:
                r = self._run_chunk(an, info, spans, c, set())
            results[c] = r
        self._stale = {}
        self._an, self._info, self._spans, self._top = an, info, spans, top
        self._replaced = []
        return self._settle(source, version, chunks, results)

    def _settle(self, source: str, version: int | None, chunks: list[Chunk], results: dict[Chunk, _Result]) -> Analysis:
        self._chunks, self._results = chunks, results
        assert self._an is not None and self._top is not None
        self.reanalysed_definitions = self._an.analysed_definitions
        self._an.analysed_definitions = []
        self._pool.settle()
        self._defs = {c: d for c, d in self._defs.items() if c in results}
        self._outlines = {c: o for c, o in self._outlines.items() if c in results}
        self._classes = {c: u for c, u in self._classes.items() if c in results}
        return self._merge(source, version, chunks, [self._top, *(results[c] for c in chunks)])

    def _run_chunk(
        self, an: RecordingAnalyzer, info: ModuleInfo, spans: ChunkSpans, c: Chunk, changed: set[Body]
    ) -> _Result:
        """Analyse a chunk again: a top-level class in steps, reusing the steps that did not run a
        ``changed`` body (when this analyser ran them), anything else whole."""
        spans.hint = c
        self.reanalysed += 1
        assert c.tree is not None
        node = c.tree.body[0] if len(c.tree.body) == 1 else None
        cls = info.defined.get(id(node)) if isinstance(node, cst.ClassDef) else None
        if not isinstance(cls, ClassV) or not isinstance(node, cst.ClassDef):
            self._classes.pop(c, None)
            for stmt in c.tree.body:
                an.analyze_statement(info, stmt)
            return _take(an, spans)
        old = self._classes.get(c)
        if old is not None and (old.an is not an or old.broken):
            old = None
        units = self._classes[c] = self._run_class(an, info, spans, node, cls, old, changed)
        return _joined([u.result for u in units.units])

    def _run_class(
        self,
        an: RecordingAnalyzer,
        info: ModuleInfo,
        spans: ChunkSpans,
        node: cst.ClassDef,
        cls: ClassV,
        old: _ClassUnits | None,
        changed: set[Body],
    ) -> _ClassUnits:
        """A class's analysis step by step (its instance, then each member): a step is run again when it
        ran a ``changed`` body or the class's sizes before it are not those it had; else its result is kept."""
        run = old.run if old is not None else an.class_run(cls)
        out = _ClassUnits(an, run, [])
        steps: list[cst.FunctionDef | cst.ClassDef | None] = [None, *run.members]

        def go(_: object) -> None:
            moved = old is None
            state = _sizes(run)
            for k, step in enumerate(steps):
                u = old.units[k] if old is not None and k < len(old.units) else None
                if u is not None and not moved and u.result.bodies.isdisjoint(changed):
                    out.units.append(u)
                    state = u.after
                    continue
                _restore(run, state)
                instance = run.instance
                if step is None:
                    mark = an.nested_mark()
                    an.build_instance(run)
                    an.analyze_nested(mark)
                    moved = moved or run.instance is not instance
                else:
                    an.analyze_member(run, step)
                after = _sizes(run)
                out.units.append(_Unit(_take(an, spans), state, after))
                moved = moved or u is None or after != u.after
                state = after
            _restore(run, state)

        an.guarded(info, node, go, cls)
        if len(out.units) < len(steps):  # an internal error stopped it: what it reported
            out.broken = True
            out.units.append(_Unit(_take(an, spans), _sizes(run), _sizes(run)))
        return out

    def _same_statements(self, chunks: list[Chunk]) -> bool:
        """Whether the document has the very chunks of the last version analysed incrementally, in order:
        only blank lines and comments between top-level statements changed."""
        old = self._chunks
        return (
            self._an is not None
            and self._info is not None
            and self._top is not None
            and len(chunks) == len(old)
            and all(a is b for a, b in zip(chunks, old))
        )

    def _trivia_edit(self, source: str, version: int | None, chunks: list[Chunk]) -> Analysis:
        """An edit of blank lines and comments between statements: every statement is the chunk it was,
        so the module's top level and every definition would run as before (the module's nodes are the
        same); the results stand, placed at the chunks' new first lines, and the new text's comments
        (``# type: ignore``) are read again when they are merged."""
        assert self._info is not None
        self._info.source, self._info.digest = source, text_digest(source)
        self.reanalysed = 0
        return self._settle(source, version, chunks, dict(self._results))

    def _body_edit(
        self,
        source: str,
        version: int | None,
        chunks: list[Chunk],
        early: Callable[[Analysis], None] | None = None,
        start: float = 0.0,
        superseded: Callable[[], bool] | None = None,
    ) -> Analysis | None:
        """An edit that changes only function bodies, in place, with the analyser of the last version
        kept: the changed bodies are put into the kept trees (so every other node keeps its identity),
        memoised calls and instances that ran them are dropped, and only the analyses (top-level
        definitions, or steps of a class) that ran one are redone.  ``None`` when the edit is not of that
        kind (the caller analyses as usual).

        ``early``: once the edited chunks are analysed again, past :data:`EARLY_EDIT_AFTER` seconds of
        CPU, and with other analyses left to redo, called once with the edited chunks' new results and
        the previous results of the chunks not redone yet (a caller's diagnostics may then still be
        those of the old body: the final result follows).  Once the edited chunks are done, when
        ``superseded()`` says a newer version waits, the other chunks to redo keep their previous
        results and are marked stale: the next update redoes them (with every body changed since)."""
        an, info, spans, top = self._an, self._info, self._spans, self._top
        if an is None or info is None or spans is None or top is None:
            return None
        if len(self._replaced) > MAX_REPLACED:  # start again with a new analyser: free the old bodies
            self._an = None
            return None
        old = self._chunks
        before, now = set(old), set(chunks)
        added = [c for c in chunks if c not in before]
        removed = [c for c in old if c not in now]
        if not added or len(added) != len(removed):
            return None
        pairs = dict(zip(added, removed))
        if [pairs.get(c, c) for c in chunks] != old:
            return None
        kept = {c.text for c in chunks if c in before}
        if any(c.text in kept for c in (*added, *removed)):
            return None
        changed: set[Body] = set()
        texts: list[str] = []
        swaps: list[tuple[cst.FunctionDef, cst.BaseSuite]] = []
        for c, prev in pairs.items():
            if c.code == prev.code or prev.tree is None:
                return None
            a, b = self._outline(prev), self._outline(c)
            if a.interface != b.interface or not b.defs or len(a.bodies) != len(b.bodies):
                return None
            for i, (x, y) in enumerate(zip(a.bodies, b.bodies)):
                if x != y:
                    if _rebinds(x) or _rebinds(y):
                        return None
                    changed.add((prev.lineage, i))
                    texts += [x, y]
                    swaps.append((self._defs[prev][i], b.defs[i].body))
        if not changed or not top.bodies.isdisjoint(changed):
            return None
        undo = [(d, d.body) for d, _ in swaps]
        for d, body in swaps:
            object.__setattr__(d, "body", body)  # the kept tree now has the new body (same other nodes)
        if any(prev.tree.code != c.text for c, prev in pairs.items() if prev.tree is not None):
            for d, body in undo:
                object.__setattr__(d, "body", body)
            return None
        self._replaced += [body for _, body in undo]
        for c, prev in pairs.items():
            c.adopt(prev)
            self._defs[c] = self._defs[prev]
            self._outlines[c] = replace(self._outlines[c], defs=tuple(self._defs[prev]))
        info.source, info.digest = source, text_digest(source)
        spans.retarget(chunks)
        if an.defaults_changed(texts):  # the constructions changed: instances would be built otherwise
            self._an = None
            return None
        an.forget(changed)
        moved = {prev.uid for prev in removed}
        self.reanalysed = 0
        results: dict[Chunk, _Result] = {}
        edited_left = set(pairs)
        stale: dict[Chunk, frozenset[Body]] = {}

        def provisional(c: Chunk) -> _Result:
            """A chunk's previous result, placed where the edit moved what it points into."""
            r = self._results[pairs.get(c, c)]
            return _placed(r, spans, c, pairs) if r.refs & moved else r

        for k, c in enumerate(chunks):
            if (
                early is not None
                and not edited_left
                and process_time() - start > EARLY_EDIT_AFTER
                and any(not self._results[pairs.get(d, d)].bodies.isdisjoint(changed) for d in chunks[k:])
            ):
                rest = [provisional(d) for d in chunks[k:]]
                early(self._merge(source, version, chunks, [top, *(results[d] for d in chunks[:k]), *rest]))
                early = None
            edited_left.discard(c)
            src = pairs.get(c, c)
            r = self._results[src]
            earlier = self._stale.get(src)
            need = changed | earlier if earlier is not None else changed
            units = self._classes.pop(src, None)
            if units is not None:
                self._classes[c] = units
            # A newer version waits: this chunk is redone for it, its previous result placed meanwhile.
            abandon = (
                superseded is not None
                and not edited_left
                and c not in pairs
                and (earlier is not None or not r.bodies.isdisjoint(need))
                and superseded()
            )
            if abandon:
                stale[c] = frozenset(need)
            if units is not None and (abandon or (units.an is an and not units.broken)):
                if not abandon and any(not u.result.bodies.isdisjoint(need) for u in units.units):
                    r = self._run_chunk(an, info, spans, c, set(need))
                    units = self._classes[c]
                if any(u.result.refs & moved for u in units.units):
                    for u in units.units:
                        if u.result.refs & moved:
                            u.result = _placed(u.result, spans, c, pairs)
                    r = _joined([u.result for u in units.units])
            elif not abandon and (
                earlier is not None or not r.bodies.isdisjoint(changed) or (r.refs & moved and r.spans is not spans)
            ):
                r = self._run_chunk(an, info, spans, c, set(need))
            elif r.refs & moved:
                r = _placed(r, spans, c, pairs)
            results[c] = r
        if top.refs & moved:
            self._top = _placed(top, spans, None, pairs)
        self._stale = stale
        return self._settle(source, version, chunks, results)

    def _full(self, source: str, version: int | None) -> Analysis:
        return analyse(source, self.path, self.settings, version, [], self.project)

    def _plan(self, chunks: list[Chunk]) -> tuple[set[Chunk], list[Chunk], dict[Chunk, Chunk]] | None:
        """What an edit makes dirty before the module's top level runs again: the chunks whose text is new
        or whose analysis ran a changed body, and the chunks left unpaired (their names may be bound to
        other values); ``None`` when every chunk is (see the module's docstring)."""
        old, everything = self._chunks, set(chunks)
        before = set(old)
        added = [c for c in chunks if c not in before]
        removed = [c for c in old if c not in everything]
        kept = {c.text for c in chunks if c in before}
        if any(c.text in kept for c in (*added, *removed)):
            # One more or one fewer copy of a repeated statement: the copies' chunks may have shifted.
            return None
        bodies, unmatched, pairs = self._body_changes(added, removed)
        paired = set(pairs.values())
        if [pairs.get(c, c) for c in chunks if c in before or c in pairs] != [
            c for c in old if c in everything or c in paired
        ]:
            return None  # chunks moved: what a name is bound to may have changed
        if not self._module_bodies.isdisjoint(bodies):
            return None  # a module-level value came from a changed body
        if any(c.binds is None for c in unmatched):
            return None
        results = self._results
        dirty = set(added) | {c for c in chunks if c in results and not results[c].bodies.isdisjoint(bodies)}
        return dirty, unmatched, pairs

    def _spread(
        self,
        chunks: list[Chunk],
        dirty: set[Chunk],
        unmatched: list[Chunk],
        pairs: dict[Chunk, Chunk],
        before: dict[str, Value],
        after: dict[str, Value],
    ) -> set[Chunk]:
        """``dirty`` and the chunks that mention a name an ``unmatched`` chunk binds (transitively).

        A name the edited statements bind to the value it had (``from torch import nn`` when a name is
        added to that import, by the same qualified name) changes nothing for the chunks that mention it,
        when no other statement of the module binds it, now or before (a second binding could make the
        value another before the definitions that read it), and the statement that binds it is between
        the same kept statements as before (one that binds it deleted above a class body that reads it
        and added below, in one edit, is not the same)."""
        names: set[str] = set()
        for c in unmatched:
            assert c.binds is not None
            names |= c.binds
        if names and not any(c.binds is None for c in (*chunks, *self._chunks)):
            once = _bound_once(chunks) & _bound_once(self._chunks)
            common = {pairs.get(c, c) for c in chunks} & set(self._chunks)
            old, new = _slots(self._chunks, common, {}), _slots(chunks, common, pairs)
            once = {n for n in once if _binder_slot(chunks, n, new) == _binder_slot(self._chunks, n, old)}
            names = {
                n for n in names if n not in once or not _same_value(before.get(n, _ABSENT), after.get(n, _ABSENT))
            }
        # Chunks that mention a changed name: their values (and so what they bind) may change too.
        spread = set(unmatched)
        grew = bool(names)
        while grew:
            grew = False
            for c in chunks:
                if c not in spread and not c.names.isdisjoint(names):
                    if c.binds is None:
                        return set(chunks)
                    spread.add(c)
                    dirty.add(c)
                    names |= c.binds
                    grew = True
        return dirty

    def _outline(self, chunk: Chunk) -> Outline:
        o = self._outlines.get(chunk)
        if o is None:
            o = self._outlines[chunk] = outline(chunk, self._defs.get(chunk) or defs(chunk))
        return o

    def _body_changes(
        self, added: list[Chunk], removed: list[Chunk]
    ) -> tuple[set[Body], list[Chunk], dict[Chunk, Chunk]]:
        """Pair each added chunk with a removed one that has the same code up to comments and layout
        (nothing changed) or else the same outline (only bodies changed): the bodies that changed, the
        chunks left unpaired (their module-level values may have changed) and the pairs (new -> old)."""
        pairs: dict[Chunk, Chunk] = {}
        # The same code with other comments or layout: nothing it defines changed.
        by_code: dict[tuple[tuple[int, str], ...], list[Chunk]] = {}
        for c in removed:
            by_code.setdefault(c.code, []).append(c)
        for c in added if by_code else ():  # (a document's first version: no tokens to compare)
            same = by_code.get(c.code)
            if same:
                prev = pairs[c] = same.pop(0)
                c.lineage = prev.lineage
        by_outline: dict[str, list[Chunk]] = {}
        taken = set(pairs.values())
        for c in removed:
            if c not in taken:
                by_outline.setdefault(self._outline(c).interface, []).append(c)
        bodies: set[Body] = set()
        unmatched: list[Chunk] = []
        for c in added:
            if c in pairs:
                continue
            if not by_outline:  # nothing left to pair with: its outline (positions of the whole chunk) is not needed
                unmatched.append(c)
                continue
            new = self._outline(c)
            olds = by_outline.get(new.interface)
            if not olds or not new.defs:
                unmatched.append(c)
                continue
            prev = pairs[c] = olds.pop(0)
            c.lineage = prev.lineage
            before = self._outline(prev).bodies
            bodies |= {(c.lineage, i) for i, (a, b) in enumerate(zip(before, new.bodies)) if a != b}
        unmatched += [c for lst in by_outline.values() for c in lst]
        return bodies, unmatched, pairs

    def _merge(self, source: str, version: int | None, chunks: list[Chunk], parts: list[_Result]) -> Analysis:
        """The parts' results in document order, deduplicated and placed as a full analysis places them."""
        first_lines = {c.uid: c.line for c in chunks}
        diags = to_document(_unique(d for p in parts for d in p.diagnostics), first_lines)
        diags = report(diags, source, self.settings, self.path)
        obls = to_document(_unique(o for p in parts for o in p.obligations), first_lines)
        obls = [replace(o, path=self.path) for o in obls]
        deps = {self.path}.union(*(p.dependencies for p in parts))
        observed: _Observed = {}
        for p in parts:
            observed.update(p.observed)
        by_uid = {c.uid: c for c in chunks}

        def shapes() -> list[ShapeAt]:  # may run on the server's thread while the next version is analysed
            return _shapes(observed, by_uid, first_lines)

        return Analysis(version, diags, obls, deps, shapes)


def _shapes(observed: _Observed, by_uid: dict[int, Chunk], first_lines: dict[int, int]) -> list[ShapeAt]:
    """Observed shapes for hover and inlay hints, placed in one version of the document."""
    out: list[tuple[Span, str, str | None, bool, bool]] = []
    for where, value, node in observed.values():
        if isinstance(node, cst.Param):  # a parameter's learnt shape (see ``_take``)
            at = chunk_span(where, node.name) if where is not None else None
            if at is not None:
                out.append((at, render_shape(value.shape), node.name.value, False, True))
            continue
        span = (chunk_span(where, node) if where is not None else None) or Span(1, 0, 1, 0)
        target = by_uid[span.line // STRIDE].targets.get(id(node)) if span.line >= STRIDE else None
        out.append((span, render_shape(value.shape), target, value.shape.is_unknown, False))
    located = to_document([_Located(s) for s, *_ in out], first_lines)
    return [
        ShapeAt(loc.span, shape, target, unknown, learnt)
        for loc, (_, shape, target, unknown, learnt) in zip(located, out)
    ]


@dataclass(frozen=True, slots=True)
class _Located:
    span: Span


def _take(an: RecordingAnalyzer, spans: ChunkSpans) -> _Result:
    """What the analyser found since the last call, with chunk spans (and keys to deduplicate by)."""
    diags, obls, observed, touched = an.take_results()
    raw = (list(diags), list(obls))
    dkeys = [(_ticket_key(spans, d.span), d.code.id) for d in diags]
    okeys = [(_ticket_key(spans, o.span), o.reason) for o in obls]
    vd, vo = spans.resolve_all(diags), spans.resolve_all(obls)
    seen: _Observed = {}
    for key, (node, value) in observed.items():
        seen[key] = (spans.chunk_of(node), value, node)
    for fn, learnt in an.take_learned():  # kept as the parameter (no observed expression is one)
        for param in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params):
            got = learnt.get(param.name.value)
            where = spans.chunk_of(param.name) if got is not None else None
            if got is not None and where is not None:
                seen[id(param)] = (where, got, param)
    refs = chunk_uids(vd) | chunk_uids(vo)
    refs |= {w.uid for w, _, _ in seen.values() if w is not None}
    return _Result(
        list(zip(dkeys, vd)),
        list(zip(okeys, vo)),
        seen,
        frozenset(m.path for m in touched),
        frozenset(refs),
        an.take_bodies(),
        spans,
        raw,
    )


def _joined(parts: list[_Result]) -> _Result:
    """The results of the steps of one chunk's analysis, as one."""
    observed: _Observed = {}
    for p in parts:
        observed.update(p.observed)
    return _Result(
        [d for p in parts for d in p.diagnostics],
        [o for p in parts for o in p.obligations],
        observed,
        frozenset().union(*(p.dependencies for p in parts)),
        frozenset().union(*(p.refs for p in parts)),
        frozenset().union(*(p.bodies for p in parts)),
        parts[0].spans if parts else None,
        ([d for p in parts for d in p.raw[0]], [o for p in parts for o in p.raw[1]]),
    )


def _placed(r: _Result, spans: ChunkSpans, chunk: Chunk | None, pairs: dict[Chunk, Chunk]) -> _Result:
    """``r`` placed again after chunks were replaced by versions with other bodies (the same nodes)."""
    back = {prev: c for c, prev in pairs.items()}
    diags, obls = r.raw
    vd, vo = spans.resolve_all(list(diags)), spans.resolve_all(list(obls))
    seen: _Observed = {}
    for key, (where, value, node) in r.observed.items():
        if where is not None:
            where = back.get(where, where)
        seen[key] = (where, value, node)
    refs = chunk_uids(vd) | chunk_uids(vo)
    refs |= {w.uid for w, _, _ in seen.values() if w is not None}
    return replace(
        r,
        diagnostics=[(k, d) for (k, _), d in zip(r.diagnostics, vd)],
        obligations=[(k, o) for (k, _), o in zip(r.obligations, vo)],
        observed=seen,
        refs=frozenset(refs),
    )


def _sizes(run: ClassRun) -> tuple[dict[str, Dim], frozenset[str]]:
    """A class's sizes so far: its opaque attribute symbols and the symbol names its methods took."""
    return dict(run.opaque), run.symbols.names()


def _restore(run: ClassRun, sizes: tuple[dict[str, Dim], frozenset[str]]) -> None:
    run.opaque.clear()
    run.opaque.update(sizes[0])
    run.symbols.restore(sizes[1])


def _rebinds(body: str) -> bool:
    """Whether a body may bind module-level names (``global``/``nonlocal``): then it is no body-only edit."""
    return "global " in body or "nonlocal " in body


def _ticket_key(spans: ChunkSpans, span: Span) -> object:
    """What the full analysis deduplicates by: the ticket (its node and character range)."""
    node = spans.node_of(span)
    return span if node is None else (id(node), span.column, span.end_column)


def _unique(items: Iterable[tuple[object, T]]) -> list[T]:
    """The items, the first of each key only."""
    seen: set[object] = set()
    out = []
    for key, item in items:
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


_ABSENT = object()


def _bound_once(chunks: list[Chunk]) -> set[str]:
    """The names exactly one of ``chunks`` binds."""
    seen: set[str] = set()
    twice: set[str] = set()
    for c in chunks:
        for n in c.binds or ():
            (twice if n in seen else seen).add(n)
    return seen - twice


def _slots(chunks: list[Chunk], common: set[Chunk], pairs: dict[Chunk, Chunk]) -> dict[Chunk, int]:
    """For each chunk, how many chunks of both versions (``common``, the old ones; a new chunk counts
    as the old one it is paired with) come before it."""
    out: dict[Chunk, int] = {}
    n = 0
    for c in chunks:
        out[c] = n
        n += pairs.get(c, c) in common
    return out


def _binder_slot(chunks: list[Chunk], name: str, slots: dict[Chunk, int]) -> int:
    """The slot of the one chunk that binds ``name`` (see :func:`_bound_once`)."""
    return next(slots[c] for c in chunks if c.binds is not None and name in c.binds)


def _same_value(a: object, b: object) -> bool:
    """Whether two runs of the module's top level bound a name to the same thing: the same object (an
    installed module's class, kept by the project) or an import of the same qualified name."""
    return a is b or (type(a) is type(b) and isinstance(a, (ExternalV, LazyImportV)) and a == b)
