"""The abstract interpreter: analyses a module's functions and classes.

Every function and method of the checked file is analysed once *generically*:
parameters get values from their annotations (rigid symbols for annotated
dims, opaque symbols for ``int`` parameters, unknown otherwise), and the body
is interpreted statement by statement.  Calls into the project's own code are
checked against the callee's annotations, or, for unannotated callees,
interpreted again with the actual argument values (*inlined*, memoised, depth
bounded).  ``nn.Module`` subclasses are instantiated by interpreting their
``__init__``, so ``forward`` sees the layers it built.

The statement and expression logic lives in the mixins of
:mod:`.statements`, :mod:`.expressions` and :mod:`.calls`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import libcst as cst

from ..lang.render import render_shape
from ..model import codes
from ..model.constraints import Constraint, Rel
from ..model.diagnostics import Code, Diagnostic, Related, Severity, Span
from ..model.dims import Dim, Star, Unknown, UnknownSource
from ..model.obligations import Obligation
from ..model.shape import Shape
from ..model.spec import ShapeSpec
from ..model.values import (
    NONE,
    BoolV,
    FloatV,
    IntV,
    Layout,
    MaybeIntV,
    SeqKind,
    SeqV,
    StrV,
    TensorV,
    TupleV,
    UnknownV,
    Value,
)
from ..rules.context import Options, RuleContext
from ..rules.signature import rigid_shape
from ..unify.facts import Facts
from ..unify.symbols import SymbolTable
from .annotations import Annotation
from .base import MAX_DEPTH, MAX_PROGRAM_DEPTH, Frame
from .calls import Calls
from .expressions import Expressions
from .foreign import opaque_names
from .learn import Learner
from .memo import CallMemo
from .project import ModuleInfo, Project
from .refine import Refinements
from .signature import Signature, signature_of
from .sites import ConstructionSites, construction_sites
from .state import State
from .statements import Statements
from .syntax import blocks, definitions, suite_body
from .values import ClassV, FunctionV, InstanceV, OpaqueV
from .writers import function_key

__all__ = [
    "Frame",
    "Analyzer",
    "ClassRun",
    "MAX_DEPTH",
    "UNREACHABLE",
    "INTERNAL_ERROR",
    "CALL_CHAIN",
    "with_call",
    "call_chain",
]

#: Why a function of the checked file was not analysed (``--statistics``): its ``def`` never ran
#: (a branch known to be false, code after ``return``), or the checker failed on it.
UNREACHABLE = "unreachable"
INTERNAL_ERROR = "internal-error"
#: At most this many values of one expression under callers' arguments are kept (``caller_views``).
MAX_VIEWS = 8
#: How deep learning through calls asks callees (``main -> train -> model``: a parameter passed on).
MAX_LEARN_DEPTH = 3


@dataclass(frozen=True, slots=True)
class OwnRun:
    """What a module's top-level run found for its own check, when another file's import ran it."""

    diagnostics: list[Diagnostic]
    obligations: list[Obligation]
    observed: dict[int, tuple[cst.CSTNode, TensorV]]
    views: dict[int, tuple[cst.CSTNode, list[TensorV]]]
    mode_reads: dict[int, bool]


@dataclass(eq=False, slots=True)
class ClassRun:
    """One class's analysis under way: its members share one set of sizes (``self.n_head`` is the same
    symbol in every method, and no method's own fresh symbol reuses its name)."""

    cls: ClassV
    members: list[cst.FunctionDef | cst.ClassDef]
    opaque: dict[str, Dim] = field(default_factory=dict)
    symbols: SymbolTable = field(default_factory=SymbolTable)
    instance: InstanceV | None = None


class Analyzer(Statements, Expressions, Calls, Refinements, Learner):
    """Analyses the files of a project, one checked module at a time."""

    def __init__(self, project: Project, options: Options | None = None, *, record: bool = False):
        self.project = project
        self.options = options or Options()
        if self.options.vollo:
            from .. import vollo  # noqa: F401 - registers the layout hook
        self._submodules: dict[int, frozenset[str]] = {}
        #: Project modules this analysis read (the cache's dependencies of the checked file).
        self.touched: set[ModuleInfo] = set()
        #: Counts of tensor expressions by how much of their shape is known.
        self.stats: Counter[str] = Counter()
        self.examples: dict[str, tuple[ModuleInfo, cst.CSTNode]] = {}
        #: The last value of every tensor expression of the checked file (statistics, LSP).
        self.record = record
        self._observed: dict[int, tuple[cst.CSTNode, TensorV]] = {}
        #: With ``record``: the values tensor expressions had in bodies run with callers' arguments.
        self.caller_views: dict[int, tuple[cst.CSTNode, list[TensorV]]] = {}
        self._call_memo: CallMemo[tuple[Value, list[Diagnostic], int, bool]] = CallMemo()
        self._call_constraints: dict[Any, list[Constraint]] = {}
        self._call_facts: dict[Any, list[tuple[Rel, Dim, Dim]]] = {}
        #: The receiver as a memoised call of a method left it, and as the last inlined call did.
        self._call_after: dict[Any, tuple[cst.FunctionDef, Value, Value] | None] = {}
        self._after: tuple[cst.FunctionDef, Value, Value] | None = None
        #: The dicts a callee edited in place, by parameter, as a memoised call and the last inlined call left them.
        self._call_edits: dict[Any, tuple[cst.FunctionDef, dict[str, Value]] | None] = {}
        self._edits: tuple[cst.FunctionDef, dict[str, Value]] | None = None
        #: The copies attribute writes made of one dataclass instance, by ``id`` of each (they stay alive in it).
        self._alias_groups: dict[int, list[InstanceV]] = {}
        #: Arguments the last interpreted call wrote attributes through, as it left them (old, new).
        self._moved: tuple[cst.FunctionDef, list[tuple[InstanceV, InstanceV]]] | None = None
        #: Constraints found while building each class's generic instance (``assert d % h == 0`` in ``__init__``).
        self.instance_constraints: dict[ClassV, list[Constraint]] = {}
        self._instances: dict[Any, tuple[InstanceV, int]] = {}
        #: Each module in each mode (``Calls.moded``): ``(id(origin), mode) -> (origin, copy)``.
        self._moded: dict[tuple[int, bool | None], tuple[InstanceV, Value]] = {}
        #: Containers :meth:`Calls.moded` found hold no module (``(id(v), mode) -> v``; ``v`` kept alive).
        self._unmoded: dict[tuple[int, bool | None], Value] = {}
        self.mode_sets = 0
        #: ``self.training`` reads of the checked file: whether some run knew the module's mode there.
        self.mode_reads: dict[int, bool] = {}
        #: The token of each module's run's symbol table, and the opaque names its globals hold.
        self._run_tokens: dict[int, int] = {}
        self._global_names: dict[int, frozenset[str]] = {}
        self._hollow = 0
        self._written_attrs: set[str] = set()
        self._written_unnamed = 0
        self._unseen_unnamed = 0
        self._escaped: set[int] = set()
        #: The stamps of the project modules given to a call the analysis cut short (not run).
        self._cut_reached: set[int] = set()
        #: The stamp of the last call cut short given more modules than could be followed (0: none).
        self._cut_unbounded = 0
        #: ``(file, function name)`` of every function inlined or cut short so far.
        self.reached: set[tuple[str, str]] = set()
        #: Calls the depth bound stopped so far (a call with one inside is not memoised).
        self._cut = 0
        self.may_raise = 0
        self.in_try = 0
        self.undecided = 0
        self._inlines = 0
        self._call_raises: dict[Any, bool] = {}
        self._generic_instances: dict[ClassV, InstanceV] = {}
        self._active: set[Any] = set()
        #: Facts the next inlined call of a definition starts with, by ``id`` of its node (the index a
        #: ``DataLoader`` passes to ``__getitem__`` is in ``[0, len)``).
        self._entry_facts: dict[int, Facts] = {}
        self._signatures: dict[int, Signature] = {}
        self.checked: ModuleInfo | None = None
        #: Sizes from command-line options: symbol -> (flag, default) (see ``infer/options.py``).
        self.option_defaults: dict[Any, tuple[str, int]] = {}
        self._sites: ConstructionSites | None = None
        self._with_values: set[int] = set()
        #: ``def`` nodes whose body had its generic analysis.
        self._analysed: set[int] = set()
        #: ``def``/``class`` nodes whose analysis failed (an internal error).
        self._failed: set[int] = set()
        #: Functions and classes defined inside a function of the checked file, waiting for their analysis.
        self._nested: list[FunctionV | ClassV] = []
        #: Functions of the checked file that were not analysed: ``(reason, name node)`` (``--statistics``).
        self.unanalysed: list[tuple[str, cst.Name]] = []
        self.learned_params: dict[int, tuple[cst.FunctionDef, dict[str, TensorV]]] = {}
        #: What a parameter of a project function learns from its first use, for a caller's parameter
        #: passed there: ``(def node, receiver, parameter) -> tensor`` (``None``: nothing certain).
        self._through: dict[tuple[int, int | None, str], TensorV | None] = {}
        self._through_active: list[tuple[int, int | None, str]] = []

    # -- contexts and reporting ------------------------------------------------------
    def new_context(self) -> RuleContext:
        return RuleContext(options=self.options, symbols=SymbolTable(), defaults=self.option_defaults)

    def report(self, frame: Frame, code: Code, message: str, span: Span, hint: str | None = None) -> None:
        frame.ctx.report(code, message, span, hint)

    def signature(self, f: FunctionV) -> Signature:
        sig = self._signatures.get(id(f.node))
        if sig is None:
            self.run_module(f.module)
            sig = signature_of(f, self.static_value)
            self._signatures[id(f.node)] = sig
        return sig

    def adopt_globals(self, frame: Frame) -> None:
        """Take the sizes the module's globals hold (``VOCAB = len(chars)``, named by the module's
        run) into a generic analysis of one of its definitions, before it names any of its own: none
        of its fresh sizes is then read as one of them."""
        info = frame.module
        names = self._global_names.get(id(info))
        if names is None:
            names = opaque_names([info.globals])
            if info.state == 2:
                self._global_names[id(info)] = names
        table = frame.ctx.symbols
        if not table.adopt(names, self._run_tokens.get(id(info), 0)):
            # The class's shared names met a global's first: no fresh size takes them from now on.
            for n in names:
                table.reserve(n)

    # -- modules ---------------------------------------------------------------------------
    def run_module(self, info: ModuleInfo) -> None:
        """Interpret a module's top level once (imports, defs, constants)."""
        self.touched.add(info)
        if info.state or info.tree is None:
            return
        info.state = 1
        # A module runs once per process, whichever file's analysis imports it first: it runs as its
        # own check would run it (its top level observed, its reports kept on it for that check), so
        # neither its globals nor its own file's results depend on which file asked first.
        imported = info is not self.checked and not info.library
        outer = self._enter_run(info) if imported else None
        frame = Frame(info, self.new_context(), generic=True, limit=MAX_PROGRAM_DEPTH)
        # A module's top level runs once, whatever branch of the code that first needed it was under
        # way (a lazy import resolved there): its own writes are not conditional.
        undecided, self.undecided = self.undecided, 0
        try:
            self._run_tokens[id(info)] = frame.ctx.symbols.token
            state = State(info.globals)
            # Statements write straight into the globals (an import cycle sees them); after an
            # ``if``/``try``/loop the state is a new one, which the globals take at once, so a function
            # defined after ``try: import einops`` is there when ``main()`` (run below) calls it.
            cur = state
            for stmt in info.tree.body:
                after = self.exec_stmt(frame, cur, stmt)
                if after is None:
                    break
                if after.vars is not info.globals:
                    info.globals.update(after.vars)
                    after = State(info.globals, after.facts)
                cur = after
            info.state = 2
        finally:
            self.undecided = undecided
            if outer is not None:
                info.own_run = self._leave_run(outer, frame)
        if info is self.checked:
            self._module_diags.extend(frame.ctx.diagnostics)
            self._module_obligations.extend(frame.ctx.obligations)

    def _enter_run(self, info: ModuleInfo) -> tuple[Any, ...]:
        """Make ``info`` the checked module for its top-level run (see :meth:`run_module`); what the
        file being checked had, to restore."""
        outer = (self.checked, self._observed, self.caller_views, self.mode_reads, self._sites)
        self.checked, self._observed, self.caller_views, self.mode_reads, self._sites = info, {}, {}, {}, None
        return outer

    def _leave_run(self, outer: tuple[Any, ...], frame: Frame) -> OwnRun:
        """Back to the file being checked; what the module's run found for its own check."""
        found = OwnRun(
            list(frame.ctx.diagnostics), list(frame.ctx.obligations), self._observed, self.caller_views, self.mode_reads
        )
        self.checked, self._observed, self.caller_views, self.mode_reads, self._sites = outer
        return found

    def _take_own_run(self, info: ModuleInfo) -> None:
        """What ``info``'s top level found when another file's import ran it (:meth:`run_module`)."""
        found = info.own_run
        if not isinstance(found, OwnRun):
            return
        self._module_diags.extend(found.diagnostics)
        self._module_obligations.extend(found.obligations)
        self._observed.update(found.observed)
        for key, (node, views) in found.views.items():
            mine = self.caller_views.setdefault(key, (node, []))[1]
            mine.extend(v for v in views if v not in mine and len(mine) < MAX_VIEWS)
        for key, known in found.mode_reads.items():
            self.mode_reads[key] = self.mode_reads.get(key, False) or known

    def analyze(self, info: ModuleInfo) -> tuple[list[Diagnostic], list[Obligation]]:
        """Analyse every function and class of ``info``; diagnostics and obligations with ticket spans."""
        self.begin(info)
        if info.tree is None:
            return [], []
        self.run_module(info)
        self._take_own_run(info)
        for k, stmt in enumerate(info.tree.body):
            if info.spans is not None:
                info.spans.at_statement = k  # the statement that holds most nodes a ticket is taken for now
            self._analyze_definition(info, stmt)
        if info.spans is not None:
            info.spans.at_statement = -1
        self._account(info.tree.body)
        # An annotated callee run with a caller's values may meet a problem its own analysis reports
        # already, at the same place: that report is the one kept.
        own = {
            d.span
            for d in self._module_diags
            if id(d) not in self._with_values and d.severity >= Severity.WARNING and d.code is not codes.OBLIGATION
        }
        self._module_diags = [d for d in self._module_diags if id(d) not in self._with_values or d.span not in own]
        return self._module_diags, self._module_obligations

    # -- piecewise analysis (the LSP reuses the results of unchanged top-level statements) --
    def begin(self, info: ModuleInfo) -> None:
        """Make ``info`` the checked module (then :meth:`run_module`, :meth:`analyze_statement`)."""
        self.checked = info
        self._sites = None
        self._module_diags: list[Diagnostic] = []
        self._module_obligations: list[Obligation] = []

    def analyze_statement(self, info: ModuleInfo, stmt: cst.CSTNode) -> None:
        """Analyse the functions and classes one top-level statement defines."""
        self._analyze_definition(info, stmt)

    def take_results(
        self,
    ) -> tuple[list[Diagnostic], list[Obligation], dict[int, tuple[cst.CSTNode, TensorV]], set[ModuleInfo]]:
        """Diagnostics, obligations, observations and touched modules since :meth:`begin` or the last call."""
        out = (self._module_diags, self._module_obligations, self._observed, self.touched)
        self._module_diags, self._module_obligations, self._observed, self.touched = [], [], {}, set()
        return out

    def _analyze_definition(self, info: ModuleInfo, stmt: cst.CSTNode) -> None:
        """Analyse what a top-level statement defines, through ``if``/``try``/``with``/loops/``match``."""
        for node in definitions([stmt]):
            value = info.defined.get(id(node))
            if isinstance(node, cst.FunctionDef) and isinstance(value, FunctionV):
                self._guarded(info, node, self.analyze_function, value)
            elif isinstance(node, cst.ClassDef) and isinstance(value, ClassV):
                self._guarded(info, node, self.analyze_class, value)
            # A definition the module's run never reached is counted by :meth:`_account`.

    def defined(self, frame: Frame, node: cst.FunctionDef | cst.ClassDef, value: FunctionV | ClassV) -> None:
        """Remember what a ``def``/``class`` statement made; one inside a checked function is analysed too."""
        frame.module.defined[id(node)] = value
        if frame.function is not None and frame.generic and frame.module is self.checked:
            self._nested.append(value)

    def defined_value(self, module: ModuleInfo, node: cst.FunctionDef | cst.ClassDef) -> FunctionV | ClassV | None:
        v = module.defined.get(id(node))
        return v if isinstance(v, (FunctionV, ClassV)) else None

    def _analyze_nested(self, start: int) -> None:
        """Analyse the functions and classes defined inside a function (queued from ``start``)."""
        pending, self._nested[start:] = self._nested[start:], []
        for v in pending:
            if isinstance(v, FunctionV) and v.owner is None and id(v.node) not in self._analysed:
                self.analyze_function(v)
            elif isinstance(v, ClassV) and id(v.node) not in self._analysed:
                self.analyze_class(v)

    def _account(self, stmts: Sequence[cst.CSTNode], failed: bool = False) -> None:
        """Count the checked file's functions: analysed, or not and why (nothing goes unnoticed)."""
        for stmt in stmts:
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                inner_failed = failed or id(stmt) in self._failed
                if isinstance(stmt, cst.FunctionDef):
                    if id(stmt) in self._analysed:
                        self.stats["functions"] += 1
                    else:
                        # Not analysed: its analysis failed, or its ``def`` never ran (a branch known to be
                        # false, code after a ``return``, a class body that was never executed).
                        why = INTERNAL_ERROR if inner_failed else UNREACHABLE
                        self.stats["unanalysed"] += 1
                        self.stats[f"unanalysed:{why}"] += 1
                        self.unanalysed.append((why, stmt.name))
                self._account(suite_body(stmt.body), inner_failed)
            else:
                for block in blocks(stmt):
                    self._account(block, failed)

    def _guarded(self, info: ModuleInfo, node: cst.FunctionDef | cst.ClassDef, run: Any, value: Value) -> None:
        """An internal failure on one function becomes a diagnostic; the rest is still checked."""
        mark = len(self._nested)
        try:
            run(value)
        except RecursionError:
            self._failed.add(id(node))
            self._internal_error(info, node, "recursion too deep")
        except Exception as e:  # noqa: BLE001 - the checker must never crash on real code
            self._failed.add(id(node))
            self._internal_error(info, node, f"{type(e).__name__}: {e}")
        finally:
            del self._nested[mark:]

    def _internal_error(self, info: ModuleInfo, node: cst.FunctionDef | cst.ClassDef, why: str) -> None:
        assert info.spans is not None
        span = info.spans.ticket(node.name)
        self._module_diags.append(
            Diagnostic(
                codes.INTERNAL_ERROR,
                f"tensorshape failed while analysing `{node.name.value}` ({why}); the rest of the file is still checked",
                span,
                codes.INTERNAL_ERROR.severity,
                "please report this with the code that triggers it",
            )
        )

    # -- generic analyses ------------------------------------------------------------
    def analyze_function(
        self,
        f: FunctionV,
        instance: InstanceV | None = None,
        opaque: dict[str, Dim] | None = None,
        symbols: SymbolTable | None = None,
    ) -> None:
        """Interpret ``f`` with parameters from its annotations and report what it finds."""
        self._analysed.add(id(f.node))
        self.reached.add(function_key(f.module.path, f.node))
        sig = self.signature(f)
        if f.module is self.checked:
            self._module_diags.extend(sig.diagnostics)
        # A function without parameters (``main``) is an entry point: it runs with the program's values.
        limit = MAX_DEPTH if sig.params else MAX_PROGRAM_DEPTH
        frame = Frame(f.module, self.new_context(), f, sig, opaque=opaque if opaque is not None else {}, limit=limit)
        if symbols is not None:
            frame.ctx.symbols = SymbolTable(symbols)
        self.adopt_globals(frame)
        state = State(dict(f.closure)) if f.closure else State()
        self.bind_generic_params(frame, state, sig, instance)
        self.start_learning(frame, state, sig, instance)
        if self.options.vollo:
            self._vollo_inputs(frame, state, f, sig, instance)
        mark = len(self._nested)
        end = self.exec_block(frame, state, list(_body(f.node)))
        self.finish_learning(frame, f.node, end)
        self._module_diags.extend(frame.ctx.diagnostics)
        self._module_obligations.extend(frame.ctx.obligations)
        self._analyze_nested(mark)

    def learned_through(self, f: FunctionV, receiver: Value | None, param: str) -> TensorV | None:
        """What ``param`` of the project function ``f`` learns from its first use in ``f``'s generic
        analysis (``receiver`` bound to ``self``), when that use runs on every call: a statement at the
        top level of the body, after no statement that may ``return`` or ``raise``.  The call raises
        unless the argument has that shape, so a caller's parameter passed there learns it too
        (transitively: that body's own calls are asked the same, :data:`MAX_LEARN_DEPTH` deep).
        Memoised; the probe's diagnostics, observations and statistics are dropped."""
        key = (id(f.node), id(receiver) if receiver is not None else None, param)
        if key in self._through:
            return self._through[key]
        if len(self._through_active) >= MAX_LEARN_DEPTH or key in self._through_active:
            return None
        self._through[key] = None
        self._through_active.append(key)
        observed, views, stats, nested = (
            dict(self._observed),
            dict(self.caller_views),
            Counter(self.stats),
            len(self._nested),
        )
        try:
            sig = self.signature(f)
            self.reached.add(function_key(f.module.path, f.node))
            frame = Frame(f.module, self.new_context(), f, sig, opaque={}, limit=MAX_DEPTH)
            frame.ctx.muted = True
            self.adopt_globals(frame)
            state = State(dict(f.closure)) if f.closure else State()
            inst = receiver if isinstance(receiver, InstanceV) else None
            self.bind_generic_params(frame, state, sig, inst)
            self.start_learning(frame, state, sig, inst)
            lr = frame.learning
            if lr is None or param not in lr.origins:
                return None
            body = list(_body(f.node))
            self.exec_block(frame, state, body)
            use = lr.first_use.get(param)
            got = lr.memo.get((param, id(use))) if use is not None else None
            if got is None or use is None or not _runs_every_call(body, use):
                return None
            self._through[key] = got
            return got
        finally:
            self._through_active.pop()
            self._observed, self.caller_views, self.stats = observed, views, stats
            del self._nested[nested:]

    def analyze_class(self, c: ClassV) -> None:
        mark = len(self._nested)
        run = self.class_run(c)
        self.build_instance(run)
        for node in run.members:
            self.analyze_member(run, node)
        self._analyze_nested(mark)

    # A class's analysis in steps (the language server re-runs one member at a time).
    def class_run(self, c: ClassV) -> ClassRun:
        """The analysis of ``c`` to run: its generic instance, then each member in order."""
        self._analysed.add(id(c.node))
        members: list[cst.FunctionDef | cst.ClassDef] = []
        init = c.lookup("__init__")
        # Every method, also those defined under ``if``/``try`` in the class body.
        for node in definitions(list(_body(c.node))):
            member = c.module.defined.get(id(node))
            if isinstance(node, cst.ClassDef):
                if isinstance(member, ClassV):
                    members.append(node)
            elif isinstance(member, FunctionV) and member.owner is c and member is not init:
                members.append(node)  # ``__init__`` runs building the instance; a ``def`` never run is counted
        return ClassRun(c, members)

    def build_instance(self, run: ClassRun) -> None:
        """The instance the methods of ``run``'s class are analysed with (its generic one, built once)."""
        c = run.cls
        has_init = c.lookup("__init__") is not None
        run.instance = (
            self.generic_instance(c, run.opaque, run.symbols) if has_init or c.is_module else InstanceV(c, several=True)
        )

    def analyze_member(self, run: ClassRun, node: cst.FunctionDef | cst.ClassDef) -> None:
        """Analyse one member of ``run``'s class (after :meth:`build_instance`)."""
        member = run.cls.module.defined.get(id(node))
        if isinstance(member, ClassV):
            self.analyze_class(member)
        elif isinstance(member, FunctionV) and isinstance(node, cst.FunctionDef):
            is_static = any(_decorator_name(d) == "staticmethod" for d in node.decorators)
            is_class = any(_decorator_name(d) == "classmethod" for d in node.decorators)
            self.analyze_function(member, None if is_static or is_class else run.instance, run.opaque, run.symbols)

    # -- Vollo ---------------------------------------------------------------------------------
    def _vollo_inputs(
        self, frame: Frame, state: State, f: FunctionV, sig: Signature, instance: InstanceV | None
    ) -> None:
        """Layouts of a function's tensor parameters: a ``data=`` mark, else (a model's ``forward``) the last axis."""
        model = self._is_model_forward(f)
        frame.model_output = model
        for p in sig.params:
            v = state.vars.get(p.name)
            if not isinstance(v, TensorV) or v.layout is not None:
                continue
            spec = p.annotation.spec if p.annotation is not None else None
            marked = spec.data_index if spec is not None else None
            if marked is not None and spec is not None and spec.variadic_index is None:
                state.vars[p.name] = replace(v, layout=Layout(False, marked))
            elif model and v.shape.rank is not None and v.shape.rank > 0:
                state.vars[p.name] = replace(v, layout=Layout(False, v.shape.rank - 1))

    def _is_model_forward(self, f: FunctionV) -> bool:
        """``forward`` of an ``nn.Module`` class that no other class of its file builds as a submodule."""
        owner = f.owner
        if owner is None or f.node.name.value != "forward" or not owner.is_module:
            return False
        key = id(f.module)
        if key not in self._submodules:
            self._submodules[key] = _built_in_init(f.module)
        return owner.node.name.value not in self._submodules[key]

    def generic_instance(
        self, c: ClassV, opaque: dict[str, Dim] | None = None, symbols: SymbolTable | None = None
    ) -> InstanceV:
        """An instance of ``c`` built by interpreting ``__init__`` with generic arguments."""
        inst = self._generic_instances.get(c)
        if inst is not None:
            return inst
        inst = InstanceV(c, key=f"generic:{c.qualname}", several=True)  # any instance of the class
        self._generic_instances[c] = inst
        init = c.lookup("__init__")
        if isinstance(init, FunctionV):
            sig = self.signature(init)
            self.reached.add(function_key(init.module.path, init.node))
            frame = Frame(
                init.module, self.new_context(), init, sig, opaque=opaque if opaque is not None else {}, building=inst
            )
            if symbols is not None:
                frame.ctx.symbols = SymbolTable(symbols)
            self.adopt_globals(frame)
            state = State()
            self.bind_generic_params(frame, state, sig, inst, self._defaults_used(c, sig))
            if init.owner is c:
                self._analysed.add(id(init.node))
            self._active.add(("init", id(init.node)))
            try:
                end = self.exec_block(frame, state, list(_body(init.node)))
            finally:
                self._active.discard(("init", id(init.node)))
            from .calls import _commit

            _commit(inst, (end or state).vars)
            self.instance_constraints[c] = list(frame.ctx.constraints)
            if init.owner is c and init.module is self.checked:
                self._module_diags.extend(frame.ctx.diagnostics)
                self._module_obligations.extend(frame.ctx.obligations)
        return inst

    def _defaults_used(self, c: ClassV, sig: Signature) -> frozenset[str]:
        """``__init__`` parameters that every construction of ``c`` in the checked file leaves to their default."""
        info = self.checked
        if c.module is not info or info is None or info.tree is None:
            return frozenset()
        literal = [p.name for p in sig.params[1:] if isinstance(p.default, (IntV, BoolV, FloatV, StrV))]
        if not literal:
            return frozenset()
        if any(isinstance(m, FunctionV) and self.signature(m).has_shapes for m in c.members.values()):
            # Shape annotations on the methods say which sizes the class accepts (``x: "b features"``
            # into ``nn.Linear(d_in, ...)``): its sizes stay symbols, related to those names gradually.
            return frozenset()
        if not _called_in(c.node.name.value, info.source):
            return frozenset()  # never called in the file: nothing to read (the common case, cheaply)
        if self._sites is None:
            classes = frozenset(d.name.value for d in _all_classes(info.tree.body))
            self._sites = construction_sites(info.source, classes)
        return self._sites.defaulted(c.node.name.value, [p.name for p in sig.params[1:]]) & frozenset(literal)

    def bind_generic_params(
        self,
        frame: Frame,
        state: State,
        sig: Signature,
        instance: InstanceV | None,
        defaults: frozenset[str] = frozenset(),
    ) -> None:
        """Parameters from their annotations; ``defaults`` (left to their default by every call) from it."""
        for name in sig.spec_names():
            frame.ctx.symbols.reserve(name)
        for i, p in enumerate(sig.params):
            if i == 0 and sig.is_method and instance is not None:
                state.vars[p.name] = instance
                continue
            if p.kind == "var_positional":
                state.vars[p.name] = SeqV(UnknownV(), SeqKind.TUPLE)
                continue
            if p.kind == "var_keyword":
                state.vars[p.name] = UnknownV()
                continue
            if p.name in defaults and p.default is not None:
                state.vars[p.name] = p.default
                continue
            state.vars[p.name] = self.generic_value(frame, p.name, p.annotation, p.default, instance, state)

    def generic_value(
        self,
        frame: Frame,
        name: str,
        ann: Annotation | None,
        default: Value | None,
        instance: InstanceV | None,
        state: State,
    ) -> Value:
        """The value a parameter has for the generic analysis."""
        if ann is not None:
            v = self.value_of_annotation(frame, ann, instance, state)
            if v is not None:
                return v
            if ann.kind == "int":
                # An ``int`` hint is an int: ``torch.ones(ndim)`` is ``[ndim]``, ``x * scale`` keeps ``x``'s shape.
                return IntV(frame.ctx.fresh(name))
            if ann.kind == "float":
                return FloatV(None)
            if ann.kind == "bool":
                return BoolV(None)
            if ann.kind == "str":
                return StrV(default.value if isinstance(default, StrV) else None)
        if isinstance(default, IntV) and type(default.value) is int:
            return MaybeIntV(frame.ctx.fresh(name))
        if default is not None and isinstance(default, (BoolV, FloatV)):
            return type(default)(None)
        if default is not None and (default is NONE or isinstance(default, StrV)):
            return OpaqueV(name) if default is NONE else default
        return OpaqueV(name)

    def value_of_annotation(
        self, frame: Frame, ann: Annotation, instance: InstanceV | None, state: State
    ) -> Value | None:
        """A value with rigid symbols for an annotation (``None`` when it says nothing useful)."""
        if ann.kind == "tensor":
            if ann.spec is None:
                return TensorV(Shape.unknown(UnknownSource.ANNOTATED), _dtype(ann.dtype))
            return TensorV(self.rigid_shape(frame, ann.spec, instance, state), _dtype(ann.dtype))
        if ann.kind == "tuple" and ann.items:
            items = [self.value_of_annotation(frame, a, instance, state) for a in ann.items]
            return TupleV(tuple(v if v is not None else UnknownV() for v in items), SeqKind.TUPLE)
        if ann.kind == "list" and ann.items:
            v = self.value_of_annotation(frame, ann.items[0], instance, state)
            return SeqV(v if v is not None else UnknownV(), SeqKind.LIST)
        return None

    def rigid_shape(self, frame: Frame, spec: ShapeSpec, instance: InstanceV | None, state: State) -> Shape:
        """The shape an annotation describes, in rigid symbols named as written."""
        return rigid_shape(spec, lambda path: self.ref_value(frame, path, instance, state))

    def ref_value(self, frame: Frame, path: str, instance: InstanceV | None, state: State) -> Dim | None:
        """The int a ``{ref}`` in a shape string names (``{self.dim}``, ``{n}``)."""
        head, _, rest = path.partition(".")
        v: Value | None = state.vars.get(head)
        if v is None and head == "self":
            v = instance
        for part in rest.split(".") if rest else ():
            if v is None:
                return None
            v = self.attribute(frame, State(), v, part, None)
        if isinstance(v, IntV):
            return v.value
        if isinstance(v, OpaqueV):
            return self.opaque_int(frame, v.path)
        return None

    def opaque_int(self, frame: Frame, path: str) -> Dim:
        """The opaque symbol for an unknown object's attribute path (one per path)."""
        d = frame.opaque.get(path)
        if d is None:
            d = frame.ctx.fresh(path.rsplit(".", 1)[-1])
            frame.opaque[path] = d
        return d

    # -- merging diagnostics from inlined calls --------------------------------------------
    def merge_callee(self, caller: Frame, callee: Frame, span: Span, what: str) -> None:
        """Bring an inlined callee's diagnostics to the caller.

        In the same module they keep their place (the line torch raises on), with the call that led
        there put first in their call chain (:func:`with_call`); from another module they are
        reported at the call site, pointing at the original.
        """
        if caller.ctx.muted:
            return
        for c in callee.ctx.constraints:
            if c not in caller.ctx.constraints:
                caller.ctx.constraints.append(c)
        for d in callee.ctx.diagnostics:
            if d.code is codes.OBLIGATION:
                continue
            if callee.module is caller.module:
                caller.ctx.diagnostics.append(with_call(d, span, what))
                continue
            assert callee.module.spans is not None
            where = callee.module.spans.resolve(d.span)
            related = (Related(where, d.message, callee.module.path),) + tuple(
                replace(r, span=callee.module.spans.resolve(r.span), path=r.path or callee.module.path)
                for r in d.related
            )
            message = f"in {what}: {d.message}"
            if callee.module.library:  # never reported inside the installed package: at the user's call
                message += f" (raised inside {_package_relative(callee.module)}:{where.line})"
            caller.ctx.diagnostics.append(Diagnostic(d.code, message, span, d.severity, d.hint, None, related[:4]))

    # -- statistics ---------------------------------------------------------------------------
    def observe(self, node: cst.CSTNode, value: Value) -> None:
        """Remember the (last) value of a tensor expression of the checked file."""
        if isinstance(value, TensorV):
            self._observed[id(node)] = (node, value)

    def observe_view(self, node: cst.CSTNode, value: TensorV) -> None:
        """Remember a value a tensor expression of the checked file had in a body run with a caller's
        arguments (recording analyses only: the program's own sizes, for coverage)."""
        views = self.caller_views.setdefault(id(node), (node, []))[1]
        if len(views) < MAX_VIEWS and value not in views:
            views.append(value)

    @property
    def observations(self) -> list[tuple[cst.CSTNode, TensorV]]:
        return list(self._observed.values())

    def statistics(self) -> Counter[str]:
        """Tensor expressions by how much of their shape is known, plus unknown ops."""
        out: Counter[str] = Counter({k: v for k, v in self.stats.items()})
        unknown_modes = sum(1 for known in self.mode_reads.values() if not known)
        if unknown_modes:  # a Counter keeps no zero entries (a blank file's result has no statistics)
            out["mode-unknown"] = unknown_modes
        for node, value in self._observed.values():
            s = value.shape
            if s.is_static:
                out["known"] += 1
                continue
            unknown = next(
                (d for d in s.items if isinstance(d, (Unknown, Star)) and not (isinstance(d, Star) and d.name)), None
            )
            if unknown is None:
                out["symbolic"] += 1
            else:
                out["unknown"] += 1
                out["unknown:" + unknown.source.value] += 1
                if self.checked is not None:
                    self.examples.setdefault("unknown:" + unknown.source.value, (self.checked, node))
        return out


#: The message of a call-chain location (``related``): the calls, outermost first, that gave a body the
#: sizes under which it fails (``main()`` -> ``train(model, loader)`` -> ``model(x)``).
CALL_CHAIN = "reached through the call to "


def with_call(d: Diagnostic, span: Span, what: str) -> Diagnostic:
    """``d`` found in an inlined body, with the call that ran the body first in its call chain.

    Problems (warnings and errors) carry their chain; notes (``reveal_shape``) do not."""
    if d.severity < Severity.WARNING:
        return d
    callee = what.removeprefix("call to ")
    return replace(d, related=(Related(span, f"{CALL_CHAIN}{callee} here"), *d.related))


def call_chain(d: Diagnostic) -> int:
    """How many calls led to ``d`` (0: found by the generic analysis of its function)."""
    return sum(r.message.startswith(CALL_CHAIN) for r in d.related)


_WORD_OR_DOT = re.compile(r"[\w.]")


def _called_in(name: str, source: str) -> bool:
    """Does ``source`` call ``name`` (``name(``, not ``x.name(`` or ``class name(``)?  The name is
    searched first and what comes before it checked after: a pattern that starts with a look-behind
    is tried at every character of the text."""
    for m in re.finditer(re.escape(name) + r"\s*\(", source):
        at = m.start()
        if (at == 0 or _WORD_OR_DOT.match(source, at - 1) is None) and source[max(at - 6, 0) : at] != "class ":
            return True
    return False


def _dtype(name: str | None) -> str | None:
    return None if name in (None, "float", "int", "uint", "complex") else name


def _decorator_name(d: cst.Decorator) -> str:
    e = d.decorator
    if type(e) is cst.Call:
        e = e.func
    if type(e) is cst.Attribute:
        return e.attr.value
    if isinstance(e, cst.Name):
        return e.value
    return ""


def _runs_every_call(body: Sequence[cst.BaseStatement | cst.BaseSmallStatement], use: cst.CSTNode) -> bool:
    """Is ``use`` in a simple statement at the top level of ``body``, after no statement that may
    ``return`` or ``raise``?"""
    for stmt in body:
        if _holds(stmt, use):
            return type(stmt) is cst.SimpleStatementLine
        if _leaves(stmt):
            return False
    return False


def _holds(root: cst.CSTNode, node: cst.CSTNode) -> bool:
    todo = [root]
    while todo:
        n = todo.pop()
        if n is node:
            return True
        todo.extend(n.children)
    return False


def _leaves(root: cst.CSTNode) -> bool:
    """May ``root`` leave the function (a ``return``, ``raise``, ``yield`` outside a nested definition)?"""
    todo = [root]
    while todo:
        n = todo.pop()
        if isinstance(n, (cst.Return, cst.Raise, cst.Yield)):
            return True
        if not isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            todo.extend(n.children)
    return False


def _body(node: cst.FunctionDef | cst.ClassDef) -> Iterable[cst.BaseStatement | cst.BaseSmallStatement]:
    b = node.body
    if type(b) is cst.IndentedBlock:
        return b.body
    assert type(b) is cst.SimpleStatementSuite
    return b.body


def describe(v: Value) -> str:
    if isinstance(v, TensorV):
        return render_shape(v.shape)
    return type(v).__name__


def _all_classes(stmts: Sequence[cst.CSTNode]) -> Iterable[cst.ClassDef]:
    """Every class statement of a module (also those inside functions and classes)."""
    for stmt in stmts:
        if isinstance(stmt, cst.ClassDef):
            yield stmt
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            yield from _all_classes(suite_body(stmt.body))
        else:
            for block in blocks(stmt):
                yield from _all_classes(block)


def _built_in_init(info: ModuleInfo) -> frozenset[str]:
    """Names called in the ``__init__`` of the module's classes (the classes used as submodules)."""
    import libcst.matchers as m

    out: set[str] = set()
    if info.tree is None:
        return frozenset()
    for node in info.tree.body:
        if not isinstance(node, cst.ClassDef):
            continue
        for item in _body(node):
            if isinstance(item, cst.FunctionDef) and item.name.value == "__init__":
                for call in m.findall(item, m.Call()):
                    func = call.func  # type: ignore[attr-defined]
                    if isinstance(func, cst.Name):
                        out.add(func.value)
                    elif type(func) is cst.Attribute:
                        out.add(func.attr.value)
    return frozenset(out)


def _package_relative(info: ModuleInfo) -> str:
    """An installed module's file as its package names it (``torchvision/models/resnet.py``)."""
    parts = info.name.split(".")
    tail = Path(info.path).name
    return "/".join([*parts[:-1], tail] if tail != "__init__.py" else [*parts, tail])
