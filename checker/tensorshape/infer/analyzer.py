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

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import libcst as cst

from ..lang.render import render_shape
from ..model import codes
from ..model.constraints import Constraint
from ..model.diagnostics import Code, Diagnostic, Related, Span
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
from ..unify.symbols import SymbolTable
from .annotations import Annotation
from .base import MAX_DEPTH, Frame
from .calls import Calls
from .expressions import Expressions
from .project import ModuleInfo, Project
from .refine import Refinements
from .signature import Signature, signature_of
from .state import State
from .statements import Statements
from .values import ClassV, FunctionV, InstanceV, OpaqueV

__all__ = ["Frame", "Analyzer", "MAX_DEPTH"]


class Analyzer(Statements, Expressions, Calls, Refinements):
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
        #: The last value of every tensor expression of the checked file (statistics, LSP).
        self.record = record
        self._observed: dict[int, tuple[cst.CSTNode, TensorV]] = {}
        self._call_memo: dict[Any, tuple[Value, list[Diagnostic]]] = {}
        self._call_constraints: dict[Any, list[Constraint]] = {}
        #: Constraints found while building each class's generic instance (``assert d % h == 0`` in ``__init__``).
        self.instance_constraints: dict[ClassV, list[Constraint]] = {}
        self._instances: dict[Any, InstanceV] = {}
        self._generic_instances: dict[ClassV, InstanceV] = {}
        self._active: set[Any] = set()
        self._signatures: dict[int, Signature] = {}
        self.checked: ModuleInfo | None = None
        #: Sizes from command-line options: symbol -> (flag, default) (see ``infer/options.py``).
        self.option_defaults: dict[Any, tuple[str, int]] = {}

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

    # -- modules ---------------------------------------------------------------------------
    def run_module(self, info: ModuleInfo) -> None:
        """Interpret a module's top level once (imports, defs, constants)."""
        self.touched.add(info)
        if info.state or info.tree is None:
            return
        info.state = 1
        frame = Frame(info, self.new_context(), generic=True)
        state = State(info.globals)
        self.exec_block(frame, state, info.tree.body)
        info.globals.update(state.vars)
        info.state = 2
        if info is self.checked:
            self._module_diags.extend(frame.ctx.diagnostics)
            self._module_obligations.extend(frame.ctx.obligations)

    def analyze(self, info: ModuleInfo) -> tuple[list[Diagnostic], list[Obligation]]:
        """Analyse every function and class of ``info``; diagnostics and obligations with ticket spans."""
        self.begin(info)
        if info.tree is None:
            return [], []
        self.run_module(info)
        for stmt in info.tree.body:
            self._analyze_definition(info, stmt)
        return self._module_diags, self._module_obligations

    # -- piecewise analysis (the LSP reuses the results of unchanged top-level statements) --
    def begin(self, info: ModuleInfo) -> None:
        """Make ``info`` the checked module (then :meth:`run_module`, :meth:`analyze_statement`)."""
        self.checked = info
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
        node = stmt
        if isinstance(node, cst.FunctionDef):
            f = info.globals.get(node.name.value)
            if isinstance(f, FunctionV) and f.node is node:
                self._guarded(info, node, lambda: self.analyze_function(f))
        elif isinstance(node, cst.ClassDef):
            c = info.globals.get(node.name.value)
            if isinstance(c, ClassV) and c.node is node:
                self._guarded(info, node, lambda: self.analyze_class(c))
        elif isinstance(node, cst.If):
            # ``if __name__ == "__main__":`` and ``if TYPE_CHECKING:`` blocks hold definitions too.
            for s in node.body.body:
                self._analyze_definition(info, s)

    def _guarded(self, info: ModuleInfo, node: cst.FunctionDef | cst.ClassDef, run: Any) -> None:
        """An internal failure on one function becomes a diagnostic; the rest is still checked."""
        try:
            run()
        except RecursionError:
            self._internal_error(info, node, "recursion too deep")
        except Exception as e:  # noqa: BLE001 - the checker must never crash on real code
            self._internal_error(info, node, f"{type(e).__name__}: {e}")

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
        self, f: FunctionV, instance: InstanceV | None = None, opaque: dict[str, Dim] | None = None
    ) -> None:
        """Interpret ``f`` with parameters from its annotations and report what it finds."""
        sig = self.signature(f)
        if f.module is self.checked:
            self._module_diags.extend(sig.diagnostics)
        frame = Frame(f.module, self.new_context(), f, sig, opaque=opaque if opaque is not None else {})
        state = State()
        self.bind_generic_params(frame, state, sig, instance)
        if self.options.vollo:
            self._vollo_inputs(frame, state, f, sig, instance)
        self.exec_block(frame, state, list(_body(f.node)))
        self._module_diags.extend(frame.ctx.diagnostics)
        self._module_obligations.extend(frame.ctx.obligations)

    def analyze_class(self, c: ClassV) -> None:
        opaque: dict[str, Dim] = {}
        instance = self.generic_instance(c, opaque) if c.lookup("__init__") is not None or c.is_module else InstanceV(c)
        for name, member in c.members.items():
            if isinstance(member, FunctionV) and member.owner is c and name != "__init__":
                is_static = any(_decorator_name(d) == "staticmethod" for d in member.node.decorators)
                is_class = any(_decorator_name(d) == "classmethod" for d in member.node.decorators)
                self.analyze_function(member, None if is_static or is_class else instance, opaque)
        for stmt in _body(c.node):
            if isinstance(stmt, cst.ClassDef):
                inner = c.members.get(stmt.name.value)
                if isinstance(inner, ClassV):
                    self.analyze_class(inner)

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

    def generic_instance(self, c: ClassV, opaque: dict[str, Dim] | None = None) -> InstanceV:
        """An instance of ``c`` built by interpreting ``__init__`` with generic arguments."""
        inst = self._generic_instances.get(c)
        if inst is not None:
            return inst
        inst = InstanceV(c, key=f"generic:{c.qualname}")
        self._generic_instances[c] = inst
        init = c.lookup("__init__")
        if isinstance(init, FunctionV):
            sig = self.signature(init)
            frame = Frame(
                init.module, self.new_context(), init, sig, opaque=opaque if opaque is not None else {}, building=inst
            )
            state = State()
            self.bind_generic_params(frame, state, sig, inst)
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

    def bind_generic_params(self, frame: Frame, state: State, sig: Signature, instance: InstanceV | None) -> None:
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
                # A Python ``int`` hint is trusted as a size, not as proof it is no tensor or tuple.
                return MaybeIntV(frame.ctx.fresh(name))
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

        In the same module they keep their place (deduplicated); from another
        module they are reported at the call site, pointing at the original.
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
                caller.ctx.diagnostics.append(d)
                continue
            assert callee.module.spans is not None
            where = callee.module.spans.resolve(d.span)
            related = (Related(where, d.message, callee.module.path),) + tuple(
                replace(r, span=callee.module.spans.resolve(r.span), path=r.path or callee.module.path)
                for r in d.related
            )
            caller.ctx.diagnostics.append(
                Diagnostic(d.code, f"in {what}: {d.message}", span, d.severity, d.hint, None, related[:4])
            )

    # -- statistics ---------------------------------------------------------------------------
    def observe(self, node: cst.CSTNode, value: Value) -> None:
        """Remember the (last) value of a tensor expression of the checked file."""
        if isinstance(value, TensorV):
            self._observed[id(node)] = (node, value)

    @property
    def observations(self) -> list[tuple[cst.CSTNode, TensorV]]:
        return list(self._observed.values())

    def statistics(self) -> Counter[str]:
        """Tensor expressions by how much of their shape is known, plus unknown ops."""
        out: Counter[str] = Counter({k: v for k, v in self.stats.items()})
        for _, value in self._observed.values():
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
        return out


def _dtype(name: str | None) -> str | None:
    return None if name in (None, "float", "int", "uint", "complex") else name


def _decorator_name(d: cst.Decorator) -> str:
    e = d.decorator
    if isinstance(e, cst.Call):
        e = e.func
    if isinstance(e, cst.Attribute):
        return e.attr.value
    if isinstance(e, cst.Name):
        return e.value
    return ""


def _body(node: cst.FunctionDef | cst.ClassDef) -> Iterable[cst.BaseStatement | cst.BaseSmallStatement]:
    b = node.body
    if isinstance(b, cst.IndentedBlock):
        return b.body
    assert isinstance(b, cst.SimpleStatementSuite)
    return b.body


def describe(v: Value) -> str:
    if isinstance(v, TensorV):
        return render_shape(v.shape)
    return type(v).__name__


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
                    elif isinstance(func, cst.Attribute):
                        out.add(func.attr.value)
    return frozenset(out)
