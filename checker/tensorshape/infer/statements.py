"""Statements: assignments and unpacking, control flow (join, loop fixpoints), imports, definitions."""

from __future__ import annotations

import builtins
import functools
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace
from typing import TYPE_CHECKING

import libcst as cst

from ..lang.render import render_shape
from ..model import codes
from ..model.diagnostics import Diagnostic, Severity
from ..model.dims import Dim, Unknown, UnknownSource
from ..model.firstclass import DimsV
from ..model.shape import Shape
from ..model.text import plural
from ..model.values import (
    NONE,
    DatasetV,
    DictV,
    IntV,
    LoaderV,
    ModuleV,
    SeqKind,
    SeqV,
    SliceV,
    StrV,
    TensorV,
    TupleV,
    UnknownV,
    Value,
    carry_index,
    int_value,
)
from ..rules.context import Arg
from ..rules.names import canonical
from ..rules.ops.nn import repeated_child
from ..unify import arith
from ..unify.compare import free_symbols
from ..unify.symbols import is_rigid_symbol
from . import contents
from .annotations import read_annotation
from .base import AnalyzerBase
from .classhooks import ITSELF, THE_CLASS, ClassFacts, Effect, returned_functions, summarise
from .deadline import tick
from .firstclass import named, set_attr, unpack_dims
from .libraries import modelled_by_stubs
from .state import State, dict_container, iteration_length, join_all, join_states, join_values
from .summaries import LazyClassDef, assigned_attrs
from .syntax import (
    CHILD_REGISTRATIONS,
    class_level_reads,
    code_children,
    definitions,
    literal_int,
    names_under,
    suite_body,
)
from .values import (
    CONTAINER,
    ITEMS,
    SETTER,
    AttrsV,
    ClassV,
    DefaultDictV,
    ExternalV,
    FieldFactoryV,
    FunctionV,
    InstanceV,
    LazyImportV,
    MapV,
    ModuleNsV,
    NothingV,
    RangeV,
    as_container,
    building_key,
    container_with_child,
    held_dict,
    is_accessor,
    is_registry,
    is_setter,
    like_dict,
    mode_inert,
    private_list_truth,
    property_setter,
    record_write,
    stored_name,
    truthiness,
    with_attr,
)

if TYPE_CHECKING:
    from .base import Frame
    from .project import ModuleInfo

__all__ = ["Statements", "MAX_ITERATIONS", "MAX_UNROLL"]

#: Names a star import is not searched for (builtins: re-exporting one is vanishingly rare).
_SEARCH_SKIP = frozenset(dir(builtins))

#: Iterations of a loop body before its state is taken as the fixpoint.
MAX_ITERATIONS = 3
#: Loops over a known, short sequence (a ModuleList, a tuple) are unrolled up to this length.
MAX_UNROLL = 24
#: Items of a known sequence a loop that stores into a dict (``_registry[name] = fn`` for each entry of
#: a literal table, ``out[k] = v`` for each item of a dataclass's ``asdict``) is unrolled over, at
#: most: joined over iterations, a registry of functions is unknown (which one a key reads matters),
#: and every read of it after the loop with it; a dict of data would lose its keys.
MAX_REGISTERING_UNROLL = 512


class _Loop:
    __slots__ = ("breaks", "continues", "last_pass")

    def __init__(self) -> None:
        self.breaks: list[State] = []
        self.continues: list[State] = []
        #: The state a pass from the fixpoint's loop head ends in (see :func:`_count_sums`); ``None``
        #: when the fixpoint was not reached or no pass gets to the end.
        self.last_pass: State | None = None


class Statements(AnalyzerBase):
    """Mixin of :class:`~tensorshape.infer.analyzer.Analyzer`: executes statements."""

    def exec_block(
        self, frame: Frame, state: State, stmts: Sequence[cst.BaseStatement | cst.BaseSmallStatement]
    ) -> State | None:
        cur: State | None = state
        for k, stmt in enumerate(stmts):
            if cur is None:
                return None
            cur = self.exec_stmt(frame, cur, stmt)
            if frame.only_after is not None and type(stmt) is cst.If:
                # The rest of the block runs only for some configurations of the module.
                test, holds = frame.only_after
                frame.only_after = None
                mark = len(frame.ctx.diagnostics)
                cur = self.exec_block(frame, cur, stmts[k + 1 :]) if cur is not None else None
                _only_when(frame.ctx.diagnostics, mark, test, holds)
                return cur
        return cur

    def exec_suite(self, frame: Frame, state: State, suite: cst.BaseSuite) -> State | None:
        if type(suite) is cst.IndentedBlock:
            return self.exec_block(frame, state, suite.body)
        assert type(suite) is cst.SimpleStatementSuite
        return self.exec_block(frame, state, suite.body)

    def exec_stmt(self, frame: Frame, state: State, stmt: cst.CSTNode) -> State | None:
        tick()  # the file's time bound
        if type(stmt) is cst.SimpleStatementLine:
            cur: State | None = state
            for small in stmt.body:
                if cur is None:
                    return None
                cur = self.exec_small(frame, cur, small)
            return cur
        if isinstance(stmt, cst.BaseSmallStatement):
            return self.exec_small(frame, state, stmt)
        if type(stmt) is cst.If:
            return self.exec_if(frame, state, stmt)
        if type(stmt) is cst.For:
            return self.exec_for(frame, state, stmt)
        if type(stmt) is cst.While:
            return self.exec_while(frame, state, stmt)
        if isinstance(stmt, (cst.With, cst.ClassDef, cst.Match)) or (
            isinstance(stmt, cst.FunctionDef) and stmt.decorators
        ):
            self.may_raise += 1  # (``__enter__``/``__exit__``, a metaclass, a decorator)
        if type(stmt) is cst.With:
            for item in stmt.items:
                v = self.eval(frame, state, item.item)
                if item.asname is not None and isinstance(item.asname.name, cst.BaseAssignTargetExpression):
                    self.assign(frame, state, item.asname.name, v if isinstance(v, TensorV) else UnknownV(), None)
            return self.exec_suite(frame, state, stmt.body)
        if type(stmt) is cst.Try or type(stmt).__name__ == "TryStar":
            return self.exec_try(frame, state, stmt)  # type: ignore[arg-type]
        if isinstance(stmt, cst.FunctionDef):
            closure = dict(state.vars) if frame.function is not None else None
            fn = FunctionV(stmt, frame.module, None, f"{frame.module.name}.{stmt.name.value}", closure)
            state.vars[stmt.name.value] = fn
            self.defined(frame, stmt, fn)
            self.run_registering_decorators(frame, state, stmt, fn)
            return state
        if isinstance(stmt, cst.ClassDef):
            cls = self.make_class(frame, state, stmt)
            state.vars[stmt.name.value] = cls
            self.defined(frame, stmt, cls)
            return state
        if type(stmt) is cst.Match:
            out: State | None = None
            for case in stmt.cases:
                out = join_states(out, self.exec_suite(frame, state.copy(), case.body), frame.widening(stmt))
            return out
        return state

    # -- simple statements -----------------------------------------------------------
    def exec_small(self, frame: Frame, state: State, stmt: cst.BaseSmallStatement) -> State | None:
        if not _plain_small(stmt):
            self.may_raise += 1  # (a ``raise``, an import, a write through ``__setattr__``/``__setitem__``)
        if type(stmt) is cst.Expr:
            check = self.assert_call(frame, state, stmt.value)
            if check is not None:
                # ``torch._assert(h == self.image_size, msg)``: an ``assert`` (a library's input check).
                return None if self.exec_assert(frame, state, check) else state
            if not isinstance(stmt.value, (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)):
                self.eval(frame, state, stmt.value)  # docstrings and `...` say nothing
            return state
        if type(stmt) is cst.Assign:
            value = self.eval(frame, state, stmt.value)
            for t in stmt.targets:
                v = value
                if isinstance(t.target, cst.Name):
                    v = self.refine_dim_read(frame, state, stmt.value, t.target.value, value)
                self.assign(frame, state, t.target, v, stmt.value)
            return state
        if type(stmt) is cst.AnnAssign:
            return self.exec_annassign(frame, state, stmt)
        if type(stmt) is cst.AugAssign:
            return self.exec_augassign(frame, state, stmt)
        if type(stmt) is cst.Return:
            value = self.eval(frame, state, stmt.value) if stmt.value is not None else NONE
            value = contents.stripped(value)  # (they never leave the activation)
            self.check_return(frame, state, value, stmt.value or stmt)
            if frame.model_output:
                self.check_model_output(frame, value, stmt.value or stmt)
            frame.returns.append(value)
            frame.return_states.append(state)  # (the instance as it leaves: :meth:`inline`)
            frame.return_facts = state.facts if frame.return_facts is None else frame.return_facts.join(state.facts)
            return None
        if type(stmt) is cst.Raise:
            if stmt.exc is not None:
                self.eval(frame, state, stmt.exc)
            return None
        if type(stmt) is cst.Assert:
            return None if self.exec_assert(frame, state, stmt) else state  # a failing one ends the path
        if type(stmt) is cst.Break:
            if frame.loops:
                frame.loops[-1].breaks.append(state)
            return None
        if type(stmt) is cst.Continue:
            if frame.loops:
                frame.loops[-1].continues.append(state)
            return None
        if type(stmt) is cst.Import:
            self.exec_import(frame, state, stmt)
            return state
        if type(stmt) is cst.ImportFrom:
            self.exec_import_from(frame, state, stmt)
            return state
        if type(stmt) is cst.Del:
            for el in _del_targets(stmt.target):
                if type(el) is cst.Attribute:
                    self._written_attrs.add(el.attr.value)  # ``hasattr`` of that name is not decided
                elif isinstance(el, cst.Name):
                    state.vars.pop(el.value, None)
                elif type(el) is cst.Subscript:
                    held = self.eval(frame, state, el.value, observe=False)
                    if isinstance(held, InstanceV) and held_dict(held) is not None:
                        # ``del registry[key]``: its items are no longer known.
                        self.replace_in(frame, state, el.value, with_attr(held, ITEMS, UnknownV()))
                    elif isinstance(held, DictV) and not isinstance(held, AttrsV):
                        # ``del options["z"]``: the entry is gone (a key not known: any may be).
                        key = self.index_value(frame, state, el)
                        kept = (
                            replace(held, items=tuple((k, v) for k, v in held.items if k != key.value))
                            if isinstance(key, StrV) and key.value is not None
                            else UnknownV()
                        )
                        if isinstance(el.value, cst.Name):
                            self.store_dict(frame, state, el.value.value, held, kept)
                        else:
                            self.replace_in(frame, state, el.value, kept)
                    elif isinstance(held, (TupleV, SeqV)) and held.kind is SeqKind.LIST:
                        # ``del layers[-1]``: the list without that item (any other index: not known).
                        self.replace_in(frame, state, el.value, _without_item(held, self.index_value(frame, state, el)))
            return state
        return state

    def assert_call(self, frame: Frame, state: State, e: cst.BaseExpression) -> cst.Assert | None:
        """``torch._assert(test, msg)`` (timm's ``_assert``, torchvision's ``torch._assert``) as the
        ``assert test, msg`` it is; ``None`` for any other expression."""
        if not (type(e) is cst.Call and e.args and isinstance(e.func, (cst.Name, cst.Attribute))):
            return None
        if not (isinstance(e.func, cst.Name) and e.func.value == "_assert") and not (
            type(e.func) is cst.Attribute and e.func.attr.value == "_assert"
        ):
            return None
        func = self.eval(frame, state, e.func, observe=False)
        if not (isinstance(func, ExternalV) and func.qualname == "torch._assert"):
            return None
        if e.args[0].star or e.args[0].keyword is not None:
            return None
        return cst.Assert(test=e.args[0].value)

    def exec_annassign(self, frame: Frame, state: State, stmt: cst.AnnAssign) -> State:
        ann = read_annotation(
            stmt.annotation.annotation,
            lambda e: self.eval(frame, state, e, observe=False),
            lambda code, msg, span, hint: self.report(frame, code, msg, span, hint),
            frame.ticket,
        )
        if stmt.value is None:
            return state
        value = self.eval(frame, state, stmt.value)
        if ann.kind == "tensor" and ann.spec is not None:
            value = self.check_against(frame, state, value, ann, stmt.value, "assignment")
        self.assign(frame, state, stmt.target, value, stmt.value)
        return state

    def exec_augassign(self, frame: Frame, state: State, stmt: cst.AugAssign) -> State:
        target = self.eval(frame, state, stmt.target, observe=False)
        value = self.eval(frame, state, stmt.value)
        op = _AUG.get(type(stmt.operator))
        result: Value = UnknownV()
        if op is not None:
            result = self.binop(frame, state, op, target, value, stmt.target, stmt.value, stmt)
            if isinstance(target, TensorV) and isinstance(result, TensorV) and result.shape.rank is not None:
                if (
                    target.shape.rank is not None
                    and result.shape.rank != target.shape.rank
                    or (target.shape.is_static and result.shape.is_static and result.shape != target.shape)
                ):
                    self.report(
                        frame,
                        codes.BROADCAST,
                        f"in-place `{_op_text(stmt.operator)}`: result {render_shape(result.shape)} does not fit "
                        f"the tensor it writes into, {render_shape(target.shape)}",
                        frame.ticket(stmt),
                        "an in-place op cannot change its tensor's shape; write `x = x <op> y`",
                    )
                    result = target
                else:
                    result = TensorV(target.shape, target.dtype, result.layout, target.names)
            elif isinstance(target, TensorV) and target.shape.rank is not None:
                # ``scores += bias`` with a bias of unknown shape: an in-place op keeps its tensor's shape
                # and dtype (or raises).
                result = TensorV(target.shape, target.dtype, None, target.names)
        self.assign(frame, state, stmt.target, result, None)
        return state

    # -- control flow --------------------------------------------------------------------
    def exec_if(self, frame: Frame, state: State, stmt: cst.If) -> State | None:
        test = self.eval(frame, state, stmt.test, observe=False)
        known = truthiness(test)
        if known is None and isinstance(test, (TupleV, SeqV)) and test.kind is SeqKind.LIST:
            known = private_list_truth(frame.function, stmt.test, test)
        if known is None and not frame.generic and not frame.ctx.muted:
            # With specific arguments, an undecidable branch may be infeasible: report nothing in it.
            frame.ctx.muted = True
            try:
                return self.exec_if(frame, state, stmt)
            finally:
                frame.ctx.muted = False
        if known is True and self.raises_check(frame, state, stmt):
            return None
        # A branch on a module's own configuration (``if self.queries_contribute_kv:``) runs only for
        # the instances built that way: two annotated dims that differ there fail for those only.
        flag = known is None and _names_self_attribute(stmt.test)
        if known is None:
            self.undecided += 1
        try:
            then_state, else_state = self._branches(frame, state, stmt, known, flag)
        finally:
            if known is None:
                self.undecided -= 1
        leaves = flag and (then_state is None) != (else_state is None)
        frame.only_after = (stmt.test, then_state is not None) if leaves else None
        out = join_states(then_state, else_state, frame.widening(stmt))
        if known is None and then_state is not None and out is not None and _is_type_checking(test):
            # ``if TYPE_CHECKING: from torch import Tensor else: Tensor = Any``: what the checker sees wins.
            _prefer_imports(out, then_state, suite_body(stmt.body))
        return out

    def _branches(
        self, frame: Frame, state: State, stmt: cst.If, known: bool | None, flag: bool
    ) -> tuple[State | None, State | None]:
        """The states after the branches of ``stmt`` that may run (``None``: not run, or no way out)."""
        then_state: State | None = None
        else_state: State | None = None
        if known is not False:
            s = state.copy()
            self.refine_condition(frame, s, stmt.test, True)
            mark = len(frame.ctx.diagnostics)
            then_state = self.exec_suite(frame, s, stmt.body)
            if flag:
                _only_when(frame.ctx.diagnostics, mark, stmt.test, True)
        if known is not True:
            s = state.copy()
            self.refine_condition(frame, s, stmt.test, False)
            mark = len(frame.ctx.diagnostics)
            if type(stmt.orelse) is cst.If:
                else_state = self.exec_if(frame, s, stmt.orelse)
            elif type(stmt.orelse) is cst.Else:
                else_state = self.exec_suite(frame, s, stmt.orelse.body)
            else:
                else_state = s
            if flag:
                _only_when(frame.ctx.diagnostics, mark, stmt.test, False)
        return then_state, else_state

    def exec_for(self, frame: Frame, state: State, stmt: cst.For) -> State | None:
        it = self.eval(frame, state, stmt.iter)
        items = self.iteration_items(frame, state, it, stmt.iter)
        known = as_container(it)
        if (
            items is None
            and isinstance(it, RangeV)
            and type(it.length) is int
            and it.length <= MAX_UNROLL
            and names_under(stmt.body) & CHILD_REGISTRATIONS
        ):
            # ``self.add_module("denselayer%d" % (i + 1), layer)`` over DenseNet's 12 to 24 layers:
            # each child's name (so the container's order) is known only pass by pass.
            items = self.iteration_items(frame, state, it, stmt.iter, MAX_UNROLL)
        if (
            items is None
            and isinstance(known, TupleV)
            and known.kind is not SeqKind.SET
            and len(known.items) <= MAX_REGISTERING_UNROLL
        ):
            if (
                any(
                    self._registry_global(frame, state, name) or _building_dict(state, name)
                    for name in _item_stores(stmt.body)
                )
                or any(isinstance(state.vars.get(name), DictV) for name in _popped_by(stmt.body, stmt.target))
                or any(isinstance(state.vars.get(name), DefaultDictV) for name in _subscripted(stmt.body))
            ):
                # (``for name in defaults: kwargs.pop(name, None)`` over a table of 30 names: joined
                # over iterations, the key is any string, and the dict of keywords would lose its
                # keys; pass by pass, each pop is of a known key.)
                items = list(known.items)
        loop = _Loop()
        frame.loops.append(loop)
        try:
            if items is not None:
                cur: State | None = state
                for item in items:
                    if cur is None:
                        break
                    cur = self._iteration(frame, cur, stmt, loop, item)
                exit_state = cur
            elif isinstance(it, LoaderV) and it.last is not None:
                # Full batches, then the smaller last batch: what fails only there says so.
                full = self._fixpoint(
                    frame, stmt, state, stmt.body, loop, lambda s: self.assign(frame, s, stmt.target, it.batch, None)
                )
                exit_state = full
                if full is not None:
                    last = self._last_batch(frame, full, stmt, loop, it)
                    exit_state = join_states(full, last)
            else:
                made_before = frame.ctx.symbols.names()
                elem = self.element_value(it)
                counter = _counter(frame, it, stmt.target)

                def enter(s: State) -> None:
                    if counter is None:
                        self.assign(frame, s, stmt.target, elem, None)
                        return
                    i, low, high = counter
                    self.assign(frame, s, stmt.target, IntV(i), None)
                    s.facts = s.facts.assume_le(low, i)
                    if high is not None:
                        s.facts = s.facts.assume_le(arith.add(i, 1), high)

                exit_state = self._fixpoint(frame, stmt, state, stmt.body, loop, enter)
                count = iteration_length(it)
                _count_appends(state, exit_state, stmt, count)
                if count is not None and isinstance(it, RangeV) and it.step == 1:
                    count = arith.dmax(0, count)  # ``range(a, b)`` of ``b < a`` runs no pass
                _count_sums(state, exit_state, loop.last_pass, stmt, count, made_before)
        finally:
            frame.loops.pop()
        for b in loop.breaks:
            exit_state = join_states(exit_state, b)
        if stmt.orelse is not None and exit_state is not None:
            exit_state = self.exec_suite(frame, exit_state, stmt.orelse.body)
        return exit_state

    def _registry_global(self, frame: Frame, state: State, name: str) -> bool:
        """Is ``name`` a module-level dict of functions or classes (a registry), not a local?"""
        if frame.function is not None and name in state.vars:
            return False
        v = frame.module.globals.get(name)
        return isinstance(v, DictV) and is_registry(v)

    def _iteration(self, frame: Frame, state: State, stmt: cst.For, loop: _Loop, item: Value) -> State | None:
        """One pass of a loop body with the target bound to ``item``."""
        s = state.copy()
        self.assign(frame, s, stmt.target, item, None)
        end = self.exec_suite(frame, s, stmt.body)
        for c in loop.continues:
            end = join_states(end, c)
        loop.continues.clear()
        return end

    def _last_batch(self, frame: Frame, state: State, stmt: cst.For, loop: _Loop, it: LoaderV) -> State | None:
        """The body once more with a loader's last batch.

        A problem that full batches also have is already reported; a new one happens
        only on the last batch, and its message names that condition.  When the last
        batch's size is a symbol, requirements between it and the batch size that
        cannot be proven are ``last-batch`` warnings (see ``RuleContext.partial``)."""
        assert it.last is not None
        ctx = frame.ctx
        earlier: dict[tuple[object, ...], int] = {}
        for n, d in enumerate(ctx.diagnostics):
            earlier.setdefault((d.code, d.span), n)
        start = len(ctx.diagnostics)
        saved = dict(ctx.partial)
        condition = it.condition or "on the last batch"
        if it.last_rows is not None and it.batch_size is not None:
            for s in free_symbols(it.last_rows):
                ctx.partial[s] = (condition, it.batch_size)
        try:
            end = self._iteration(frame, state, stmt, loop, it.last)
        finally:
            ctx.partial = saved
        fresh = ctx.diagnostics[start:]
        del ctx.diagnostics[start:]
        for d in fresh:
            i = earlier.get((d.code, d.span))
            if i is None:
                # Only the last batch has this problem.
                if d.severity is not Severity.WARNING and condition not in d.message:
                    d = replace(d, message=f"{d.message} ({condition})")
                ctx.diagnostics.append(d)
            elif d.severity is Severity.NOTE and d.message != ctx.diagnostics[i].message:
                # ``reveal_shape``: one note with both batches' shapes.
                first = ctx.diagnostics[i]
                shown = d.message.removeprefix("revealed shape: ")
                ctx.diagnostics[i] = replace(first, message=f"{first.message}; {shown} ({condition})")
        return end

    def exec_while(self, frame: Frame, state: State, stmt: cst.While) -> State | None:
        loop = _Loop()
        frame.loops.append(loop)
        try:

            def enter(s: State) -> None:
                self.eval(frame, s, stmt.test, observe=False)
                self.refine_condition(frame, s, stmt.test, True)

            exit_state = self._fixpoint(frame, stmt, state, stmt.body, loop, enter)
        finally:
            frame.loops.pop()
        for b in loop.breaks:
            exit_state = join_states(exit_state, b)
        if stmt.orelse is not None and exit_state is not None:
            exit_state = self.exec_suite(frame, exit_state, stmt.orelse.body)
        return exit_state

    def _fixpoint(
        self, frame: Frame, stmt: cst.CSTNode, state: State, body: cst.BaseSuite, loop: _Loop, enter: object
    ) -> State | None:
        """Iterate a loop body until the state stops changing.

        A body that preserves a shape (``x = blk(x)``) is a fixpoint at once; dims that
        change are widened to fresh symbols (``[b t d]`` then ``[b t 2*d]`` is ``[b t d']``),
        which a later round keeps, so the rank survives.  If the bound is hit anyway,
        the last round's state is taken and ``--statistics`` counts it (``loop-bound``)."""
        entry = state
        widen = frame.widening(stmt)
        for _ in range(MAX_ITERATIONS):
            s = entry.copy()
            enter(s)  # type: ignore[operator]
            end = self.exec_suite(frame, s, body)
            for c in loop.continues:
                end = join_states(end, c, widen)
            loop.continues.clear()
            new = join_states(entry, end, widen)
            assert new is not None
            if new.vars == entry.vars:
                loop.last_pass = end
                return entry
            entry = new
        self.stats["loop-bound"] += 1
        return entry

    def exec_try(self, frame: Frame, state: State, stmt: cst.Try) -> State | None:
        mark = self.may_raise
        self.in_try += 1
        try:
            body = self.exec_suite(frame, state.copy(), stmt.body)
        finally:
            self.in_try -= 1
        # A body that ran only what the analysis interpreted, reached no ``raise`` and knew every
        # value cannot raise: no handler runs (``except`` joined in would lose what the body set).
        handlers = stmt.handlers if self.may_raise != mark else ()
        if stmt.orelse is not None and body is not None:
            body = self.exec_suite(frame, body, stmt.orelse.body)
        out = body
        for h in handlers:
            s = state.copy()
            if h.name is not None and isinstance(h.name.name, cst.Name):
                s.vars[h.name.name.value] = UnknownV()
            out = join_states(out, self.exec_suite(frame, s, h.body))
        if body is not None and out is not None and handlers:
            # An import guard (``try: import einops except ImportError: einops = None``): the import wins
            # over the fallback, as code that uses the name runs only where the import worked.
            _prefer_imports(out, body, suite_body(stmt.body))
        if stmt.finalbody is not None:
            base = out if out is not None else state.copy()
            fin = self.exec_suite(frame, base, stmt.finalbody.body)
            return fin if out is not None else None
        return out

    # -- iteration ---------------------------------------------------------------------------
    def iteration_items(
        self, frame: Frame, state: State, it: Value, node: cst.BaseExpression, max_range: int = 8
    ) -> list[Value] | None:
        """The values a loop target takes, when the sequence is known and short."""
        it = as_container(it)
        if isinstance(it, TupleV) and it.kind is SeqKind.SET:
            return None  # a set's order is not its display's: its items joined
        if isinstance(it, TupleV) and len(it.items) <= MAX_UNROLL:
            return list(it.items)
        if isinstance(it, ModuleV) and it.children and len(it.children) <= MAX_UNROLL:
            return list(it.children)
        named_children = dict_container(it) if isinstance(it, ModuleV) else None
        if named_children is not None and len(named_children.items) <= MAX_UNROLL:
            return [StrV(k) for k, _ in named_children.items]  # a ``ModuleDict`` iterates over its keys
        if isinstance(it, RangeV) and type(it.length) is int and 0 <= it.length <= max_range:
            start, step = it.start, it.step
            if type(start) is int and type(step) is int:
                return [IntV(start + i * step) for i in range(it.length)]
        if isinstance(it, TensorV) and it.shape.rank and type(it.shape.items[0]) is int:
            # ``for freq in torch.linspace(0, 3, 4)``: one pass per row, as over a range (a body that
            # appends or counts keeps what each pass adds).
            if 0 <= it.shape.items[0] <= max_range:
                return [TensorV(Shape(it.shape.items[1:]), it.dtype)] * it.shape.items[0]
        return None

    def element_value(self, it: Value) -> Value:
        it = as_container(it)
        if isinstance(it, LoaderV):
            return it.batch
        if isinstance(it, DatasetV):
            return it.sample
        if isinstance(it, SeqV):
            return UnknownV() if isinstance(it.elem, NothingV) else it.elem
        if isinstance(it, TupleV):
            return join_all(list(it.items))
        if isinstance(it, RangeV):
            return IntV(Unknown(UnknownSource.UNANNOTATED))
        if isinstance(it, TensorV):
            s = it.shape
            if s.rank == 0:
                return UnknownV()
            return TensorV(Shape(s.items[1:]) if s.rank is not None else Shape.unknown(), it.dtype)
        if isinstance(it, ModuleV) and it.children:
            return join_all(list(it.children))
        if isinstance(it, ModuleV):
            repeated = repeated_child(it)
            return repeated if repeated is not None else UnknownV()
        if isinstance(it, StrV):
            return StrV(None)  # a character
        return UnknownV()

    # -- assignment -------------------------------------------------------------------------
    def assign(
        self,
        frame: Frame,
        state: State,
        target: cst.BaseExpression,
        value: Value,
        value_node: cst.BaseExpression | None,
    ) -> None:
        # Like ``eval``, only the checked file's generic analyses are observed: what an inlined call
        # records would depend on whether an earlier call with the same arguments was memoised.
        observed = frame.generic and frame.module is self.checked
        if isinstance(target, cst.Name):
            value = named(value, target.value)
            if state.vars.get(target.value) is not value:
                # ``x = b`` after ``x = a; x.t = 5``: what was written through ``x`` was ``a``'s.
                prefix = target.value + "."
                for stale in [k for k in state.vars if k.startswith(prefix)]:
                    del state.vars[stale]
            state.vars[target.value] = value
            if observed:
                self.observe(target, value)
            elif self.record and frame.module is self.checked and isinstance(value, TensorV):
                self.observe_view(target, value)
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = [e for e in target.elements]
            values = self.unpack(frame, state, value, elements, value_node, target)
            for el, v in zip(elements, values):
                self.assign(frame, state, el.value, v, None)
            return
        if type(target) is cst.Attribute:
            self.assign_attr(frame, state, target.value, target.attr.value, value, target, observed)
            return
        if type(target) is cst.Subscript:
            base = self.eval(frame, state, target.value, observe=False)
            if isinstance(base, InstanceV) and base is frame.building and base.cls.lookup("__setitem__") is not None:
                # ``self[key] = value`` while building: the class's ``__setitem__`` may set attributes.
                key = self.index_value(frame, state, target)
                setitem = self.attribute(frame, state, base, "__setitem__", None)
                self.call(frame, state, setitem, [Arg(key), Arg(value)], {}, target)
                return
            if isinstance(base, InstanceV) and isinstance(base.cls.lookup("__setitem__"), FunctionV):
                # ``ALL_ATTENTION_FUNCTIONS["mine"] = fn``: the class's ``__setitem__`` runs on the instance
                # (a pinned one is rebound where it was read from; other references read what it edits
                # as unknown).
                key = self.index_value(frame, state, target)
                setitem = self.attribute(frame, state, base, "__setitem__", None)
                self.call(frame, state, setitem, [Arg(key), Arg(value)], {}, target)
                return
            items = held_dict(base) if isinstance(base, InstanceV) else None
            if isinstance(base, InstanceV) and items is not None:
                # ``ACT2FN["mine"] = MyAct`` of a dict subclass's instance: its items with that entry.
                key = self.index_value(frame, state, target)
                literal = key.value if isinstance(key, StrV) else None
                new_items: Value = _set_entry(items, literal, value) if literal is not None else UnknownV()
                self.replace_in(frame, state, target.value, with_attr(base, ITEMS, new_items))
                return
            if isinstance(base, ModuleV) and base.children:
                # ``model.classifier[-1] = nn.Linear(...)``: the container with that child replaced.
                self.replace_in(frame, state, target.value, self.with_child(frame, state, base, target, value))
                return
            named_children = dict_container(base) if isinstance(base, ModuleV) else None
            if isinstance(base, ModuleV) and named_children is not None:
                # ``self.heads["cls"] = nn.Linear(...)``: the ``nn.ModuleDict`` with that entry.
                key = self.index_value(frame, state, target)
                edited: Value = UnknownV()
                if isinstance(key, StrV) and key.value is not None:
                    edited = replace(base, args={"modules": _set_entry(named_children, key.value, value)})
                self.replace_in(frame, state, target.value, edited)
                return
            if _is_list(base) and isinstance(target.value, cst.Name):
                # ``x[i] = self.m[i](x[i])``: the list with that element replaced, so later reads see it.
                # (Not a list attribute, ``self.grid[i] = ...``: rebinding ``self`` under a branch would join
                # two versions of the module, and lose it.)
                self.replace_in(frame, state, target.value, self.with_item(frame, state, base, target, value))
                self.check_setitem(frame, state, target, value)
                return
            if (
                _is_list(base)
                and frame.building is None
                and type(target.value) is cst.Attribute
                and isinstance(target.value.value, cst.Name)
            ):
                # ``self.grid[i] = ...``: the edited list as this activation's view of the attribute (as
                # ``self.grid = ...`` is), so later reads here see it and ``self`` is not rebound.
                holder = f"{target.value.value.value}.{target.value.attr.value}"
                state.vars[holder] = self.with_item(frame, state, base, target, value)
                self.check_setitem(frame, state, target, value)
                return
            if isinstance(base, MapV) and isinstance(target.value, cst.Name) and not _is_code(value):
                self.store_dict(frame, state, target.value.value, base, MapV(join_values(base.value, value)))
            elif isinstance(base, DictV) and isinstance(target.value, cst.Name):
                self.register(frame, state, target, base, target.value.value, value)
            elif isinstance(base, DictV) and type(target.value) is cst.Attribute:
                # ``self.cfg["d_model"] = 128``: the dict with that entry where it was read from.
                key = self.index_value(frame, state, target)
                new: Value = (
                    _set_entry(base, key.value, value)
                    if isinstance(key, StrV) and key.value is not None
                    else UnknownV()
                )
                self.replace_in(frame, state, target.value, new)
            self.check_setitem(frame, state, target, value)
            return
        if type(target) is cst.StarredElement:
            self.assign(frame, state, target.value, value, None)

    def assign_attr(
        self,
        frame: Frame,
        state: State,
        holder: cst.BaseExpression,
        name: str,
        value: Value,
        at: cst.CSTNode,
        observed: bool,
    ) -> None:
        """``holder.name = value`` (also ``self.register_buffer("name", value)``, ``at`` the call)."""
        value = contents.stripped(value)  # (an object's tensors may change where this is not seen)
        recv = self.eval(frame, state, holder, observe=False)
        if isinstance(recv, InstanceV):
            name = stored_name(recv.cls, name)  # a ``__setattr__`` renaming through ``attribute_map``
        if set_attr(recv, name, value, frame.ctx, frame.ticket(at)):
            return
        if not isinstance(recv, (InstanceV, ModuleV, AttrsV)):
            self._written_attrs.add(name)  # an object not known: it may be a module ``hasattr`` asks of
        if isinstance(recv, ModuleV):
            # ``features.add_module("denseblock1", block)`` (or ``features.norm5 = ...``) on a
            # ``Sequential``: registered as its last child, which its ``forward`` runs.
            edited = container_with_child(recv, name, value)
            if edited is not None:
                self.replace_in(frame, state, holder, edited)
            return
        if isinstance(recv, AttrsV):  # ``ns.depth = 4``: the namespace with that attribute
            self.replace_in(
                frame, state, holder, AttrsV((*((k, v) for k, v in recv.items if k != name), (name, value)))
            )
            return
        setter = property_setter(recv.cls, name) if isinstance(recv, InstanceV) else None
        if isinstance(recv, InstanceV) and setter is not None:
            # ``config._attn_implementation = v`` of a property: its setter runs on the instance (as a
            # method that builds it), so reads give what its getter computes from what it assigned.
            edited = self.run_setter(frame, state, recv, setter, value, at)
            if edited is not recv:
                self._written_attrs.update(assigned_attrs(setter.node))
                self.rebind_aliases(state, recv, edited)
                self.replace_in(frame, state, holder, edited)
            return
        if isinstance(recv, InstanceV):
            if frame.building is recv:
                state.vars[building_key(recv, name)] = value
                # A ``Sequential`` subclass's ``self.conv = nn.Conv2d(...)`` (torchvision's DenseNet
                # ``_Transition``): registered in the container, which its ``forward`` runs.
                key = building_key(recv, CONTAINER)
                registered = _registered_child(state.vars.get(key), name, value)
                if registered is not None:
                    state.vars[key] = registered
            else:
                self._written_attrs.add(name)  # other aliases of ``recv`` do not show it: ``hasattr`` is not decided
                if isinstance(holder, cst.Name):
                    state.vars[f"{holder.value}.{name}"] = value
                edited = with_attr(recv, name, value)
                registered = _registered_child(recv.attrs.get(CONTAINER), name, value)
                if registered is not None:
                    edited = with_attr(edited, CONTAINER, registered)
                if recv.cls.dataclass_fields is not None and not recv.cls.is_module:
                    self._widen_aliases(state, recv, name, value, edited)
                if not _own_self(frame, holder) and not recv.twofold:
                    # Other references to the object (a caller's ``config``, a layer's ``self.config``)
                    # read the attribute as unknown, never the value before the write; this one knows it.
                    # (A method's own ``self.x = ...`` is the class's: :meth:`ClassV.reassigned`.  A
                    # value two constructions share stands for two objects: the write is this
                    # variable's, as ``a.fc = ...`` leaves ``b = Classifier()`` as it was.)
                    edited.through[name] = record_write(recv.cls, name, recv.one_object)
                    self.rebind_aliases(state, recv, edited)
                self.replace_in(frame, state, holder, edited)
            if observed:
                self.observe(at, value)

    def _widen_aliases(self, state: State, old: InstanceV, name: str, value: Value, edited: InstanceV) -> None:
        """``cfg.n = 5`` on a dataclass's instance (one object per construction) after it was built:
        the reference written through reads 5 (``edited``), and so do this activation's variables
        holding the same object; every other reference (a dict's item, a caller's variable, an
        attribute of another object) reads what it had joined with 5, never the old value alone, and
        calls memoised on the old object are dropped."""
        for var, held in list(state.vars.items()):
            if held is old:
                state.vars[var] = edited
            elif not old.twofold and isinstance(held, DictV) and any(v is old for _, v in held.items):
                # ``default_cfg = out[model]; default_cfg.is_pretrained = True``: this activation's
                # dict holds the very object written through, which it now holds as written.
                state.vars[var] = replace(held, items=tuple((k, edited if v is old else v) for k, v in held.items))
        # The copies earlier writes made of the same object are that object too (``cfg`` written
        # through, then ``d["a"]`` read and written): each reads the join.
        group = self._alias_groups.get(id(old)) or [old]
        joined: dict[int, Value] = {}  # the copies mostly hold the same value before: joined once
        for member in group:
            before = member.attrs.get(name)
            if before is None:
                member.attrs[name] = UnknownV()
            elif before is not value:
                if id(before) not in joined:
                    joined[id(before)] = join_values(before, value)
                member.attrs[name] = joined[id(before)]
            member.pinned = False
            self._call_memo.drop_holding(member)
        for var, held in list(state.vars.items()):
            if held is edited or any(held is member for member in group):
                state.vars.pop(f"{var}.{name}", None)  # a read of ``var.name`` remembered before
        group.append(edited)
        for member in group:
            self._alias_groups[id(member)] = group

    def rebind_aliases(self, state: State, old: InstanceV, new: InstanceV) -> None:
        """``other = config; config.width = 6``: this activation's variables holding the object
        written through hold it as written, unless the value may stand for two objects (a memoised
        construction two variables were given): those read what was written as unknown."""
        if old.twofold:
            return
        for var, held in list(state.vars.items()):
            if held is old:
                state.vars[var] = new

    def run_registering_decorators(self, frame: Frame, state: State, stmt: cst.FunctionDef, fn: FunctionV) -> None:
        """``@register_model`` over a builder: a project decorator whose body stores into a dict
        (``_registry[fn.__name__] = fn``) is run for that effect; the function stays itself."""
        for d in reversed(stmt.decorators):
            if not isinstance(d.decorator, (cst.Name, cst.Attribute)):
                continue
            deco = self.eval(frame, state, d.decorator, observe=False)
            if isinstance(deco, FunctionV) and _stores_item(deco.node):
                self.call_user(frame, state, deco, None, [Arg(fn)], {}, d)

    def register(self, frame: Frame, state: State, target: cst.Subscript, base: DictV, name: str, value: Value) -> None:
        """``registry[key] = fn``: the dict with that entry, in the module's globals when a function (a
        registering decorator) writes a global dict; an entry whose key is not a literal makes the
        dict unknown (a later read could be that entry)."""
        key = self.index_value(frame, state, target)
        if isinstance(key, StrV) and key.value is not None:
            # A key already there keeps its place (a dict's order is that of first insertion).
            old = base.get(key.value)
            if old is not None:
                entries = like_dict(base, tuple((k, value if k == key.value else v) for k, v in base.items))
            else:
                entries = like_dict(base, (*base.items, (key.value, value)))
            # A registry filled one entry at a time is neither indexed nor walked (``moded``) again
            # at each entry: a cost of the square of its size.
            carry_index(base, entries, key.value, value)
            if mode_inert(value) and (old is None or mode_inert(old)):
                for mode in (True, False, None):
                    if self._unmoded.get((id(base), mode)) is base:
                        self._unmoded[(id(entries), mode)] = entries
            updated: Value = entries
        elif not _is_code(value) and not any(_is_code(v) for _, v in base.items):
            # ``vocab[word] = len(vocab)``: a dict whose keys are no longer known, read as its values
            # (a registry of functions stays unknown: which one a key reads matters).
            updated = MapV(join_all([*(v for _, v in base.items), value]))
        else:
            updated = UnknownV()
        self.store_dict(frame, state, name, base, updated)

    def store_dict(self, frame: Frame, state: State, name: str, base: Value, updated: Value) -> None:
        """The dict variable ``name`` (``base``) is ``updated`` after an item was written: a local, or
        a global a function writes (its module's globals; a read of it there was a local before)."""
        if name in state.vars or frame.function is None:
            state.vars[name] = updated
        elif name in frame.module.globals:
            # A function's write into a global dict goes straight into the module's globals, past
            # the join of the branches: under an ``if`` whose test is not known, the entry may not
            # have been written (``_widths[name] = 7`` on one side only), so the dict joins both.
            frame.module.globals[name] = join_values(base, updated) if self.undecided else updated

    def replace_in(self, frame: Frame, state: State, holder: cst.BaseExpression, edited: Value) -> None:
        """A module edited after construction (a new head): later reads of ``holder`` see the edit.

        The edited object is a copy rebound where it was read from (``model``, ``model.heads``), so
        the instance other variables built with the same arguments share stays as it was, and calls
        memoised on the old object are not reused."""
        if isinstance(holder, (cst.Name, cst.Attribute, cst.Subscript)):
            self.assign(frame, state, holder, edited, None)

    def with_child(self, frame: Frame, state: State, base: ModuleV, target: cst.Subscript, value: Value) -> Value:
        """``base`` with the child ``target`` indexes replaced; unknown when the index is not a known int."""
        index = self.index_value(frame, state, target)
        i = int_value(index) if not isinstance(index, TupleV) else None
        n = len(base.children)
        if type(i) is not int or not -n <= i < n:
            return UnknownV()
        children = list(base.children)
        children[i] = value
        return replace(base, children=tuple(children))

    def with_item(self, frame: Frame, state: State, base: Value, target: cst.Subscript, value: Value) -> Value:
        """The list ``base`` after ``base[index] = value``: that item replaced for a known int index, every
        item possibly replaced (joined with ``value``) otherwise; a slice assignment leaves an unknown list."""
        index = self.index_value(frame, state, target)
        if isinstance(base, SeqV):
            if isinstance(index, (TupleV, SliceV)):
                return SeqV(UnknownV(), base.kind, None)
            return replace(base, elem=join_values(base.elem, value))
        assert isinstance(base, TupleV)
        if isinstance(index, (TupleV, SliceV)):
            return SeqV(UnknownV(), base.kind, None)
        n = len(base.items)
        i = int_value(index)
        if type(i) is int and -n <= i < n:
            items = list(base.items)
            items[i] = value
            return TupleV(tuple(items), base.kind)
        return TupleV(tuple(join_values(item, value) for item in base.items), base.kind)

    def unpack(
        self,
        frame: Frame,
        state: State,
        value: Value,
        elements: list[cst.BaseElement],
        value_node: cst.BaseExpression | None,
        target: cst.CSTNode,
    ) -> list[Value]:
        n = len(elements)
        star = next((i for i, e in enumerate(elements) if type(e) is cst.StarredElement), None)
        if value_node is not None:
            refined = self.refine_unpack(frame, state, value_node, elements, value)
            if refined is not None:
                value = refined
        if isinstance(value, DimsV):
            value = unpack_dims(value, n)
        if isinstance(value, TupleV):
            items = list(value.items)
            if star is None:
                if len(items) != n:
                    self._unpack_error(frame, value, n, target)
                    return [UnknownV()] * n
                return items
            after = n - star - 1
            if len(items) < n - 1:
                self._unpack_error(frame, value, n, target)
                return [UnknownV()] * n
            middle = TupleV(tuple(items[star : len(items) - after]), SeqKind.LIST)
            return items[:star] + [middle] + items[len(items) - after :]
        if isinstance(value, TensorV):
            s = value.shape
            row = TensorV(Shape(s.items[1:]), value.dtype) if s.rank else TensorV(Shape.unknown(), value.dtype)
            if s.rank is not None and s.rank >= 1 and type(s.items[0]) is int and star is None and s.items[0] != n:
                self.report(
                    frame,
                    codes.SHAPE_MISMATCH,
                    f"cannot unpack a tensor of shape {render_shape(s)} into {plural(n, 'value')} (dim 0 is {s.items[0]})",
                    frame.ticket(target),
                    "unpacking a tensor iterates over its first dim",
                )
            return [row] * n
        if isinstance(value, SeqV):
            return [value.elem if i != star else value for i in range(n)]
        if isinstance(value, ModuleV) and value.children and len(value.children) == n:
            return list(value.children)
        return [UnknownV()] * n

    def _unpack_error(self, frame: Frame, value: TupleV, n: int, target: cst.CSTNode) -> None:
        if value.kind is SeqKind.SIZE:
            self.report(
                frame,
                codes.RANK_MISMATCH,
                f"cannot unpack a shape of {plural(len(value.items), 'dim')} into {plural(n, 'name')}",
                frame.ticket(target),
                "the tensor has a different number of dims than the names unpacked from its shape",
            )

    # -- imports ------------------------------------------------------------------------------
    def exec_import(self, frame: Frame, state: State, stmt: cst.Import) -> None:
        for alias in stmt.names:
            full = _dotted(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                state.vars[alias.asname.name.value] = self.module_value(full)
            else:
                head = full.split(".")[0]
                state.vars[head] = self.module_value(head)

    def exec_import_from(self, frame: Frame, state: State, stmt: cst.ImportFrom) -> None:
        level = len(stmt.relative)
        mod = _dotted(stmt.module) if stmt.module is not None else None
        absolute = self.project.resolve_relative(frame.module, mod, level) if level else (mod or "")
        is_project = bool(absolute) and self.project.find_module(absolute) is not None
        if isinstance(stmt.names, cst.ImportStar):
            # Re-exporting ``__init__`` files star-import whole packages: searched on a miss only.
            if is_project and absolute != frame.module.name and absolute not in frame.module.stars:
                frame.module.stars.append(absolute)
            return
        for alias in stmt.names:
            name = _dotted(alias.name)
            local = (
                alias.asname.name.value
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name)
                else name
            )
            if is_project and modelled_by_stubs(f"{absolute}.{name}"):
                # ``from torchvision import datasets`` with torchvision installed (followed): the
                # stubs model the submodule; the package's ``__init__`` binding would shadow them.
                state.vars[local] = ExternalV(f"{absolute}.{name}")
            elif absolute and self.project.find_module(f"{absolute}.{name}") is not None:
                # ``from pkg import f`` where ``pkg/__init__`` binds ``f`` (``from .f import f``):
                # Python gives the package's binding, the submodule only when there is none.
                defined = is_project and self.project.may_define(absolute, name)
                if absolute == frame.module.name and name not in state.vars:
                    # ``from . import models`` in the package's own ``__init__`` (torchvision's): the
                    # package has no such attribute yet (this import is what binds it), so Python
                    # imports the submodule.
                    defined = False
                state.vars[local] = LazyImportV(absolute, name) if defined else LazyImportV(f"{absolute}.{name}")
            elif is_project:
                state.vars[local] = LazyImportV(absolute, name)
            else:
                state.vars[local] = ExternalV(f"{absolute}.{name}" if absolute else name)

    def check_model_output(self, frame: Frame, value: Value, node: cst.CSTNode) -> None:
        """Vollo: a model output must have its data dim last."""
        items = value.items if isinstance(value, TupleV) else (value,)
        for v in items:
            lay = v.layout if isinstance(v, TensorV) else None
            rank = v.shape.rank if isinstance(v, TensorV) else None
            if lay is None or lay.constant or lay.data_dim is None or rank is None or lay.data_dim == rank - 1:
                continue
            from ..vollo.transfer import notation

            self.report(
                frame,
                codes.VOLLO_OUTPUT,
                f"the model returns {notation(rank, lay.data_dim)}: a model output must have its data dim last",
                frame.ticket(node),
                "transpose or permute the output so the data dim is the last axis",
            )

    def module_value(self, name: str) -> Value:
        if self.project.find_module(name) is not None:
            return LazyImportV(name)
        return ExternalV(name)

    def resolve_lazy(self, v: LazyImportV, seen: frozenset[LazyImportV] = frozenset()) -> Value:
        """Parse and run the module behind a lazy import; the imported value."""
        if v in seen:
            return UnknownV()  # an import cycle that never defines the name
        info = self.project.import_module(v.module)
        if info is None:
            return ExternalV(v.module if v.attr is None else f"{v.module}.{v.attr}")
        if v.attr is None:
            return ModuleNsV(info)
        self.run_module(info)
        found = self.module_global(info, v.attr, seen | {v})
        if found is None:
            sub = self.project.import_module(f"{v.module}.{v.attr}")
            return ModuleNsV(sub) if sub is not None else UnknownV()
        return found

    def module_global(
        self,
        info: ModuleInfo,
        name: str,
        seen: frozenset[LazyImportV] = frozenset(),
        _via: frozenset[int] = frozenset(),
    ) -> Value | None:
        """A module's global ``name`` (lazy imports resolved, star imports searched), or ``None``."""
        found = info.globals.get(name)
        if (
            found is None
            and info.stars
            and name not in _SEARCH_SKIP
            and not name.startswith("_")
            and id(info) not in _via
        ):
            for mod in reversed(info.stars):  # a later star import shadows an earlier one
                if not self.project.may_define(mod, name):
                    continue
                source = self.project.import_module(mod)
                if source is None or source is info:
                    continue
                self.run_module(source)
                found = self.module_global(source, name, seen, _via | {id(info)})
                if found is not None:
                    info.globals[name] = found
                    break
        if isinstance(found, LazyImportV):
            found = info.globals[name] = self.resolve_lazy(found, seen)
        return found

    # -- classes ---------------------------------------------------------------------------------
    def make_class(self, frame: Frame, state: State, node: cst.ClassDef) -> ClassV:
        bases = tuple(self.eval(frame, state, a.value, observe=False) for a in node.bases if a.keyword is None)
        qual = f"{frame.module.name}.{node.name.value}"
        cls = ClassV(node, frame.module, bases, qual)
        body = node.body.body if type(node.body) is cst.IndentedBlock else node.body.body
        # Only the names the class-level code reads are copied: copying every global per class made
        # a module of n classes cost n * globals (a 5 MB generated model).
        known = node.level_reads if isinstance(node, LazyClassDef) else None
        reads = class_level_reads(body) if known is None else known
        ns = State({k: state.vars[k] for k in reads if k in state.vars}, state.facts)
        before = set(ns.vars)
        fields: list[tuple[str, Value | None]] = []
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef):
                if is_accessor(stmt) and isinstance(ns.vars.get(stmt.name.value), FunctionV):
                    continue  # ``@name.setter``: the property keeps its getter, which reads give
                fn = FunctionV(stmt, frame.module, cls, f"{qual}.{stmt.name.value}")
                ns.vars[stmt.name.value] = fn
                self.defined(frame, stmt, fn)
                continue
            if type(stmt) is cst.SimpleStatementLine:
                for small in stmt.body:
                    if type(small) is cst.AnnAssign and isinstance(small.target, cst.Name):
                        value = _field_default(small.value)
                        default = self.eval(frame, ns, value, observe=False) if value is not None else None
                        factory = _field_keyword(small.value, "default_factory")
                        if default is None and factory is not None:
                            made = FieldFactoryV(self.eval(frame, ns, factory, observe=False))
                            if "ClassVar" not in cst.Module([]).code_for_node(small.annotation.annotation):
                                fields.append((small.target.value, made))
                            continue  # (``dataclass`` leaves no class attribute for a factory's field)
                        if "ClassVar" not in cst.Module([]).code_for_node(small.annotation.annotation):
                            fields.append((small.target.value, default))
                        if default is not None:
                            ns.vars[small.target.value] = default
                        continue
                    self.exec_small(frame, ns, small)
                continue
            self.exec_stmt(frame, ns, stmt)
        own = _own_names(body)
        for d in definitions(body):
            method = self.defined_value(frame.module, d)
            if isinstance(method, FunctionV) and method.owner is None:
                # A method defined under ``if``/``try`` in the class body (exec_stmt made it a function).
                method.owner, method.qualname, method.closure = cls, f"{qual}.{d.name.value}", None
        cls.members = {k: v for k, v in ns.vars.items() if k not in before or k in own}
        effect = self.class_transforms(frame, state, cls)
        cls.dataclass_kw_only, cls.kwargs_init, cls.validated = effect.kw_only, effect.kwargs_init, effect.validated
        cls.hook_reason = effect.reason
        for name, wrapper, where, names_read in effect.wrappers:
            cls.members[name] = _installed(cls, name, wrapper, where, names_read)
        for name in effect.members:
            cls.members[name] = UnknownV()  # set by the transformer to a value not followed
        if effect.dataclass:
            # A dataclass's fields follow its dataclass bases' (a field redefined keeps its place).
            inherited: dict[str, Value | None] = {}
            for base in reversed(cls.lineage()[1:]):
                inherited.update(base.dataclass_fields or ())
            cls.dataclass_fields = tuple({**inherited, **dict(fields)}.items())
        cls.assigned_in = _assigned_in(body)
        return cls

    def class_transforms(self, frame: Frame, state: State, cls: ClassV) -> Effect:
        """What a base's ``__init_subclass__`` and then the class decorators (innermost first) do to
        ``cls`` (:mod:`.classhooks`): ``@dataclass`` itself, and any project or library function
        whose summary is known; a decorator that is not (an external one, one that may return
        another object) is the reason its constructor is not known."""
        facts = ClassFacts(frozenset(cls.members), lambda name: _has_member(cls, name))
        effect = Effect()
        for base in cls.lineage()[1:]:
            hook = base.members.get("__init_subclass__")
            if isinstance(hook, FunctionV):
                if hook.node.params.params:
                    param = hook.node.params.params[0].name.value
                    found = summarise(hook.node, hook, param, self._resolve_function, facts)
                    if found.reason is not None:
                        found = replace(
                            found, reason=f"`{base.qualname}.__init_subclass__` changes the class: {found.reason}"
                        )
                    effect = effect.then(replace(found, replaces=False))
                break  # the nearest hook runs (one calling ``super().__init_subclass__`` reaches object's)
        for d in reversed(cls.node.decorators):
            shown = cst.Module([]).code_for_node(d.decorator)
            if _is_dataclass_decorator(d):
                kw = type(d.decorator) is cst.Call and any(
                    a.keyword is not None
                    and a.keyword.value == "kw_only"
                    and isinstance(a.value, cst.Name)
                    and a.value.value == "True"
                    for a in d.decorator.args
                )
                effect = effect.then(Effect(dataclass=True, kw_only=kw))
                continue
            deco = self.eval(frame, state, d.decorator, observe=False)
            named = (
                self.eval(frame, state, d.decorator.func, observe=False) if type(d.decorator) is cst.Call else deco
            )
            if isinstance(named, ExternalV) and canonical(named.qualname) in _IDENTITY_DECORATORS:
                continue  # returns the class as it is
            candidates: list[tuple[cst.FunctionDef, FunctionV]] = []
            if isinstance(deco, FunctionV):
                candidates.append((deco.node, deco))
            elif type(d.decorator) is cst.Call:
                # ``@factory(...)`` not run to its end: each decorator the factory may return.
                factory = self.eval(frame, state, d.decorator.func, observe=False)
                if isinstance(factory, FunctionV):
                    candidates.extend((f, factory) for f in returned_functions(factory.node))
            if not candidates or any(not f.params.params for f, _ in candidates):
                effect = effect.then(Effect(reason=f"class decorator `{shown}` is not analysed"))
                continue
            found = Effect()
            for f, where in candidates:
                found = found.then(summarise(f, where, f.params.params[0].name.value, self._resolve_function, facts))
            if found.replaces and found.reason is None:
                found = replace(found, reason=f"class decorator `{shown}` may return another object")
            elif found.reason is not None:
                found = replace(found, reason=f"class decorator `{shown}`: {found.reason}")
            effect = effect.then(replace(found, replaces=False))
        return effect

    def _resolve_function(
        self, where: object, callee: cst.BaseExpression
    ) -> tuple[cst.FunctionDef, object] | str | None:
        """A function called in the body of ``where`` (a :class:`FunctionV`; ``f`` or ``mod.f``):
        from its closure, then its module's globals; an external one by its qualified name."""
        if not isinstance(where, FunctionV):
            return None
        if type(callee) is cst.Attribute:
            owner = self._resolve_function(where, callee.value)
            if isinstance(owner, str):
                return f"{owner}.{callee.attr.value}"
            return None
        if not isinstance(callee, cst.Name):
            return None
        found = where.closure.get(callee.value) if where.closure else None
        if found is None:
            found = self.module_global(where.module, callee.value)
        if isinstance(found, LazyImportV):
            found = self.resolve_lazy(found)
        if isinstance(found, ExternalV):
            return canonical(found.qualname)
        return (found.node, found) if isinstance(found, FunctionV) else None


_AUG: dict[type, str] = {
    cst.AddAssign: "+",
    cst.SubtractAssign: "-",
    cst.MultiplyAssign: "*",
    cst.DivideAssign: "/",
    cst.FloorDivideAssign: "//",
    cst.ModuloAssign: "%",
    cst.PowerAssign: "**",
    cst.MatrixMultiplyAssign: "@",
    cst.BitAndAssign: "&",
    cst.BitOrAssign: "|",
    cst.BitXorAssign: "^",
    cst.LeftShiftAssign: "<<",
    cst.RightShiftAssign: ">>",
}


def _registered_child(container: Value | None, name: str, value: Value) -> Value | None:
    """The container of a ``Sequential``/``ModuleList`` subclass's instance once ``self.name =
    value`` registered a module in it; ``None`` when nothing changes."""
    return container_with_child(container, name, value) if isinstance(container, ModuleV) else None


def _counter(frame: Frame, it: Value, target: cst.BaseAssignTargetExpression) -> tuple[Dim, Dim, Dim | None] | None:
    """``for i in range(n)`` (a start that is a known int >= 0, step 1): ``i`` is one symbol in the
    body, with ``start <= i`` and ``i + 1 <= start + n`` (so ``dataset[i]`` for ``i in
    range(len(dataset))`` is below ``__len__``); ``(symbol, low, high)``, ``high`` ``None`` when the
    length is not known."""
    if not (isinstance(it, RangeV) and isinstance(target, cst.Name) and it.step == 1):
        return None
    start = it.start
    if type(start) is not int or start < 0:
        return None
    n = it.length
    high = None if n is None or isinstance(n, Unknown) else arith.add(start, n)
    return frame.ctx.fresh(target.value), start, high


def _count_appends(before: State, after: State | None, stmt: cst.For, iterations: Dim | None) -> None:
    """A list that the loop body appends to on every pass (``ids.append(tokens)`` at the body's top
    level, no ``break`` or ``continue``, the list touched no other way) has as many items more as the
    loop has iterations: ``[0]`` then one append per sample of a batch of ``b`` is ``b + 1`` long.
    Its items may differ (``varied``): one per iteration."""
    if after is None or iterations is None:
        return
    for name, per_pass in _appended_each_pass(stmt.body).items():
        start, end = before.vars.get(name), after.vars.get(name)
        if isinstance(start, SeqV) and isinstance(start.elem, NothingV):
            had = 0
        elif isinstance(start, TupleV) and start.kind is SeqKind.LIST:
            had = len(start.items)
        else:
            continue
        if isinstance(end, SeqV) and end.length is None:
            after.vars[name] = SeqV(end.elem, end.kind, arith.add(had, arith.mul(per_pass, iterations)), True)


@functools.lru_cache(maxsize=512)
def _appended_each_pass(body: cst.BaseSuite) -> Mapping[str, int]:
    """The names ``NAME.append(...)`` runs on at the top level of a loop body, with how many times a
    pass does (``NAME += [a, b]``, a list literal without a starred item, appends as many; an append
    in the body of a loop over a literal list or tuple, or a ``range`` of literal ints, nested at the
    top level, appends once per item of it: NeRF's ``for p_fn in [torch.sin, torch.cos]``), when the
    body has no ``break``/``continue`` and uses those names no other way than to read them (no other
    method call on them, no other assignment)."""
    counts: dict[str, int] = {}
    calls: dict[str, int] = {}
    extended: set[int] = set()
    stmts = suite_body(body)
    _appends_in(stmts, 1, counts, calls, extended)
    if not counts:
        return counts
    uses = _ListUses(set(counts), extended)
    for st in stmts:
        st.visit(uses)
    if uses.jumps:
        return {}
    return {n: c for n, c in counts.items() if uses.method_calls.get(n, 0) == calls.get(n, 0) and n not in uses.bound}


def _appends_in(
    stmts: Sequence[cst.BaseStatement | cst.BaseSmallStatement],
    times: int,
    counts: dict[str, int],
    calls: dict[str, int],
    extended: set[int],
) -> None:
    """Count the appends of :func:`_appended_each_pass` in ``stmts``, which run ``times`` times a pass:
    ``counts`` the items appended, ``calls`` the ``append`` calls written, ``extended`` the ``NAME +=
    [...]`` statements (by id)."""
    for st in stmts:
        if type(st) is cst.For and st.orelse is None and st.asynchronous is None:
            passes = _literal_length(st.iter)
            if passes is not None:
                _appends_in(suite_body(st.body), times * passes, counts, calls, extended)
            continue
        if type(st) is not cst.SimpleStatementLine:
            continue
        for small in st.body:
            call = small.value if type(small) is cst.Expr else None
            if (
                type(call) is cst.Call
                and type(call.func) is cst.Attribute
                and call.func.attr.value == "append"
                and isinstance(call.func.value, cst.Name)
            ):
                counts[call.func.value.value] = counts.get(call.func.value.value, 0) + times
                calls[call.func.value.value] = calls.get(call.func.value.value, 0) + 1
            elif (
                type(small) is cst.AugAssign
                and type(small.operator) is cst.AddAssign
                and isinstance(small.target, cst.Name)
                and type(small.value) is cst.List
                and not any(type(e) is cst.StarredElement for e in small.value.elements)
            ):
                # ``tensors += [waveform]`` (the audio tutorial's collate function)
                counts[small.target.value] = counts.get(small.target.value, 0) + times * len(small.value.elements)
                extended.add(id(small))


def _literal_length(e: cst.BaseExpression) -> int | None:
    """How many items iterating ``e`` gives, when the code says it: a list or tuple display without a
    starred item, ``range`` of one to three integer literals; else ``None``."""
    if isinstance(e, (cst.List, cst.Tuple)):
        if any(type(x) is cst.StarredElement for x in e.elements):
            return None
        return len(e.elements)
    if (
        type(e) is cst.Call
        and isinstance(e.func, cst.Name)
        and e.func.value == "range"
        and 1 <= len(e.args) <= 3
        and all(a.keyword is None and a.star == "" for a in e.args)
    ):
        ints = [i for i in (literal_int(a.value) for a in e.args) if i is not None]
        if len(ints) != len(e.args) or (len(ints) == 3 and ints[2] == 0):
            return None
        return len(range(*ints))
    return None


def _count_sums(
    before: State,
    after: State | None,
    last_pass: State | None,
    stmt: cst.For,
    iterations: Dim | None,
    made_before: frozenset[str],
) -> None:
    """An int the loop body increases by the same amount on every pass (``ch += growth`` of DenseNet,
    ``width = width + k``: see :func:`_summed_each_pass` for what the code must say) is ``start +
    passes * amount`` after the loop, where ``passes`` is its count of iterations (a size: ``range(n)``,
    ``max(0, b - a)`` for ``range(a, b)``, a tensor's first dim) and ``amount`` what one pass from the
    loop head adds.  That amount must not hold the loop head's value of the int (``ch += ch``), nor
    any symbol made since the loop began (the loop variable, a size widened at the head, an ``if``
    that increments on one branch only, a size a pass computes), and what the amount reads
    (``growth``, ``self.k``) must be at the end of that pass what it was at the head: only then is
    it one value for every pass.  A loop that runs no pass leaves ``start``."""
    if after is None or last_pass is None or iterations is None or isinstance(iterations, Unknown):
        return
    summed = _summed_each_pass(stmt)
    for name, terms in summed.items():
        if any(_read_value(after, c) != _read_value(last_pass, c) for t in terms for c in _reads(t)):
            continue  # something the amount reads changes in a pass (a method reassigning ``self.k``)
        start, head, end = before.vars.get(name), after.vars.get(name), last_pass.vars.get(name)
        if type(start) is not IntV or type(head) is not IntV or type(end) is not IntV:
            continue  # not an int (a ``MaybeIntV`` is not one either)
        assert isinstance(start, IntV) and isinstance(head, IntV) and isinstance(end, IntV)
        if any(isinstance(d, Unknown) for d in (start.value, head.value, end.value)):
            continue
        if head.value == start.value and end.value == start.value:
            continue  # it does not change
        amount = arith.sub(end.value, head.value)
        if isinstance(amount, Unknown):
            continue
        fresh = [s for s in free_symbols(amount) if str(s) not in made_before and not is_rigid_symbol(s)]
        if fresh or free_symbols(head.value) & free_symbols(amount):
            continue
        total = arith.add(start.value, arith.mul(iterations, amount))
        if not isinstance(total, Unknown):
            after.vars[name] = IntV(total)


@functools.lru_cache(maxsize=512)
def _summed_each_pass(stmt: cst.For) -> Mapping[str, list[cst.BaseExpression]]:
    """The names a loop body binds only by adding to them an amount the code makes the same on every
    pass: ``NAME += E``, ``NAME -= E`` or ``NAME = NAME + E`` (``E`` added or taken from ``NAME`` in
    a chain of ``+``/``-``), wherever in the body, with each ``E`` made of int literals, names the body
    does not bind (the loop variable included) and attributes of them, with ``+``, ``-``, ``*``,
    ``//``; no ``break``/``continue`` in the body, no other binding of ``NAME`` (no ``global`` or
    ``nonlocal`` either); by name, the terms added.  Where such a statement runs on some passes
    only, :func:`_count_sums` sees it (what a pass adds is then not one amount)."""
    finder = _SumSteps()
    stmt.body.visit(finder)
    if finder.jumps:
        return {}
    bound = finder.bound | names_under(stmt.target)
    out = {}
    for name, steps in finder.steps.items():
        if finder.bindings.get(name, 0) != len(steps) or name in finder.declared:
            continue
        terms = [e for added in steps for e in added]
        if all(_invariant_amount(e, bound) for e in terms):
            out[name] = terms
    return out


class _SumSteps(cst.CSTVisitor):
    """The bindings of names under a loop body, and which of them add to the name (``steps``: by
    name, the terms each such statement adds)."""

    def __init__(self) -> None:
        self.jumps = False
        self.bound: set[str] = set()
        self.bindings: dict[str, int] = {}
        self.steps: dict[str, list[list[cst.BaseExpression]]] = {}
        self.declared: set[str] = set()

    def _bind(self, target: cst.CSTNode) -> None:
        for n in names_under(target):
            self.bound.add(n)
            self.bindings[n] = self.bindings.get(n, 0) + 1

    def visit_Break(self, node: cst.Break) -> None:
        self.jumps = True

    def visit_Continue(self, node: cst.Continue) -> None:
        self.jumps = True

    def visit_Global(self, node: cst.Global) -> None:
        self.declared |= {n.name.value for n in node.names}

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.declared |= {n.name.value for n in node.names}

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind(node.target)
        if isinstance(node.target, cst.Name) and isinstance(node.operator, (cst.AddAssign, cst.SubtractAssign)):
            self.steps.setdefault(node.target.value, []).append([node.value])

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            self._bind(t.target)
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            name = node.targets[0].target.value
            rest = _added_to(node.value, name)
            if rest is not None:
                self.steps.setdefault(name, []).append(rest)

    def on_visit(self, node: cst.CSTNode) -> bool:
        field = _BINDING_FIELDS.get(type(node))
        bound = getattr(node, field) if field is not None else None
        if type(node) is cst.ImportAlias and node.asname is None:
            bound = node.name
        if type(bound) is cst.AsName:
            bound = bound.name
        if isinstance(bound, cst.CSTNode):
            self._bind(bound)
        return super().on_visit(node)


#: The field of each node that binds names (besides assignments, seen by :class:`_SumSteps` itself).
_BINDING_FIELDS: dict[type[cst.CSTNode], str] = {
    cst.AnnAssign: "target",
    cst.For: "target",
    cst.NamedExpr: "target",
    cst.Del: "target",
    cst.CompFor: "target",
    cst.FunctionDef: "name",
    cst.ClassDef: "name",
    cst.ExceptHandler: "name",
    cst.MatchAs: "name",
    cst.WithItem: "asname",
    cst.ImportAlias: "asname",
}


def _added_to(e: cst.BaseExpression, name: str) -> list[cst.BaseExpression] | None:
    """``NAME + a - b`` (in any order, ``NAME`` once and not subtracted): the terms besides ``NAME``
    (``b`` as ``-b``: only its form matters); ``None`` for any other expression."""
    terms: list[tuple[cst.BaseExpression, bool]] = []

    def walk(x: cst.BaseExpression, negated: bool) -> None:
        if type(x) is cst.BinaryOperation and isinstance(x.operator, (cst.Add, cst.Subtract)):
            walk(x.left, negated)
            walk(x.right, negated != (type(x.operator) is cst.Subtract))
        else:
            terms.append((x, negated))

    walk(e, False)
    own = [(x, neg) for x, neg in terms if isinstance(x, cst.Name) and x.value == name]
    if len(own) != 1 or own[0][1]:
        return None
    return [x for x, _ in terms if x is not own[0][0]]


def _reads(e: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The names and attribute chains (``self.k``) an amount of :func:`_invariant_amount` reads."""
    if isinstance(e, (cst.Name, cst.Attribute)):
        return [e]
    if type(e) is cst.UnaryOperation:
        return _reads(e.expression)
    if type(e) is cst.BinaryOperation:
        return _reads(e.left) + _reads(e.right)
    return []


def _read_value(state: State, e: cst.BaseExpression) -> Value | None:
    """What ``state`` holds for a name or an attribute chain of :func:`_reads`: an instance's
    attribute where it has it, else the whole value the chain starts from."""
    if isinstance(e, cst.Name):
        return state.vars.get(e.value)
    assert type(e) is cst.Attribute
    base = _read_value(state, e.value)
    if isinstance(base, InstanceV) and e.attr.value in base.attrs:
        return base.attrs[e.attr.value]
    return base


def _invariant_amount(e: cst.BaseExpression, bound: AbstractSet[str]) -> bool:
    """Is ``e`` made of int literals, names not in ``bound`` and their attributes, with ``+``, ``-``,
    ``*``, ``//`` and unary minus (no call, no subscript: what it reads is the same on every pass)?"""
    if type(e) is cst.Integer:
        return True
    if isinstance(e, cst.Name):
        return e.value not in bound
    if type(e) is cst.Attribute:
        return _invariant_amount(e.value, bound) if isinstance(e.value, (cst.Name, cst.Attribute)) else False
    if type(e) is cst.UnaryOperation and type(e.operator) is cst.Minus:
        return _invariant_amount(e.expression, bound)
    if type(e) is cst.BinaryOperation and isinstance(
        e.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)
    ):
        return _invariant_amount(e.left, bound) and _invariant_amount(e.right, bound)
    return False


class _ListUses(cst.CSTVisitor):
    """``break``/``continue`` anywhere, and per watched name: method calls on it and bindings of it."""

    def __init__(self, names: set[str], extended: AbstractSet[int] = frozenset()) -> None:
        self.names = names
        #: The ``NAME += [...]`` statements counted as appends (by id): not other bindings.
        self.extended = extended
        self.jumps = False
        self.method_calls: dict[str, int] = {}
        self.bound: set[str] = set()

    def visit_Break(self, node: cst.Break) -> None:
        self.jumps = True

    def visit_Continue(self, node: cst.Continue) -> None:
        self.jumps = True

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Name) and node.value.value in self.names:
            self.method_calls[node.value.value] = self.method_calls.get(node.value.value, 0) + 1

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.bound |= self.names & names_under(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if id(node) not in self.extended:
            self.bound |= self.names & names_under(node.target)

    def visit_For(self, node: cst.For) -> None:
        self.bound |= self.names & names_under(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self.bound |= self.names & names_under(node.target)


def _op_text(op: cst.BaseAugOp) -> str:
    return _AUG.get(type(op), "?") + "="


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if type(node) is cst.Attribute:
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _is_type_checking(test: Value) -> bool:
    return isinstance(test, ExternalV) and test.qualname in ("typing.TYPE_CHECKING", "typing_extensions.TYPE_CHECKING")


def _prefer_imports(out: State, guarded: State, stmts: Sequence[cst.BaseStatement | cst.BaseSmallStatement]) -> None:
    """Names the guarded block imports keep their imported value in the joined state."""
    for stmt in stmts:
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                for alias in small.names:
                    name = alias.evaluated_alias or alias.evaluated_name.split(".")[0]
                    if name in guarded.vars:
                        out.vars[name] = guarded.vars[name]


def _is_code(v: Value) -> bool:
    return isinstance(v, (FunctionV, ClassV))


def _without_item(held: TupleV | SeqV, index: Value) -> Value:
    """A list after ``del held[index]``: without the item of a literal index in range, else unknown."""
    if not (isinstance(held, TupleV) and isinstance(index, IntV) and type(index.value) is int):
        return UnknownV()
    i = index.value
    n = len(held.items)
    if not -n <= i < n:
        return UnknownV()
    i %= n
    return TupleV((*held.items[:i], *held.items[i + 1 :]), held.kind)


def _set_entry(d: DictV, key: str, value: Value) -> DictV:
    """``d[key] = value`` of a dict with known keys: a key already there keeps its place, as in Python."""
    if any(k == key for k, _ in d.items):
        return DictV(tuple((k, value if k == key else v) for k, v in d.items))
    return DictV((*d.items, (key, value)))


def _del_targets(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, (cst.Tuple, cst.List)):
        return [e.value for e in node.elements]
    return [node]


def _own_names(body: Sequence[cst.BaseStatement | cst.BaseSmallStatement]) -> set[str]:
    out: set[str] = set()
    for stmt in body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            out.add(stmt.name.value)
        elif type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if type(small) is cst.Assign:
                    for t in small.targets:
                        if isinstance(t.target, cst.Name):
                            out.add(t.target.value)
                elif type(small) is cst.AnnAssign and isinstance(small.target, cst.Name):
                    out.add(small.target.value)
    return out


def _field_default(value: cst.BaseExpression | None) -> cst.BaseExpression | None:
    """The default a dataclass field's right-hand side gives: ``field(default=v)`` is ``v``;
    ``field()`` and ``field(default_factory=...)`` give none known."""
    return value if _field_call(value) is None else _field_keyword(value, "default")


def _field_keyword(value: cst.BaseExpression | None, keyword: str) -> cst.BaseExpression | None:
    """The argument ``keyword`` of a dataclass field's ``field(...)`` right-hand side (``None``: no
    such call or keyword)."""
    call = _field_call(value)
    if call is None:
        return None
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == keyword), None)


def _field_call(value: cst.BaseExpression | None) -> cst.Call | None:
    """``value`` when it is a call of ``field``/``Field``/``attrib``/``ib``."""
    if type(value) is not cst.Call:
        return None
    f = value.func
    name = f.attr.value if type(f) is cst.Attribute else f.value if isinstance(f, cst.Name) else ""
    return value if name in ("field", "Field", "attrib", "ib") else None


@functools.lru_cache(maxsize=256)
def _stores_item(fn: cst.FunctionDef) -> bool:
    """Does ``fn``'s body assign to a subscript (``registry[name] = fn``)?

    Asked once per decorated definition, of the same few decorators (timm's ``@register_model`` over
    every builder): remembered per node (libcst nodes hash by identity; the cache holds them, so an
    id is never reused while cached)."""
    found = False

    class _Visit(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            nonlocal found
            found = found or type(n.target) is cst.Subscript

    fn.body.visit(_Visit())
    return found


def _building_dict(state: State, name: str) -> bool:
    """Is ``name`` a dict with known keys that a loop fills (``out[k] = v`` for each known item):
    joined over iterations its keys would no longer be known, so the loop is unrolled."""
    return type(state.vars.get(name)) in (DictV, DefaultDictV)


@functools.lru_cache(maxsize=256)
def _item_stores(body: cst.BaseSuite) -> frozenset[str]:
    """The names a loop's body stores items into (``_model_entrypoints[name] = fn``: ``_model_entrypoints``)."""
    names: set[str] = set()

    class _Visit(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            if type(n.target) is cst.Subscript and isinstance(n.target.value, cst.Name):
                names.add(n.target.value.value)

    body.visit(_Visit())
    return frozenset(names)


@functools.lru_cache(maxsize=256)
def _subscripted(body: cst.BaseSuite) -> frozenset[str]:
    """The names a loop's body indexes (``default_cfg = out[model]``: ``out``), where a
    ``defaultdict`` read stores a key: joined over iterations, the dict would lose its keys."""
    names: set[str] = set()

    class _Visit(cst.CSTVisitor):
        def visit_Subscript(self, n: cst.Subscript) -> None:
            if isinstance(n.value, cst.Name):
                names.add(n.value.value)

    body.visit(_Visit())
    return frozenset(names)


def _popped_by(body: cst.BaseSuite, target: cst.BaseAssignTargetExpression) -> frozenset[str]:
    """The names of the dicts a loop's body pops its loop variable from (``kwargs.pop(name, None)``
    in ``for name in ...``: ``kwargs``)."""
    if not isinstance(target, cst.Name):
        return frozenset()
    names: set[str] = set()
    todo: list[cst.CSTNode] = [body]
    while todo:
        n = todo.pop()
        if (
            type(n) is cst.Call
            and type(n.func) is cst.Attribute
            and n.func.attr.value == "pop"
            and isinstance(n.func.value, cst.Name)
            and n.args
            and isinstance(n.args[0].value, cst.Name)
            and n.args[0].value.value == target.value
        ):
            names.add(n.func.value.value)
        todo.extend(code_children(n))
    return frozenset(names)


#: External class decorators that return the class unchanged (typing markers).
_IDENTITY_DECORATORS = frozenset(
    {
        "typing.dataclass_transform",
        "typing_extensions.dataclass_transform",
        "typing.final",
        "typing_extensions.final",
        "typing.runtime_checkable",
        "typing_extensions.runtime_checkable",
    }
)


def _has_member(cls: ClassV, name: str) -> bool | None:
    """Does ``cls`` have ``name`` (``hasattr(cls, name)``)?  ``None`` when that is not known: a
    dunder (``object`` and ``dataclass`` define some) or a base that is not the project's."""
    if cls.lookup(name) is not None:
        return True
    if name.startswith("__"):
        return None
    for c in cls.lineage():
        for b in c.bases:
            if not isinstance(b, ClassV) and not (
                isinstance(b, ExternalV) and b.qualname in ("object", "builtins.object")
            ):
                return None
    return False


def _is_dataclass_decorator(d: cst.Decorator) -> bool:
    e = d.decorator
    if type(e) is cst.Call:
        e = e.func
    name = e.attr.value if type(e) is cst.Attribute else e.value if isinstance(e, cst.Name) else ""
    return name in ("dataclass", "define", "frozen", "attrs")


def _is_list(v: Value) -> bool:
    return isinstance(v, (TupleV, SeqV)) and v.kind is SeqKind.LIST


def _installed(
    cls: ClassV, name: str, node: cst.FunctionDef, where: object, reads: tuple[tuple[str, str], ...]
) -> Value:
    """The function a class transformer installs as ``cls.<name>`` (``cls.forward = wrapper``), with
    the transformer's names it reads: the members of the class as they were, the class, itself.
    Unknown when a member it reads is not known."""
    if not isinstance(where, FunctionV):
        return UnknownV()
    closure: dict[str, Value] = {}
    fn = FunctionV(node, where.module, cls, f"{cls.qualname}.{name}", closure)
    for local, held in reads:
        value = cls if held == THE_CLASS else fn if held == ITSELF else cls.lookup(held)
        if value is None:
            return UnknownV()
        closure[local] = value
    return fn


def _plain_small(stmt: cst.BaseSmallStatement) -> bool:
    """A simple statement that raises only where an expression it evaluates does (that is counted
    where it is evaluated): an expression, a return, an assignment to plain names, ``pass``..."""
    if type(stmt) is cst.Assign:
        return all(isinstance(t.target, cst.Name) for t in stmt.targets)
    if isinstance(stmt, (cst.AnnAssign, cst.AugAssign)):
        return isinstance(stmt.target, cst.Name)
    return isinstance(stmt, (cst.Expr, cst.Return, cst.Pass, cst.Break, cst.Continue, cst.Global, cst.Nonlocal))


def _assigned_in(body: Sequence[cst.BaseStatement | cst.BaseSmallStatement]) -> dict[str, frozenset[str]]:
    """What each method of a class body assigns on ``self``: a property's getter and deleter under
    its name (together), its setter under ``"<name>.setter"``."""
    out: dict[str, frozenset[str]] = {}
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef):
            name = stmt.name.value
            if is_setter(stmt):
                name += SETTER
            out[name] = out.get(name, frozenset()) | assigned_attrs(stmt)
    return out


@functools.lru_cache(maxsize=1024)
def _names_self_attribute(test: cst.BaseExpression) -> bool:
    """Whether a condition reads an attribute of ``self`` (a module's configuration), outside
    lambdas and comprehensions.  Walked with ``code_children`` (no visitor pass: this runs at
    every ``if`` whose condition is unknown) and stopped at the first hit."""
    stack: list[cst.CSTNode] = [test]
    while stack:
        n = stack.pop()
        if type(n) is cst.Attribute and isinstance(n.value, cst.Name) and n.value.value == "self":
            return True
        if not isinstance(n, (cst.Lambda, cst.BaseComp)):
            stack.extend(code_children(n))
    return False


def _only_when(diags: list[Diagnostic], mark: int, test: cst.BaseExpression, holds: bool) -> None:
    """Two distinct annotated dims required equal on a path taken only for some configurations:
    the TS104 error becomes the TS115 warning that names the configuration."""
    for k in range(mark, len(diags)):
        d = diags[k]
        if d.code is codes.SYMBOLIC_MISMATCH:
            cond = cst.Module([]).code_for_node(test)  # rendered only where a diagnostic names it
            when = f"`{cond}`" if holds else f"not `{cond}`"
            diags[k] = replace(
                d,
                code=codes.SIZE_CONDITION,
                severity=codes.SIZE_CONDITION.severity,
                message=f"{d.message}, on the path taken only where {when}",
            )


def _own_self(frame: Frame, holder: cst.BaseExpression) -> bool:
    """Is ``holder`` the ``self`` of the method ``frame`` runs (``self.x = ...`` in a method)?"""
    sig = frame.signature
    return (
        isinstance(holder, cst.Name)
        and sig is not None
        and sig.is_method
        and bool(sig.params)
        and holder.value == sig.params[0].name
    )
