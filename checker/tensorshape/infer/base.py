"""The analyzer's shared state and the interface its parts use.

:class:`~tensorshape.infer.analyzer.Analyzer` is assembled from mixins, one
per job (:mod:`.statements`, :mod:`.expressions`, :mod:`.calls`,
:mod:`.refine`).  They call each other through the methods declared here, so
each module type-checks on its own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import libcst as cst

from ..model.constraints import Constraint, Rel
from ..model.diagnostics import Code, Diagnostic, Span
from ..model.dims import Dim
from ..model.obligations import Obligation
from ..model.shape import Shape
from ..model.spec import ShapeSpec
from ..model.values import BoolV, TensorV, Value
from ..rules.context import Arg, Options, RuleContext
from ..unify.facts import Facts
from .memo import CallMemo
from .project import ModuleInfo, Project
from .state import Widening
from .values import ClassV, FunctionV, InstanceV, LazyImportV

if TYPE_CHECKING:
    from ..unify.match import Bindings
    from .annotations import Annotation
    from .learn import Learning
    from .signature import Signature
    from .state import State

__all__ = ["Frame", "AnalyzerBase", "MAX_DEPTH", "MAX_PROGRAM_DEPTH", "MAX_BUILD_DEPTH", "MAX_LIBRARY_DEPTH"]

#: How deep unannotated calls are inlined from the analysis of a definition on its own.
MAX_DEPTH = 3
#: How deep they are inlined from a program's entry point (a module's top level, a function without
#: parameters such as ``main``): that runs once, with the program's own values, so its calls repeat
#: few distinct arguments and the memo bounds the work, where each definition's own analysis would
#: re-interpret the levels below it once per level above.
MAX_PROGRAM_DEPTH = 6
#: How deep constructions nest (``__init__`` and the helpers building the instance, which do not count
#: toward ``MAX_DEPTH``: ``main`` -> ``ResNet.__init__`` -> ``_make_layer`` -> ``BasicBlock.__init__``).
MAX_BUILD_DEPTH = 8

#: How deep calls into an installed package's code are inlined: model libraries are built from
#: layers of small builders (timm's ``create_model -> _create_vision_transformer ->
#: build_model_with_cfg -> VisionTransformer -> Block -> Attention``), and only what the user's
#: program constructs and calls is interpreted (a library is never analysed definition by definition).
MAX_LIBRARY_DEPTH = 10

#: Ends a ``reveal_shape`` view from a body run with a caller's arguments (not the generic analysis).
WITH_CALLER = "(with a caller's sizes)"


@dataclass(eq=False, slots=True)
class Frame:
    """One function activation being interpreted."""

    module: ModuleInfo
    ctx: RuleContext
    function: FunctionV | None = None
    signature: Signature | None = None
    #: Values returned so far.
    returns: list[Value] = field(default_factory=list)
    #: While building an instance: the states at each ``return`` (the attributes a helper set before it).
    return_states: list[State] = field(default_factory=list)
    depth: int = 0
    #: How deep calls from this activation's root analysis are inlined (``MAX_DEPTH`` or
    #: ``MAX_PROGRAM_DEPTH``; calls into an installed package go ``MAX_LIBRARY_DEPTH`` deep).
    limit: int = MAX_DEPTH
    #: Constructions nested around this one (bounded by ``MAX_BUILD_DEPTH``).
    build_depth: int = 0
    #: Opaque symbols by path (``config.hidden_size``), shared by one root analysis.
    opaque: dict[str, Dim] = field(default_factory=dict)
    #: Is this a generic analysis (parameters from annotations)?
    generic: bool = True
    #: ``self`` while interpreting ``__init__`` (attribute assignments go there).
    building: InstanceV | None = None
    #: Enclosing loops (for ``break``/``continue``).
    loops: list[Any] = field(default_factory=list)
    #: A Vollo model's ``forward``: what it returns must have its data dim last.
    model_output: bool = False
    #: The facts that hold where the function returns (what its caller learns by calling it).
    return_facts: Facts | None = None
    #: Fresh symbols for dims that differ at each join point of this activation (by node).
    widenings: dict[int, Widening] = field(default_factory=dict)
    #: Parameters learning their shape from their first use (``infer/learn.py``); ``None`` when
    #: none can (not a generic analysis, no unannotated parameter, or learning is off).
    learning: Learning | None = None
    #: Set by an ``if`` on the module's configuration whose one branch leaves the block: the
    #: condition under which the rest of the block runs (``if not self.flag: return x``).
    only_after: tuple[cst.BaseExpression, bool] | None = None
    #: The range of the elements of each ``torch.randint(low, high, size)`` call evaluated here (by
    #: node): ``int(...)``, ``.item()`` and ``.tolist()`` of it read ints in that range (``infer/draws.py``).
    drawn: dict[int, tuple[Dim, Dim]] = field(default_factory=dict)
    #: Has this activation made a tensor with contents (``infer/contents.py``)?  A call into code
    #: not known then clears them.
    holds_contents: bool = False

    def widening(self, node: cst.CSTNode) -> Widening:
        """The widening of the join at ``node`` (the same symbols each time it runs)."""
        w = self.widenings.get(id(node))
        if w is None:
            w = self.widenings[id(node)] = Widening(self.ctx.fresh)
        return w

    def ticket(self, node: cst.CSTNode, start: int = 0, length: int = 0) -> Span:
        assert self.module.spans is not None
        return self.module.spans.ticket(node, start, length)


class AnalyzerBase:
    """State shared by the analyzer's parts, and the methods they call on each other."""

    project: Project
    options: Options
    stats: Counter[str]
    #: The first place each counted key of ``stats`` was met (see :meth:`tally`).
    examples: dict[str, tuple[ModuleInfo, cst.CSTNode]]
    record: bool
    checked: ModuleInfo | None
    report_unknown_ops: bool
    _observed: dict[int, tuple[cst.CSTNode, TensorV]]
    #: ``self.training`` reads of the checked file: whether some run knew the module's mode there.
    mode_reads: dict[int, bool]
    _call_memo: CallMemo[tuple[Value, list[Diagnostic], int, bool]]
    _call_constraints: dict[Any, list[Constraint]]
    _call_facts: dict[Any, list[tuple[Rel, Dim, Dim]]]
    _call_after: dict[Any, tuple[cst.FunctionDef, Value, Value] | None]
    _after: tuple[cst.FunctionDef, Value, Value] | None
    _call_edits: dict[Any, tuple[cst.FunctionDef, dict[str, Value]] | None]
    _edits: tuple[cst.FunctionDef, dict[str, Value]] | None
    _alias_groups: dict[int, list[InstanceV]]
    _moved: tuple[cst.FunctionDef, list[tuple[InstanceV, InstanceV]]] | None
    _entry_facts: dict[int, Facts]
    touched: set[ModuleInfo]
    _instances: dict[Any, tuple[InstanceV, int]]
    _moded: dict[tuple[int, bool | None], tuple[InstanceV, Value]]
    _unmoded: dict[tuple[int, bool | None], Value]
    #: How many ``.train()``/``.eval()`` calls ran so far (a call that ran one may have changed a module's mode).
    mode_sets: int
    #: Constructions the depth bound cut short so far (their instances are not memoised).
    _hollow: int
    #: Attribute names assigned so far on an instance outside the frame that builds it.
    _written_attrs: set[str]
    #: The stamp (:func:`~tensorshape.infer.values.stamp`) after which modules given to code not
    #: interpreted were too many to follow, 0 if never: ``hasattr`` is not decided on a module made
    #: before it.
    _written_unnamed: int
    #: The stamp of the last attribute write of a name not known through an object the analysis does
    #: not know (taken to reach no module it knows), 0 if none: a ``hasattr`` decided false on a
    #: module made before it rests on that assumption, and is counted (``hasattr-assumed``).
    _unseen_unnamed: int
    #: The stamps (:attr:`InstanceV.born`) of the project modules given to code not interpreted.
    _escaped: set[int]
    _cut_reached: set[int]
    _cut_unbounded: int
    reached: set[tuple[str, str]]
    #: Calls the depth bound stopped so far (a result with one inside is not memoised).
    _cut: int
    #: Events after which the code run so far may have raised (a ``raise`` reached, a call not
    #: interpreted, a value not known...): a ``try`` body that adds none cannot raise.
    may_raise: int
    #: ``try`` bodies under way (a raise there may be caught).
    in_try: int
    #: Branches of an ``if`` whose test is not known under way: a function's write into a global
    #: dict there may not happen (it joins what the dict held).
    undecided: int
    #: Functions entered by :meth:`inline` so far (a call of a project function that entered none
    #: was not interpreted).
    _inlines: int
    #: Whether each memoised call may have raised.
    _call_raises: dict[Any, bool]
    _generic_instances: dict[ClassV, InstanceV]
    _active: set[Any]
    _signatures: dict[int, Signature]
    option_defaults: dict[Any, tuple[str, int]]
    _module_diags: list[Diagnostic]
    #: Diagnostics an annotated callee's body gave with a caller's values (by id).
    _with_values: set[int]
    _module_obligations: list[Obligation]

    def tally(self, key: str, frame: Frame, node: cst.CSTNode) -> None:
        """Count ``key`` in the statistics, remembering where it was first met.

        The one mechanism behind every "why is this unknown" figure of ``--statistics`` and the JSON
        summary: ``unknown-op:<name>`` for a torch function or method without a rule,
        ``cause:<text>`` for any other cause of an unknown shape (a module adds its own causes by
        calling this with a new text; the summary lists them by count with an example location)."""
        self.stats[key] += 1
        self.examples.setdefault(key, (frame.module, node))

    if TYPE_CHECKING:
        # analyzer.py
        def new_context(self) -> RuleContext: ...
        def report(self, frame: Frame, code: Code, message: str, span: Span, hint: str | None = None) -> None: ...
        def signature(self, f: FunctionV) -> Signature: ...
        def run_module(self, info: ModuleInfo) -> None: ...
        def opaque_int(self, frame: Frame, path: str) -> Dim: ...
        def ref_value(self, frame: Frame, path: str, instance: InstanceV | None, state: State) -> Dim | None: ...
        def rigid_shape(self, frame: Frame, spec: ShapeSpec, instance: InstanceV | None, state: State) -> Shape: ...
        def merge_callee(self, caller: Frame, callee: Frame, span: Span, what: str) -> None: ...
        def observe(self, node: cst.CSTNode, value: Value) -> None: ...
        def observe_view(self, node: cst.CSTNode, value: TensorV) -> None: ...
        def defined(self, frame: Frame, node: cst.FunctionDef | cst.ClassDef, value: FunctionV | ClassV) -> None: ...
        def defined_value(
            self, module: ModuleInfo, node: cst.FunctionDef | cst.ClassDef
        ) -> FunctionV | ClassV | None: ...

        # statements.py
        def exec_block(
            self, frame: Frame, state: State, stmts: Sequence[cst.BaseStatement | cst.BaseSmallStatement]
        ) -> State | None: ...
        def exec_suite(self, frame: Frame, state: State, suite: cst.BaseSuite) -> State | None: ...
        def exec_stmt(self, frame: Frame, state: State, stmt: cst.CSTNode) -> State | None: ...
        def exec_small(self, frame: Frame, state: State, stmt: cst.BaseSmallStatement) -> State | None: ...
        def assign(
            self,
            frame: Frame,
            state: State,
            target: cst.BaseExpression,
            value: Value,
            value_node: cst.BaseExpression | None,
        ) -> None: ...
        def assign_attr(
            self,
            frame: Frame,
            state: State,
            holder: cst.BaseExpression,
            name: str,
            value: Value,
            at: cst.CSTNode,
            observed: bool,
        ) -> None: ...
        def iteration_items(
            self, frame: Frame, state: State, it: Value, node: cst.BaseExpression
        ) -> list[Value] | None: ...
        def element_value(self, it: Value) -> Value: ...
        def replace_in(self, frame: Frame, state: State, holder: cst.BaseExpression, edited: Value) -> None: ...
        def store_dict(self, frame: Frame, state: State, name: str, base: Value, updated: Value) -> None: ...
        def rebind_aliases(self, state: State, old: InstanceV, new: InstanceV) -> None: ...
        def moded(self, v: Value, mode: BoolV) -> Value: ...
        def make_class(self, frame: Frame, state: State, node: cst.ClassDef) -> ClassV: ...
        def resolve_lazy(self, v: LazyImportV, seen: frozenset[LazyImportV] = frozenset()) -> Value: ...
        def module_global(
            self,
            info: ModuleInfo,
            name: str,
            seen: frozenset[LazyImportV] = frozenset(),
            _via: frozenset[int] = frozenset(),
        ) -> Value | None: ...

        # expressions.py
        def eval(self, frame: Frame, state: State, node: cst.BaseExpression, observe: bool = True) -> Value: ...
        def static_value(self, module: ModuleInfo, expr: cst.BaseExpression) -> Value: ...
        def arg(self, frame: Frame, value: Value, node: cst.CSTNode | None) -> Arg: ...
        def attribute(
            self, frame: Frame, state: State, recv: Value, name: str, node: cst.Attribute | None
        ) -> Value: ...
        def binop(
            self,
            frame: Frame,
            state: State,
            op: str,
            left: Value,
            right: Value,
            lnode: cst.CSTNode | None,
            rnode: cst.CSTNode | None,
            node: cst.CSTNode,
        ) -> Value: ...
        def index_value(self, frame: Frame, state: State, node: cst.Subscript) -> Value: ...
        def _int(self, frame: Frame, v: Value) -> Dim | None: ...

        # calls.py
        def core_arg(self, frame: Frame, a: Arg) -> Arg: ...
        def never_filled(self, inst: InstanceV, name: str) -> bool: ...
        def package_folder(self, info: ModuleInfo) -> Path | None: ...
        def call(
            self,
            frame: Frame,
            state: State,
            func: Value,
            args: Sequence[Arg],
            kwargs: Mapping[str, Arg],
            node: cst.CSTNode,
        ) -> Value: ...
        def call_user(
            self,
            frame: Frame,
            state: State,
            f: FunctionV,
            receiver: Value | None,
            args: Sequence[Arg],
            kwargs: Mapping[str, Arg],
            node: cst.CSTNode | None,
        ) -> Value: ...
        def run_setter(
            self, frame: Frame, state: State, recv: InstanceV, setter: FunctionV, value: Value, at: cst.CSTNode
        ) -> InstanceV: ...
        def eval_call(self, frame: Frame, state: State, node: cst.Call) -> Value: ...
        def result_of(
            self, frame: Frame, ann: Annotation | None, b: Bindings, fresh: Callable[[str], Dim] | None = None
        ) -> Value: ...

        # learn.py
        def learnt(self, frame: Frame, old: object, new: TensorV) -> None: ...
        def as_before(self, frame: Frame, run: Callable[[], object]) -> None: ...
        def ask_callee(self, frame: Frame, f: FunctionV, receiver: Value | None) -> Any: ...
        def learned_through(self, f: FunctionV, receiver: Value | None, param: str) -> TensorV | None: ...
        def learn_shape_index(self, frame: Frame, state: State, node: cst.Subscript) -> None: ...
        def learn_fixed_rank(self, frame: Frame, state: State, args: Sequence[Arg]) -> None: ...

        #: ``(frame, state, args, kwargs, node, ask)``: see :meth:`.learn.Learner.learn_args`.
        learn_args: Callable[..., tuple[Sequence[Arg], Mapping[str, Arg]]]

        # refine.py
        def refine_unpack(
            self,
            frame: Frame,
            state: State,
            value_node: cst.BaseExpression,
            elements: list[cst.BaseElement],
            value: Value,
        ) -> Value | None: ...
        def refine_dim_read(
            self, frame: Frame, state: State, value_node: cst.BaseExpression, name: str, value: Value
        ) -> Value: ...
        def refine_condition(self, frame: Frame, state: State, test: cst.BaseExpression, truth: bool) -> None: ...
        def exec_assert(self, frame: Frame, state: State, stmt: cst.Assert) -> bool: ...
        def raises_check(self, frame: Frame, state: State, stmt: cst.If) -> bool: ...
        def check_return(self, frame: Frame, state: State, value: Value, node: cst.CSTNode) -> None: ...
        def check_against(
            self, frame: Frame, state: State, value: Value, ann: Annotation, node: cst.CSTNode, what: str
        ) -> Value: ...
        def check_setitem(self, frame: Frame, state: State, target: cst.Subscript, value: Value) -> None: ...
