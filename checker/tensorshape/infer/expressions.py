"""Expressions: names, attributes, operators, subscripts, literals, comprehensions."""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import libcst as cst

from ..model.dims import Dim, Unknown, UnknownSource
from ..model.firstclass import LevelTensorV
from ..model.shape import Item, Shape
from ..model.values import (
    ELLIPSIS,
    NONE,
    BoolV,
    DictV,
    DTypeV,
    EllipsisV,
    FloatV,
    IntV,
    LoaderV,
    MaybeIntV,
    ModuleV,
    NoneV,
    PackedV,
    RunV,
    SeqKind,
    SeqV,
    SliceV,
    StrV,
    TensorV,
    TupleV,
    UnknownV,
    Value,
)
from ..rules import engine
from ..rules.context import Arg
from ..rules.names import canonical
from ..rules.ops.nn import repeated_child
from ..unify import arith
from ..unify.compare import Truth, eq3, free_symbols, le3
from . import contents
from .arrays import array_attribute, array_binop, as_array, rule_on_arrays
from .base import AnalyzerBase, Frame
from .configs import DICT_EDITS
from .deadline import tick
from .firstclass import TENSORLIKE, firstclass_attr
from .libraries import modelled_by_stubs
from .options import option_value
from .oversized import MAX_STATEMENT_CHARS, OpaqueCode, OpaqueSequence
from .state import State, built_length, dict_container, iteration_length, join_all, join_values
from .strings import SEQ_METHODS, STR_METHODS, SeqMethodV, StrMethodV
from .syntax import private_dicts, simple_text
from .values import (
    ITEMS,
    MODULE_SELF_METHODS,
    TRAINING,
    AnnotationV,
    ArrayMethodV,
    ArrayV,
    AttrsV,
    BoundMethodV,
    ChildrenV,
    ChoiceV,
    ClassV,
    ContainerInitV,
    DataclassInitV,
    DefaultDictV,
    DictMethodV,
    DirV,
    ExternalV,
    FunctionV,
    InstanceV,
    LambdaV,
    LazyImportV,
    MapV,
    ModuleNsV,
    NamespaceV,
    NothingV,
    OpaqueV,
    OptionalV,
    ParserMethodV,
    ParserV,
    PartialV,
    RangeV,
    RatioV,
    ReturnsSelfV,
    SuperV,
    TensorMethodV,
    as_container,
    building_attrs,
    building_key,
    dict_base,
    generated_init,
    held_dict,
    is_registry,
    is_torch_module_base,
    looked_up_name,
    mapping_base,
    mode_of,
    named_child,
    object_setattr,
    private_list_truth,
    to_core,
    truthiness,
)
from .writers import TOP_LEVEL

if TYPE_CHECKING:
    from .project import ModuleInfo

__all__ = ["Expressions", "DTYPES"]

#: ``torch.<name>`` dtypes.
DTYPES: dict[str, str] = {
    **{
        n: n
        for n in (
            "float16",
            "float32",
            "float64",
            "bfloat16",
            "int8",
            "int16",
            "int32",
            "int64",
            "uint8",
            "bool",
            "complex64",
            "complex128",
        )
    },
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "long": "int64",
    "int": "int32",
    "short": "int16",
    "cfloat": "complex64",
}

_BUILTIN_NAMES = frozenset(dir(builtins))

_BINOPS: dict[type, str] = {
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.MatrixMultiply: "@",
    cst.BitAnd: "&",
    cst.BitOr: "|",
    cst.BitXor: "^",
    cst.LeftShift: "<<",
    cst.RightShift: ">>",
}

_CMPOPS: dict[type, str] = {
    cst.Equal: "==",
    cst.NotEqual: "!=",
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
}


class Expressions(AnalyzerBase):
    """Mixin of :class:`~tensorshape.infer.analyzer.Analyzer`: evaluates expressions."""

    def static_value(self, module: ModuleInfo, expr: cst.BaseExpression) -> Value:
        """Evaluate an expression in a module's globals (annotations, defaults); reports nothing.

        The state starts empty: a name it lacks is the module's global (:meth:`lookup`).  A copy of
        the globals per annotation made a module of n classes cost n * globals (a 5 MB generated
        model spent most of its time here)."""
        self.run_module(module)
        frame = Frame(module, self.new_context(), generic=False)
        return self.eval(frame, State(), expr, observe=False)

    def option(self, frame: Frame, ns: NamespaceV, name: str) -> Value:
        """``args.batch_size``: an int option is a size (one symbol per option in an analysis) whose
        default is remembered; other options are values of their default's type."""
        declared = ns.parser.options.get(name)
        if declared is None:
            return OpaqueV(f"args.{name}")
        flag, default = declared
        other = option_value(default)
        if other is not None:
            return other
        d = self.opaque_int(frame, f"args.{name}")
        assert isinstance(default, IntV) and type(default.value) is int
        self.option_defaults[d] = (flag, default.value)
        return IntV(d)

    def arg(self, frame: Frame, value: Value, node: cst.CSTNode | None) -> Arg:
        """An engine argument: the value (converted for the core), its span ticket and text."""
        span = frame.ticket(node) if node is not None else None
        core = (
            to_core(value, lambda p: self.opaque_int(frame, p))
            if isinstance(value, OpaqueV) and "." in value.path
            else value
        )
        if isinstance(core, OpaqueV):
            core = UnknownV()
        elif isinstance(core, OptionalV):
            core = UnknownV(UnknownSource.JOIN)
        return Arg(core, span, simple_text(node))

    def lookup(self, frame: Frame, state: State, name: str) -> Value:
        v = state.vars.get(name)
        if v is not None:
            if isinstance(v, LazyImportV):
                v = state.vars[name] = self.resolve_lazy(v)
            return v
        v = self.module_global(frame.module, name)
        if v is not None:
            if frame.function is not None:
                # A module-level module in a function: which mode the program left it in when the
                # function runs is not known (the module's run leaves only its last one).
                return self.moded(v, BoolV(None))
            return v
        if name == "True":
            return BoolV(True)
        if name == "False":
            return BoolV(False)
        if name == "None":
            return NONE
        if name == "Ellipsis":
            return ELLIPSIS  # ``x[(None,) * k + (Ellipsis,)]``: the same as ``...``
        if name in _BUILTIN_NAMES:
            return ExternalV(f"builtins.{name}")
        return UnknownV()

    def eval(self, frame: Frame, state: State, node: cst.BaseExpression, observe: bool = True) -> Value:
        v = self._eval(frame, state, node)
        if observe and isinstance(v, TensorV) and frame.module is self.checked:
            if frame.generic:
                self.observe(node, v)
            elif self.record:
                self.observe_view(node, v)
        return v

    def _eval(self, frame: Frame, state: State, node: cst.BaseExpression) -> Value:
        tick()  # the file's time bound
        # Rules see the facts of this program point (``assert n == m`` above an ``x @ w``).
        frame.ctx.facts = state.facts
        # One lookup by exact type: libcst's node classes are ABCs, whose isinstance is slow,
        # and a chain of them was a measurable part of every evaluation.
        handler = _EVALUATORS.get(type(node))
        v = handler(self, frame, state, node) if handler is not None else UnknownV()
        if isinstance(v, (UnknownV, OpaqueV)) or (isinstance(v, TensorV) and type(node) in _TENSOR_OPS):
            self.may_raise += 1  # a value not known, or an op on tensors: it may have raised
        if frame.ctx.learned:
            # A requirement left to run time held if execution goes on: a fact from here on.
            state.facts = frame.ctx.learn(state.facts)
        return v

    def _eval_name(self, frame: Frame, state: State, node: cst.Name) -> Value:
        return self.lookup(frame, state, node.value)

    def _eval_opaque(self, frame: Frame, state: State, node: OpaqueCode) -> Value:
        """The text of a statement too big to analyse (see oversized.py)."""
        self.stats["expression-bound"] += 1
        self.tally(f"cause:statement of more than {MAX_STATEMENT_CHARS:,} characters (too-complex)", frame, node)
        return UnknownV(UnknownSource.TOO_COMPLEX)

    def _eval_opaque_sequence(self, frame: Frame, state: State, node: OpaqueSequence) -> Value:
        """A list or tuple literal too long to parse, kept as text (see oversized.py): its length, and
        its items' look when each is one of a few names."""
        kind = SeqKind.TUPLE if node.is_tuple else SeqKind.LIST
        items = [self.lookup(frame, state, name) for name in node.names] if node.names else [UnknownV()]
        return self.beyond_exact_items(frame, node, items, kind, node.length)

    def _eval_call(self, frame: Frame, state: State, node: cst.Call) -> Value:
        return self.eval_call(frame, state, node)  # the calls mixin's

    def _eval_attribute(self, frame: Frame, state: State, node: cst.Attribute) -> Value:
        if type(node.value) is cst.Name:
            overlay = state.vars.get(f"{node.value.value}.{node.attr.value}")
            if overlay is not None:
                return overlay
        recv = self.eval(frame, state, node.value)
        return self.attribute(frame, state, recv, node.attr.value, node)

    def _eval_integer(self, frame: Frame, state: State, node: cst.Integer) -> Value:
        try:
            return IntV(arith.bounded(int(node.value.replace("_", ""), 0)))
        except ValueError:  # more than 4,300 digits (Python's limit)
            return IntV(Unknown(UnknownSource.TOO_COMPLEX))

    def _eval_float(self, frame: Frame, state: State, node: cst.Float) -> Value:
        try:
            return FloatV(float(node.value.replace("_", "")))
        except ValueError:
            return FloatV(None)

    def _eval_string(self, frame: Frame, state: State, node: cst.SimpleString) -> Value:
        return StrV(_string(node))

    def _eval_concatenated(self, frame: Frame, state: State, node: cst.ConcatenatedString) -> Value:
        text = node.evaluated_value
        if text is None:  # an f-string part: its expressions run
            self.eval(frame, state, node.left, observe=False)
            self.eval(frame, state, node.right, observe=False)
        return StrV(text if isinstance(text, str) else None)

    def _eval_fstring(self, frame: Frame, state: State, node: cst.FormattedString) -> Value:
        """``f"encoder_layer_{i}"``: the text when every part is a known int or string (a layer's
        name in a loop); else an unknown string.  The expressions in braces always run
        (``f"acc {evaluate(model, loader):.2f}"`` calls ``evaluate``)."""
        out: list[str] | None = []
        for part in node.parts:
            if type(part) is cst.FormattedStringText:
                if out is not None:
                    out.append(part.value)
                continue
            assert type(part) is cst.FormattedStringExpression
            v = self.eval(frame, state, part.expression)
            for spec in part.format_spec or ():
                if type(spec) is cst.FormattedStringExpression:
                    self.eval(frame, state, spec.expression)
            if out is None or part.conversion is not None or part.format_spec is not None or part.equal is not None:
                out = None
            elif isinstance(v, StrV) and v.value is not None:
                out.append(v.value)
            elif type(v) is IntV and type(v.value) is int:
                out.append(str(v.value))
            else:
                out = None
        if out is None:
            return StrV(None)
        text = "".join(p.value for p in node.parts if type(p) is cst.FormattedStringText)
        if "{" in text or "\\" in text or "b" in node.prefix.lower():
            return StrV(None)  # ``{{`` and backslash escapes, bytes: not worth decoding
        return StrV("".join(out))

    def _eval_binary(self, frame: Frame, state: State, node: cst.BinaryOperation) -> Value:
        op = _BINOPS.get(type(node.operator))
        left = self.eval(frame, state, node.left)
        right = self.eval(frame, state, node.right)
        if op is None:
            return UnknownV()
        return self.binop(frame, state, op, left, right, node.left, node.right, node)

    def _eval_boolean(self, frame: Frame, state: State, node: cst.BooleanOperation) -> Value:
        left = self.eval(frame, state, node.left)
        right = self.eval(frame, state, node.right)
        known = truthiness(left)
        if known is not None:
            # Python's value: ``pool_type or ''`` of a known string is that string.
            return right if known == (type(node.operator) is cst.And) else left
        if isinstance(left, BoolV) and isinstance(right, BoolV):
            if type(node.operator) is cst.And:
                if left.value is False or right.value is False:
                    return BoolV(False)
                return BoolV(True if left.value and right.value else None)
            if left.value is True or right.value is True:
                return BoolV(True)
            return BoolV(False if left.value is False and right.value is False else None)
        if isinstance(left, NoneV):
            return right
        return join_values(left, right)

    def _eval_sequence(self, frame: Frame, state: State, node: cst.Tuple | cst.List) -> Value:
        if type(node) is cst.List and not node.elements:
            # An empty list is usually filled later (``.append`` in a loop).
            return SeqV(NothingV(), SeqKind.LIST)
        kind = SeqKind.TUPLE if type(node) is cst.Tuple else SeqKind.LIST
        items: list[Value] = []
        run: RunV | None = None
        for el in node.elements:
            item = self.eval(frame, state, el.value)
            if type(el) is cst.StarredElement:
                if isinstance(item, TupleV):
                    items.extend(item.items)
                    continue
                if run is None and isinstance(item, SeqV) and item.sizes is not None and item.sizes.star is not None:
                    run = RunV(item.sizes)  # ``(*x.shape[:-1], 4)`` of a tensor with a run of dims
                    items.append(run)
                    continue
                return SeqV(UnknownV(), kind)
            items.append(item)
        if run is not None:
            return _sizes_with_run(items, kind)
        if len(items) > MAX_EXACT_ITEMS:
            # Every item was read and counted: the length is exact, only the items' looks are joined.
            return self.beyond_exact_items(frame, node, items, kind, len(items))
        return TupleV(tuple(items), kind)

    def beyond_exact_items(
        self, frame: Frame, node: cst.CSTNode, items: Sequence[Value], kind: SeqKind, length: Dim | None = None
    ) -> Value:
        """A sequence too long to track item by item: a list of ``length`` items (None: unknown) that
        all look like the join of ``items`` (counted: ``expression-bound`` and a cause in ``--statistics``).
        Numbers and strings join in constant time; of other items (tensors, modules), at most
        :data:`MAX_JOINED_ITEMS` distinct ones are joined: past that the items are unknown, counted
        as a cause of its own."""
        self.stats["expression-bound"] += 1
        self.tally(f"cause:sequence of more than {MAX_EXACT_ITEMS:,} items (too-complex)", frame, node)
        distinct = list({id(v): v for v in items}.values())  # most long literals repeat a few values
        if sum(type(v) not in _SCALARS for v in distinct) > MAX_JOINED_ITEMS:
            self.tally(f"cause:sequence of more than {MAX_JOINED_ITEMS} distinct items (too-complex)", frame, node)
            return SeqV(UnknownV(UnknownSource.TOO_COMPLEX), kind, length)
        return SeqV(join_all(distinct), kind, length)

    def _eval_set(self, frame: Frame, state: State, node: cst.Set) -> Value:
        """A set display of distinct literals (strings, ints) is known (``k in keep_null``); any other
        set is unknown."""
        items = [self.eval(frame, state, el.value) for el in node.elements]
        literals = [_literal(v) for v in items]
        starred = any(type(el) is cst.StarredElement for el in node.elements)
        if starred or any(x is _NO_LITERAL or x is None for x in literals) or len(set(literals)) != len(items):
            return UnknownV()
        return TupleV(tuple(items), SeqKind.SET)

    def _eval_dict(self, frame: Frame, state: State, node: cst.Dict) -> Value:
        entries: list[tuple[str, Value]] | None = []
        for de in node.elements:
            key = self.eval(frame, state, de.key) if type(de) is cst.DictElement else None
            value = self.eval(frame, state, de.value)
            if entries is not None and type(de) is cst.StarredDictElement and isinstance(value, DictV):
                # ``{**base, "d_model": 128}``: the base's entries, then the ones after override them.
                merged = dict(entries)
                merged.update(value.items)
                entries = list(merged.items())
            elif entries is not None and isinstance(key, StrV) and key.value is not None:
                if any(k == key.value for k, _ in entries):  # a repeated key keeps its first place
                    entries = [(k, value if k == key.value else v) for k, v in entries]
                else:
                    entries.append((key.value, value))
            else:
                entries = None
        return DictV(tuple(entries)) if entries is not None else UnknownV()

    def _eval_ifexp(self, frame: Frame, state: State, node: cst.IfExp) -> Value:
        tested = self.eval(frame, state, node.test, observe=False)
        test = truthiness(tested)
        if test is None:
            test = private_list_truth(frame.function, node.test, tested)
        if test is True:
            return self.eval(frame, state, node.body)
        if test is False:
            return self.eval(frame, state, node.orelse)
        body, orelse = state, state
        if _narrows(node.test):
            # ``self.norm(x) if self.norm is not None else x``: each side sees the narrowed value.
            body, orelse = state.copy(), state.copy()
            self.refine_condition(frame, body, node.test, True)
            self.refine_condition(frame, orelse, node.test, False)
        return join_values(
            self.eval(frame, body, node.body), self.eval(frame, orelse, node.orelse), frame.widening(node)
        )

    def _eval_ellipsis(self, frame: Frame, state: State, node: cst.Ellipsis) -> Value:
        return ELLIPSIS

    def _eval_lambda(self, frame: Frame, state: State, node: cst.Lambda) -> Value:
        params = node.params
        defaults = {
            p.name.value: self.eval(frame, state, p.default)
            for p in (*params.posonly_params, *params.params, *params.kwonly_params)
            if p.default is not None
        }
        return LambdaV(node, frame.module, dict(state.vars), defaults)

    def _eval_named(self, frame: Frame, state: State, node: cst.NamedExpr) -> Value:
        named = self.eval(frame, state, node.value)
        self.assign(frame, state, node.target, named, node.value)
        return named

    # -- attributes ------------------------------------------------------------------------------
    def attribute(self, frame: Frame, state: State, recv: Value, name: str, node: cst.Attribute | None) -> Value:
        if isinstance(recv, OptionalV):
            recv = recv.inner  # ``None`` has no such attribute: the code runs only when it is not ``None``
        if isinstance(recv, ChoiceV):
            options = [self.attribute(frame, state, o, name, node) for o in recv.options]
            if all(isinstance(f, ReturnsSelfV) for f in options):
                return ReturnsSelfV(recv)  # ``drop.to(device)``: whichever option, itself
            return join_all(options)
        if isinstance(recv, ExternalV):
            q = recv.qualname
            if q == "torch" and name in DTYPES:
                return DTypeV(DTYPES[name])
            if q == "numpy" and name == "newaxis":
                return NONE
            if q == "numpy" and name in _NUMPY_CONSTANTS:
                return FloatV(_NUMPY_CONSTANTS[name])
            if name == "__name__" and canonical(q) in engine.table().classes:
                return StrV(canonical(q).rsplit(".", 1)[1])  # ``m.__class__.__name__`` of a torch layer
            return ExternalV(f"{q}.{name}")
        if name == "__class__" and isinstance(recv, InstanceV):
            return recv.cls
        if name == "__class__" and isinstance(recv, ModuleV):
            return ExternalV(recv.qualname)  # ``weights_init``'s ``m.__class__.__name__``
        if (
            isinstance(recv, (OpaqueV, UnknownV))
            and name in _TENSOR_PROPERTIES
            and not (isinstance(recv, OpaqueV) and "." in recv.path)
        ):
            # ``x.shape`` of an unannotated parameter: ``x`` is a tensor of unknown shape.
            recv = TensorV(Shape.unknown())
        fc = firstclass_attr(recv, name)
        if fc is not None:
            return fc
        if isinstance(recv, ParserV):
            return ParserMethodV(recv, name)
        if isinstance(recv, NamespaceV):
            return self.option(frame, recv, name)
        if isinstance(recv, AttrsV):
            found = recv.get(name)
            return found if found is not None else UnknownV()
        if isinstance(recv, PartialV) and name in ("func", "args", "keywords"):
            # A builder that unbinds a partial to bind it again (timm's ``get_norm_layer``).
            return {"func": recv.func, "args": TupleV(recv.args), "keywords": DictV(recv.kwargs)}[name]
        if isinstance(recv, (DictV, MapV)):
            return DictMethodV(recv, name)
        if isinstance(recv, StrV) and recv.value is not None and name in STR_METHODS:
            return StrMethodV(recv.value, name)
        if isinstance(recv, (TupleV, SeqV)) and recv.kind is not SeqKind.SIZE and name in SEQ_METHODS:
            return SeqMethodV(recv, name)
        if isinstance(recv, PackedV):
            # A ``PackedSequence``'s steps, and how many sequences are still running at each step.
            if name == "data":
                return recv.data
            if name == "batch_sizes":
                return TensorV(Shape((recv.longest,)), "int64")
            return UnknownV()
        if isinstance(recv, LoaderV):
            if name == "dataset":
                return recv.dataset
            if name == "batch_size":
                return IntV(recv.batch_size) if recv.batch_size is not None else NONE
            return UnknownV()
        if isinstance(recv, ArrayV):
            got = array_attribute(recv, name)
            return got if got is not None else ArrayMethodV(recv, name)
        if isinstance(recv, TENSORLIKE):
            arg = self.arg(frame, recv, node.value if node is not None else None)
            v = engine.tensor_attr(arg, name, frame.ctx, frame.ticket(node) if node is not None else None)
            if v is not None:
                return v
            return TensorMethodV(recv, name, arg)
        if isinstance(recv, InstanceV):
            name = looked_up_name(recv.cls, name)  # a ``__getattribute__`` renaming through ``attribute_map``
            if frame.building is recv:
                pending = state.vars.get(building_key(recv, name))
                if pending is not None:
                    return pending
                if name == "__dict__" and not recv.cls.is_module and recv.open_reason is None:
                    # ``self.__dict__.get(name)`` while building: the attributes set so far, all of them
                    # (a module keeps its children elsewhere; an open instance may have others).
                    return DictV(tuple(building_attrs(recv, state).items()))
            if name == TRAINING and recv.cls.is_module and node is not None and frame.module is self.checked:
                known = mode_of(recv) is not None and not recv.stale(name)
                self.mode_reads[id(node)] = self.mode_reads.get(id(node), False) or known
            if frame.building is not recv and recv.overwritten(name):
                # Written through another reference since this object was made: not the value here.
                why = "attribute written through another reference"
                if node is not None:
                    self.tally(f"cause:{why}", frame, node)
                return UnknownV(why=why)
            if name in recv.attrs:
                if frame.building is recv or not recv.stale(name):
                    return recv.attrs[name]
                return UnknownV(UnknownSource.JOIN)
            member = recv.cls.lookup(name)
            if isinstance(member, FunctionV):
                decos = {_deco(d) for d in member.node.decorators}
                if "property" in decos or "cached_property" in decos:
                    return self.call_user(frame, state, member, recv, [], {}, node)
                if "staticmethod" in decos:
                    return member
                if "classmethod" in decos:
                    return BoundMethodV(recv.cls, member)
                got = self.descriptor_get(frame, state, member, recv, node)
                return got if got is not None else BoundMethodV(recv, member)
            if member is not None and recv.open_reason is not None and not isinstance(member, (ClassV, PartialV)):
                # The instance may hold its own value (``BertConfig(hidden_size=64).hidden_size``): the
                # class-level default would be silently wrong.
                if node is not None:
                    self.tally(f"cause:{recv.open_reason}", frame, node)
                return UnknownV(why=recv.open_reason)
            if member is not None:
                return member
            if recv.cls.is_module and name == TRAINING:
                return BoolV(None)
            if recv.cls.is_module and name in MODULE_SELF_METHODS:
                return ReturnsSelfV(recv, name)
            if recv.cls.is_module and name == "children":
                return ChildrenV(recv)
            items = held_dict(recv)
            if items is not None and name in ITEM_READS | DICT_EDITS:
                # ``registry.get(name)`` of a dict subclass's instance: its items (an edit gives it new ones).
                return DictMethodV(items, name, recv)
            if name in MAPPING_MIXINS and mapping_base(recv.cls):
                mixin_items = self.mapping_items(frame, state, recv, node if node is not None else recv.cls.node)
                if mixin_items is not None:
                    return DictMethodV(mixin_items, name)
            built = as_container(recv)
            named_in = dict_container(built) if isinstance(built, ModuleV) else None
            if named_in is not None and name in DICT_METHODS and name != "get":
                return DictMethodV(named_in, name)  # ``self.items()`` of DenseNet's ``_DenseBlock``
            if isinstance(built, ModuleV):
                # ``self.out_channels`` / ``self.weight`` of a subclass of a torch layer: the layer's own.
                v = engine.module_attr(built, name, frame.ctx)
                if v is not None:
                    return v
            return UnknownV()
        if isinstance(recv, ModuleV):
            named_children = dict_container(recv)
            if named_children is not None:
                # ``self.transformer.wte`` of an ``nn.ModuleDict(dict(wte=...))``: the module stored there.
                child = named_children.get(name)
                if child is not None:
                    return child
                if name in DICT_METHODS and name != "get":  # a ``ModuleDict`` has no ``get``
                    return DictMethodV(named_children, name)
            child = named_child(recv, name)
            if child is not None:
                return child  # ``features.conv0`` of ``Sequential(OrderedDict(conv0=...))``
            v = engine.module_attr(recv, name, frame.ctx)
            if v is None and name in MODULE_SELF_METHODS:
                return ReturnsSelfV(recv, name)
            if v is None and name == "children":
                return ChildrenV(recv)
            return v if v is not None else UnknownV()
        if isinstance(recv, ModuleNsV):
            if modelled_by_stubs(f"{recv.info.name}.{name}"):
                return ExternalV(f"{recv.info.name}.{name}")  # ``torchvision.datasets``: the stubs'
            self.run_module(recv.info)
            v = self.module_global(recv.info, name)
            if v is not None:
                return v
            sub = self.project.import_module(f"{recv.info.name}.{name}")
            return ModuleNsV(sub) if sub is not None else UnknownV()
        if isinstance(recv, (FunctionV, ClassV)) and name == "__name__":
            return StrV(recv.node.name.value)  # ``_registry[fn.__name__] = fn`` in a registering decorator
        if isinstance(recv, (FunctionV, ClassV)) and name == "__module__" and recv.module.library:
            # ``sys.modules[fn.__module__]`` in a registering decorator: an installed package's module
            # is imported by its name (a project file may run as ``"__main__"``: not known); a class
            # body may set its own.
            own = recv.members.get(name) if isinstance(recv, ClassV) else None
            return own if own is not None else StrV(recv.module.name)
        if isinstance(recv, ClassV):
            member = recv.lookup(name)
            if isinstance(member, FunctionV) and "classmethod" in {_deco(d) for d in member.node.decorators}:
                return BoundMethodV(recv, member)  # ``Weights.verify(weights)``: ``cls`` is bound
            return member if member is not None else UnknownV()
        if isinstance(recv, OpaqueV):
            return OpaqueV(f"{recv.path}.{name}")
        if isinstance(recv, SuperV):
            cls = recv.cls
            if isinstance(cls, ClassV):
                for b in cls.bases:
                    if isinstance(b, ClassV):
                        made = generated_init(b) if name == "__init__" else None
                        if made is not None:
                            return DataclassInitV(recv.instance, made)
                        m = b.lookup(name)
                        if isinstance(m, FunctionV):
                            return BoundMethodV(recv.instance, m)
                holder = recv.instance
                building = isinstance(holder, InstanceV) and frame.building is holder
                items = (
                    held_dict(state.vars.get(building_key(holder, ITEMS)))
                    if building and isinstance(holder, InstanceV)
                    else held_dict(holder)
                )
                if items is not None and name in ITEM_READS and dict_base(cls):
                    # ``super().__getitem__(key)`` in a dict subclass (``ClassInstantier``): its items.
                    return DictMethodV(items, name)
                if items is not None and name in _ITEM_WRITES and dict_base(cls) and isinstance(holder, InstanceV):
                    # ``super().__setitem__(key, value)`` in a dict subclass's ``__setitem__``: the
                    # items of the instance with that entry (:meth:`~.calls.CallsMixin._call`).
                    return DictMethodV(items, name, holder)
                if name in MAPPING_MIXINS and isinstance(recv.instance, InstanceV) and mapping_base(cls):
                    # ``super().get(key, default)`` in a ``MutableMapping`` subclass: ``Mapping.get``.
                    at = node if node is not None else recv.instance.cls.node
                    mixin_items = self.mapping_items(frame, state, recv.instance, at)
                    if mixin_items is not None:
                        return DictMethodV(mixin_items, name)
                if name == "__setattr__" and object_setattr(cls):
                    # ``super().__setattr__(name, value)`` over ``object``'s (or a dict's): ``setattr``.
                    return PartialV(ExternalV("builtins.setattr"), (recv.instance,), ())
                if name == "__init__":
                    for b in cls.bases:
                        if isinstance(b, ExternalV) and is_torch_module_base(canonical(b.qualname)):
                            return ContainerInitV(recv.instance, canonical(b.qualname))
                if name == "forward":
                    # ``super().forward(x)`` in a subclass of a torch layer (``class CausalConv1d(nn.Conv1d)``):
                    # the layer its ``super().__init__`` built, called.
                    built = as_container(recv.instance)
                    if isinstance(built, ModuleV) and isinstance(recv.instance, InstanceV):
                        return built
            return UnknownV()
        return UnknownV()

    # -- operators ----------------------------------------------------------------------------------
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
    ) -> Value:
        if isinstance(left, ArrayV) or isinstance(right, ArrayV):
            return array_binop(frame.ctx, op, left, right)
        if isinstance(left, TENSORLIKE) or isinstance(right, TENSORLIKE):
            la, ra = self.arg(frame, left, lnode), self.arg(frame, right, rnode)
            if (
                not isinstance(left, TensorV)
                and op in ("-", "/", "//", "%", "**")
                and isinstance(la.value, (IntV, FloatV, BoolV))
            ):
                # ``2 - x``: the scalar broadcasts; only the shape matters.
                pass
            v = engine.binary_op(op, la, ra, frame.ctx, frame.ticket(node))
            if v is None:
                return UnknownV(UnknownSource.UNSUPPORTED)
            return contents.after_operator(frame, op, (left, right), v)
        if op == "%" and isinstance(left, StrV):
            return _percent_format(left, right)
        li, ri = self._int(frame, left), self._int(frame, right)
        # An unannotated parameter is an int only when combined with an int.
        if li is None and ri is not None and isinstance(left, OpaqueV) and _bare(left) and op in _INT_OPS:
            li = self.opaque_int(frame, left.path)
        if ri is None and li is not None and isinstance(right, OpaqueV) and _bare(right) and op in _INT_OPS:
            ri = self.opaque_int(frame, right.path)
        if li is not None and ri is not None:
            if op == "/":
                if type(li) is int and type(ri) is int and ri:
                    return FloatV(li / ri)
                if isinstance(li, Unknown) or isinstance(ri, Unknown) or ri == 0:
                    return FloatV(None)
                return RatioV(None, li, ri)
            fn = _INT_OPS.get(op)
            if fn is not None:
                out = frame.ctx.facts.simplify(fn(li, ri))
                # An unannotated parameter might be a tensor: keep the doubt.
                return (
                    MaybeIntV(out)
                    if _bare(left) or _bare(right) or isinstance(left, MaybeIntV) or isinstance(right, MaybeIntV)
                    else IntV(out)
                )
            return IntV(Unknown())
        if isinstance(left, (IntV, FloatV)) and isinstance(right, (IntV, FloatV)):
            lf, rf = _float(left), _float(right)
            if lf is not None and rf is not None:
                try:
                    return FloatV(float(_FLOAT_OPS[op](lf, rf)))
                except (KeyError, ZeroDivisionError, OverflowError, ValueError):
                    return FloatV(None)
            return FloatV(None)
        if op == "+" and isinstance(left, SeqV) and isinstance(left.elem, NothingV) and isinstance(right, TupleV):
            left = TupleV((), left.kind)  # ``layers = []`` then ``layers += [conv, nn.ReLU()]``: exact
        if isinstance(left, TupleV) and isinstance(right, TupleV) and op == "+":
            kind = left.kind if left.kind is not SeqKind.SIZE else SeqKind.SIZE
            if len(left.items) + len(right.items) > MAX_EXACT_ITEMS:
                both = left.items + right.items
                return self.beyond_exact_items(frame, node, both, kind, len(both))
            return TupleV(left.items + right.items, kind)
        if op == "+" and isinstance(left, (TupleV, SeqV)) and isinstance(right, (TupleV, SeqV)):
            elems = [e for s in (left, right) for e in (s.items if isinstance(s, TupleV) else (s.elem,))]
            # ``list(specials) + sorted(words)``: as many items as both, when both lengths are sizes.
            lengths = [len(s.items) if isinstance(s, TupleV) else s.length for s in (left, right)]
            length = None if None in lengths or any(isinstance(n, Unknown) for n in lengths) else arith.add(*lengths)
            # Its one element is the join of both sides' items: not each item's shape (``varied``).
            return SeqV(join_all(elems) if elems else UnknownV(), left.kind, length, True)
        if isinstance(left, TupleV) and op == "*" and isinstance(right, IntV) and type(right.value) is int:
            if left.items and len(left.items) * right.value > MAX_EXACT_ITEMS:  # ``[x] * 10**9``: never built
                return self.beyond_exact_items(
                    frame, node, left.items, left.kind, arith.mul(len(left.items), right.value)
                )
            return TupleV(left.items * max(right.value, 0), left.kind)
        if op == "*" and isinstance(right, (TupleV, SeqV)) and not isinstance(left, (TupleV, SeqV)):
            left, right = right, left  # ``n * [layer]``
        if op == "*" and isinstance(left, (TupleV, SeqV)) and left.kind is not SeqKind.SIZE:
            # ``[ResidualLayer(d)] * args.n_layers``: a list whose items are all like the ones repeated, of
            # ``len * n`` items when the count is a size (a symbol, or an int known only later).
            count = self._int(frame, right)
            if count is not None and isinstance(left, TupleV) and type(count) is int:
                return self.binop(frame, state, op, left, IntV(count), lnode, rnode, node)
            repeated: list[Value] = list(left.items) if isinstance(left, TupleV) else [left.elem]
            if not repeated:
                return TupleV((), left.kind)
            length = (
                arith.mul(len(left.items), count)
                if isinstance(left, TupleV) and count is not None and not isinstance(count, Unknown)
                else None
            )
            return SeqV(join_all(repeated), left.kind, length)
        if (
            op == "+"
            and isinstance(left, StrV)
            and isinstance(right, StrV)
            and left.value is not None
            and right.value is not None
            and len(left.value) + len(right.value) <= MAX_STR_CONCAT
        ):
            # ``'timm/' + name``: a registry key or a config value built from known parts.
            return StrV(left.value + right.value)
        if isinstance(left, StrV) or isinstance(right, StrV):
            return StrV(None)
        return UnknownV()

    def _int(self, frame: Frame, v: Value) -> Dim | None:
        if isinstance(v, IntV):
            return v.value
        if isinstance(v, BoolV) and v.value is not None:
            return int(v.value)
        if isinstance(v, OpaqueV) and "." in v.path:
            return self.opaque_int(frame, v.path)
        return None

    def unaryop(self, frame: Frame, state: State, node: cst.UnaryOperation) -> Value:
        v = self.eval(frame, state, node.expression)
        if type(node.operator) is cst.Not:
            return BoolV(truthiness(v, negate=True))
        if isinstance(v, TENSORLIKE):
            op = (
                "-"
                if type(node.operator) is cst.Minus
                else "~"
                if type(node.operator) is cst.BitInvert
                else "+"
            )
            r = engine.unary_op(op, self.arg(frame, v, node.expression), frame.ctx, frame.ticket(node))
            if r is None:
                return v
            return contents.after_operator(frame, "neg", (v,), r) if op == "-" else r
        if isinstance(v, ArrayV) and type(node.operator) is not cst.Not:
            return v
        if isinstance(v, IntV) and type(node.operator) is cst.Minus:
            return IntV(arith.neg(v.value))
        if isinstance(v, FloatV) and type(node.operator) is cst.Minus:
            return FloatV(None if v.value is None else -v.value)
        if type(node.operator) is cst.Plus:
            return v
        return UnknownV()

    def compare(self, frame: Frame, state: State, node: cst.Comparison) -> Value:
        left = self.eval(frame, state, node.left)
        result: Value = BoolV(True)
        left_node: cst.BaseExpression = node.left
        for target in node.comparisons:
            right = self.eval(frame, state, target.comparator)
            op = target.operator
            sym = _CMPOPS.get(type(op))
            if sym is not None and (isinstance(left, TENSORLIKE) or isinstance(right, TENSORLIKE)):
                v = engine.binary_op(
                    sym,
                    self.arg(frame, left, left_node),
                    self.arg(frame, right, target.comparator),
                    frame.ctx,
                    frame.ticket(node),
                )
                return v if v is not None else UnknownV()
            if (
                sym is not None
                and (_maybe_tensor(left) or _maybe_tensor(right))
                and not isinstance(op, (cst.Is, cst.IsNot))
            ):
                # ``mask > 0`` with an unannotated ``mask``: maybe a tensor of bools, not a bool.
                return UnknownV()
            if (
                isinstance(op, (cst.In, cst.NotIn))
                and isinstance(right, InstanceV)
                and right.cls.lookup("__contains__") is None
                and mapping_base(right.cls)
            ):
                # ``key in interface``: ``Mapping.__contains__``, a key its items have.
                right = self.mapping_items(frame, state, right, target.comparator) or right
            r = self._compare_values(frame, op, left, right)
            if (
                isinstance(op, (cst.In, cst.NotIn))
                and isinstance(right, InstanceV)
                and isinstance(right.cls.lookup("__contains__"), FunctionV)
            ):
                # ``type(config) in cls._model_mapping``: what the class's own ``__contains__`` says.
                contains = self.attribute(frame, state, right, "__contains__", None)
                said = self.call(frame, state, contains, [Arg(left, frame.ticket(left_node), None)], {}, node)
                if isinstance(said, BoolV) and said.value is not None:
                    r = BoolV(said.value is (type(op) is cst.In))
            if (
                isinstance(op, (cst.In, cst.NotIn))
                and isinstance(right, ExternalV)
                and right.qualname == "os.environ"
                and isinstance(left, StrV)
                and left.value is not None
            ):
                # ``"NAME" in os.environ``: the variable is taken as unset (see ``os.environ.get``).
                self.tally("environment-assumed", frame, target.comparator)
                r = BoolV(type(op) is cst.NotIn)
            if (
                isinstance(op, (cst.In, cst.NotIn))
                and isinstance(right, DictV)
                and r.value is None
                and self.fill_registry(frame, state, target.comparator, left)
            ):
                # ``name in _model_entrypoints`` before the module registering ``name`` was run.
                r = self._compare_values(frame, op, left, self.eval(frame, state, target.comparator))
            if isinstance(op, (cst.In, cst.NotIn)) and isinstance(right, DictV) and r.value is None:
                r = (
                    self._held_dict_lacks(frame, state, op, left, right, target.comparator)
                    or _private_dict_lacks(frame, state, op, left, right, target.comparator)
                    or self._unfilled_dict_lacks(frame, state, op, left, right, target.comparator)
                    or r
                )
            if isinstance(op, (cst.In, cst.NotIn)) and r.value is None:
                r = self._global_lacks(frame, state, op, left, right, target.comparator) or r
            if isinstance(result, BoolV) and isinstance(r, BoolV):
                if result.value is False or r.value is False:
                    result = BoolV(False)
                elif result.value is None or r.value is None:
                    result = BoolV(None)
            left, left_node = right, target.comparator
        return result

    def _held_dict_lacks(
        self, frame: Frame, state: State, op: cst.BaseCompOp, key: Value, d: DictV, node: cst.BaseExpression
    ) -> BoolV | None:
        """``key in self._local_mapping`` of an instance the program built (pinned) whose dict attribute
        only its own methods edit, read here as it is (not stale): a literal key it lacks is not in it.
        (A module-level dict may be filled by modules not run yet; such an attribute is written only
        where this analysis looks: by the instance's interpreted methods, which rebind it, or through
        a reference, which makes the others read it as unknown.)"""
        if not (isinstance(key, StrV) and key.value is not None and type(node) is cst.Attribute):
            return None
        if not isinstance(node.value, cst.Name):
            return None
        holder = state.vars.get(node.value.value)
        name = node.attr.value
        if not (
            isinstance(holder, InstanceV)
            and holder.pinned
            and holder.attrs.get(name) is d
            and not holder.stale(name)
            and not isinstance(d, AttrsV)
        ):
            return None
        return BoolV(type(op) is cst.NotIn)

    def descriptor_get(
        self, frame: Frame, state: State, member: FunctionV, recv: InstanceV, node: cst.Attribute | None
    ) -> Value | None:
        """``config.sub_configs`` of ``@classproperty def sub_configs(cls)``: a method decorated by a
        project subclass of ``property`` with its own ``__get__`` is what that ``__get__`` returns, the
        method its ``fget`` (``None``: no such decorator)."""
        if node is None:
            return None
        for d in member.node.decorators:
            if not isinstance(d.decorator, cst.Name):
                continue
            deco = self.module_global(member.module, d.decorator.value)
            if not (isinstance(deco, ClassV) and _property_class(deco)):
                continue
            holder = InstanceV(deco, {"fget": member, "fset": NONE, "fdel": NONE}, f"{deco.qualname}:{id(member.node)}")
            get = self.attribute(frame, state, holder, "__get__", None)
            span = frame.ticket(node)
            return self.call(frame, state, get, [Arg(recv, span, None), Arg(recv.cls, span, None)], {}, node)
        return None

    def _unfilled_dict_lacks(
        self, frame: Frame, state: State, op: cst.BaseCompOp, key: Value, d: DictV, node: cst.BaseExpression
    ) -> BoolV | None:
        """``key in self._extra_content`` of an instance of installed classes whose dict attribute
        nothing that may fill it has touched (:meth:`~tensorshape.infer.calls.Calls.never_filled`):
        a key it lacks is not in it, whatever the key (an empty dict has no class key either).  Code
        outside the package is taken not to fill it (counted: JSON summary ``registry_assumed``)."""
        if type(node) is not cst.Attribute or isinstance(d, AttrsV):
            return None
        if d.items and not (isinstance(key, StrV) and key.value is not None):
            return None  # (the entries are by string: a key of another kind is not compared with them)
        holder = self.eval(frame, state, node.value, observe=False)
        name = node.attr.value
        if not (isinstance(holder, InstanceV) and holder.attrs.get(name) is d and self.never_filled(holder, name)):
            return None
        self.stats["registry-assumed"] += 1
        return BoolV(type(op) is cst.NotIn)

    def _global_lacks(
        self, frame: Frame, state: State, op: cst.BaseCompOp, key: Value, held: Value, node: cst.BaseExpression
    ) -> BoolV | None:
        """``key in SPECIAL_MODEL_TYPE_TO_MODULE_NAME`` in a function of an installed package's module
        that has run, of a global dict or list that lacks the literal key, when nothing may have
        changed it but what the analysis followed: no function of the package that may has been
        reached, and the top-level edits are this module's own (:func:`~tensorshape.infer.writers.
        _global_sites`).  Code outside the package is taken not to edit it (counted: JSON summary
        ``registry_assumed``)."""
        if not (isinstance(node, cst.Name) and frame.function is not None and frame.module.library):
            return None
        info = frame.module
        if info.state != 2 or node.value in state.vars or info.globals.get(node.value) is not held:
            return None
        if not _lacks(held, key):
            return None
        root = self.package_folder(info)
        if root is None:
            return None
        writers = self.project.writers.writers(root, node.value, glob=True)
        if writers is None or writers & self.reached:
            return None
        here = str(Path(info.path).resolve())
        if any(f == TOP_LEVEL and path != here for path, f in writers):
            return None
        self.stats["registry-assumed"] += 1
        return BoolV(type(op) is cst.NotIn)

    def _compare_values(self, frame: Frame, op: cst.BaseCompOp, left: Value, right: Value) -> BoolV:
        if isinstance(op, (cst.Is, cst.IsNot)):
            known: bool | None = None
            if isinstance(right, NoneV):
                if isinstance(left, NoneV):
                    known = True
                elif isinstance(
                    left,
                    (
                        TensorV,
                        IntV,
                        BoolV,
                        ModuleV,
                        InstanceV,
                        TupleV,
                        SeqV,
                        DictV,
                        StrV,
                        FloatV,
                        FunctionV,
                        ClassV,
                        PartialV,
                    ),
                ) or (isinstance(left, ExternalV) and left.qualname.startswith("torch.")):
                    known = False  # ``norm_layer is not None`` of ``norm_layer=nn.BatchNorm2d``
            elif type(right) is BoolV and right.value is not None:
                # ``skip is False`` of ``skip = None`` (timm's block strings): ``True``/``False`` are
                # singletons, ``None`` neither.
                if isinstance(left, NoneV):
                    known = False
                elif type(left) is BoolV and left.value is not None:
                    known = left.value == right.value
            elif isinstance(left, ClassV) and isinstance(right, ClassV):
                # ``type(config) is BertConfig``: one class; two class statements are two classes (one
                # statement's class, made twice, is not decided).
                known = True if left is right else False if left.node is not right.node else None
            return BoolV(None if known is None else (known if type(op) is cst.Is else not known))
        li, ri = self._int(frame, left), self._int(frame, right)
        if li is not None and ri is not None:
            facts = frame.ctx.facts
            if isinstance(op, (cst.Equal, cst.NotEqual)):
                t = eq3(li, ri, facts)
                if t is Truth.UNKNOWN:
                    return BoolV(None)
                return BoolV((t is Truth.TRUE) == (type(op) is cst.Equal))
            fn = _ORDER.get(type(op))
            if type(li) is int and type(ri) is int and fn is not None:
                return BoolV(bool(fn(li, ri)))
            return BoolV(None)
        lf, rf = _float(left), _float(right)
        if lf is not None and rf is not None and (isinstance(left, FloatV) or isinstance(right, FloatV)):
            # ``new_v < 0.9 * v`` in a width rounding helper (MobileNet's ``_make_divisible``)
            fn = _ORDER.get(type(op)) or {cst.Equal: operator.eq, cst.NotEqual: operator.ne}.get(type(op))
            if fn is not None:
                return BoolV(bool(fn(lf, rf)))
        if isinstance(left, StrV) and isinstance(right, StrV) and left.value is not None and right.value is not None:
            if type(op) is cst.Equal:
                return BoolV(left.value == right.value)
            if type(op) is cst.NotEqual:
                return BoolV(left.value != right.value)
        if isinstance(left, TupleV) and isinstance(right, TupleV) and isinstance(op, (cst.Equal, cst.NotEqual)):
            if len(left.items) != len(right.items):
                return BoolV(type(op) is cst.NotEqual)
        if isinstance(op, (cst.Equal, cst.NotEqual)) and _never_equal(left, right):
            return BoolV(type(op) is cst.NotEqual)  # ``v == "M"`` of an int in a layer config
        if isinstance(op, (cst.In, cst.NotIn)):
            found = _contains(right, left)
            if found is not None:
                return BoolV(found == (type(op) is cst.In))
        return BoolV(None)

    def default_item(self, frame: Frame, state: State, holder: cst.BaseExpression, d: DefaultDictV, key: str) -> Value:
        """``out[model]`` of a ``defaultdict`` that lacks the key: ``factory()`` stored under it (the
        dict rebound where it was read from) and given; unknown, the dict too, when the factory's
        result or where the dict lives is not known."""
        made = self.call(frame, state, d.factory, [], {}, holder)
        if isinstance(made, UnknownV) or not isinstance(holder, (cst.Name, cst.Attribute)):
            self.replace_in(frame, state, holder, UnknownV())
            return UnknownV()
        updated = DefaultDictV((*d.items, (key, made)), d.factory)
        if isinstance(holder, cst.Name):
            self.store_dict(frame, state, holder.value, d, updated)  # (a global one stays global)
        else:
            self.replace_in(frame, state, holder, updated)
        return made

    def fill_registry(self, frame: Frame, state: State, holder: cst.BaseExpression, key: Value) -> bool:
        """A module-level dict read with a literal key it lacks (``_model_entrypoints["resnet18"]``,
        ``name in _model_entrypoints``): run the package's modules that define a decorated function
        or class of that name (``@register_model def resnet18``), not yet run, so their registering
        decorators fill the dict as importing them would.  Whether any was run: the read is then
        done again; what the dict holds is what running them put in it (the index of decorated
        names, :meth:`Project.decorated_in`, only says which modules to run)."""
        if not (isinstance(holder, cst.Name) and isinstance(key, StrV) and key.value):
            return False
        if frame.function is not None and holder.value in state.vars:
            return False  # a local dict: nothing registers into it
        if not isinstance(frame.module.globals.get(holder.value), DictV) or "." not in frame.module.name:
            return False
        ran = False
        for name in self.project.decorated_in(frame.module.name, key.value):
            info = self.project.import_module(name)
            if info is not None and not info.state:
                self.run_module(info)
                ran = True
        return ran

    def mapping_items(self, frame: Frame, state: State, inst: InstanceV, node: cst.CSTNode) -> DictV | None:
        """The items of an instance of a project subclass of an abstract ``Mapping``
        (:func:`~tensorshape.infer.values.mapping_base`), as its mixins see them: the keys its
        ``__iter__`` gives (a dict, or a list or tuple of literal strings), each with what its
        ``__getitem__`` returns for it.  ``None`` (counted) when the keys are not known."""
        keys = _literal_keys(
            self.call(frame, state, self.attribute(frame, state, inst, "__iter__", None), [], {}, node)
        )
        if keys is None or len(keys) > MAX_MAPPING_KEYS:
            self.tally("cause:mapping keys not known", frame, node)
            return None
        getitem = self.attribute(frame, state, inst, "__getitem__", None)
        return DictV(tuple((k, self.call(frame, state, getitem, [Arg(StrV(k))], {}, node)) for k in keys))

    # -- subscripts ------------------------------------------------------------------------------
    def subscript(self, frame: Frame, state: State, node: cst.Subscript) -> Value:
        if frame.learning is not None:
            self.learn_shape_index(frame, state, node)
        recv = self.eval(frame, state, node.value)
        if isinstance(recv, InstanceV) and recv.cls.lookup("__getitem__") is None:
            recv = held_dict(recv) or as_container(recv)
        index = self.index_value(frame, state, node)
        if isinstance(recv, InstanceV) and isinstance(recv.cls.lookup("__getitem__"), FunctionV):
            # ``dataset[i]`` of a project class: what its ``__getitem__`` returns for that index.
            # What the caller knows of the index holds in the body (``0 <= i`` and ``i + 1 <= len(ds)``
            # for ``i in range(len(ds))``), so a window ``data[i : i + k]`` is in range where that says so.
            getitem = self.attribute(frame, state, recv, "__getitem__", None)
            fn = getitem.function if isinstance(getitem, BoundMethodV) else None
            if isinstance(fn, FunctionV) and state.facts and isinstance(index, IntV) and free_symbols(index.value):
                self._entry_facts[id(fn.node)] = state.facts
            try:
                return self.call(frame, state, getitem, [Arg(index, frame.ticket(node), None)], {}, node)
            finally:
                if isinstance(fn, FunctionV):
                    self._entry_facts.pop(id(fn.node), None)
        if isinstance(recv, ArrayV):
            got = rule_on_arrays(frame.ctx, "torch.Tensor.__getitem__", [recv, index], {})
            scalar = IntV(Unknown(UnknownSource.DATA_DEPENDENT)) if (recv.dtype or "").startswith("int") else None
            return as_array(got, scalar)
        if isinstance(recv, (TensorV, LevelTensorV)):
            v = engine.getitem(
                self.arg(frame, recv, node.value), Arg(index, frame.ticket(node), None), frame.ctx, frame.ticket(node)
            )
            return v if v is not None else UnknownV()
        if isinstance(recv, TupleV):
            return _index_tuple(recv, index)
        if isinstance(recv, DictV):
            found = recv.get(index.value) if isinstance(index, StrV) and index.value is not None else None
            if not (isinstance(index, StrV) and index.value is not None):
                if isinstance(recv, DefaultDictV):
                    # A key not known, maybe stored by the read: the dict's keys are no longer known.
                    self.replace_in(frame, state, node.value, UnknownV())
                    return UnknownV()
                if is_registry(recv):
                    why = "registry read with a key that is not a literal"
                    self.tally(f"cause:{why}", frame, node)
                    return UnknownV(why=why)
            elif found is None and self.fill_registry(frame, state, node.value, index):
                return self.subscript(frame, state, node)  # the modules that register the key have run
            elif found is None and isinstance(recv, DefaultDictV):
                return self.default_item(frame, state, node.value, recv, index.value)
            elif found is None and is_registry(recv):
                why = "not followed: registry key not found"
                self.tally(f"cause:{why}", frame, node)
                return UnknownV(why=why)
            return found if found is not None else UnknownV()
        if isinstance(recv, MapV):
            return recv.value
        if isinstance(recv, OpaqueV) and isinstance(index, StrV) and index.value is not None:
            # ``cfg["d_model"]`` of an unknown config: one opaque size per key, as ``cfg.d_model``.
            return OpaqueV(f"{recv.path}.{index.value}")
        if isinstance(recv, SeqV) and recv.sizes is not None:
            return _index_sizes(recv, recv.sizes, index)
        if isinstance(recv, SeqV):
            if isinstance(index, SliceV):
                return SeqV(recv.elem, recv.kind, _sliced_length(frame, recv.length, index), recv.varied)
            return recv.elem
        if isinstance(recv, ModuleV) and recv.children:
            return _index_tuple(TupleV(recv.children), index)
        named_children = dict_container(recv) if isinstance(recv, ModuleV) else None
        if named_children is not None:
            found = named_children.get(index.value) if isinstance(index, StrV) and index.value is not None else None
            return found if found is not None else UnknownV()
        if isinstance(recv, ModuleV) and not isinstance(index, SliceV):
            repeated = repeated_child(recv)  # ``self.blocks[i]`` of a ModuleList of unknown length
            if repeated is not None:
                return repeated
        if isinstance(recv, ExternalV) and recv.qualname == "sys.modules":
            # ``sys.modules[fn.__module__]``: a project module imported (run, or running) so far;
            # any other key may be absent (``KeyError``) or external: not known.
            info = self.project.by_name.get(index.value) if isinstance(index, StrV) and index.value else None
            return ModuleNsV(info) if info is not None and info.state else UnknownV()
        if isinstance(recv, (ExternalV, AnnotationV)):
            return recv  # a generic alias such as List[int]
        return UnknownV()

    def index_value(self, frame: Frame, state: State, node: cst.Subscript) -> Value:
        parts: list[Value] = []
        for el in node.slice:
            s = el.slice
            if type(s) is cst.Index:
                v = self.eval(frame, state, s.value)
                if isinstance(v, OpaqueV):
                    v = MaybeIntV(self.opaque_int(frame, v.path)) if "." in v.path else UnknownV()
                parts.append(v)
            elif type(s) is cst.Slice:
                parts.append(
                    SliceV(
                        self._slice_part(frame, state, s.lower),
                        self._slice_part(frame, state, s.upper),
                        self._slice_part(frame, state, s.step),
                    )
                )
        if len(parts) == 1 and len(node.slice) == 1 and not _has_trailing_comma(node):
            return parts[0]
        return TupleV(tuple(parts), SeqKind.TUPLE)

    def _slice_part(self, frame: Frame, state: State, e: cst.BaseExpression | None) -> Value:
        if e is None:
            return NONE
        v = self.eval(frame, state, e)
        if isinstance(v, OpaqueV):
            return IntV(self.opaque_int(frame, v.path))
        return v

    # -- comprehensions ------------------------------------------------------------------------------
    def comprehension(self, frame: Frame, state: State, node: cst.ListComp | cst.GeneratorExp | cst.SetComp) -> Value:
        clauses = []
        f: cst.CompFor | None = node.for_in
        while f is not None:
            clauses.append(f)
            f = f.inner_for_in
        first = clauses[0]
        it = self.eval(frame, state, first.iter)
        items = self.iteration_items(frame, state, it, first.iter) or _filtered_items(it, first)
        kind = SeqKind.LIST
        if items is not None and len(clauses) == 1:
            kept = self._kept_items(frame, state, first, items)
            if kept is not None:
                return TupleV(tuple(self.eval(frame, s, node.elt) for s in kept), kind)
        s = state.copy()
        for c in clauses:
            cit = self.eval(frame, s, c.iter) if c is not first else it
            self.assign(frame, s, c.target, self.element_value(cit), None)
            for cond in c.ifs:
                self.eval(frame, s, cond.test, observe=False)
        # One element per item of a single unfiltered ``for``: ``[h(f) for h in self.heads]`` has as many
        # as the ``ModuleList``, ``[... for _ in range(n)]`` has ``n``; a list of scalars has some length.
        distinct = type(node) is cst.SetComp  # a set keeps only distinct elements
        length = iteration_length(it) if len(clauses) == 1 and not first.ifs and not distinct else None
        elem = self.eval(frame, s, node.elt)
        return SeqV(elem, kind, length if length is not None else built_length(elem, frame.ctx.fresh))

    def _kept_items(
        self, frame: Frame, state: State, clause: cst.CompFor, items: Sequence[Value]
    ) -> list[State] | None:
        """The state of each item of a known sequence that the clause's ``if``s keep (``None`` when
        one of them is not known for some item)."""
        kept = []
        for item in items:
            s = state.copy()
            self.assign(frame, s, clause.target, item, None)
            truths = [truthiness(self.eval(frame, s, cond.test, observe=False)) for cond in clause.ifs]
            if None in truths:
                return None
            if all(truths):
                kept.append(s)
        return kept

    def dict_comprehension(self, frame: Frame, state: State, node: cst.DictComp) -> Value:
        """``{k: v for k, v in kwargs.items() if v is not None}`` over a known sequence, with string
        keys and ``if``s known for each item: a dict with those keys.  Otherwise
        ``{ch: i for i, ch in enumerate(chars)}``, keys not known one by one: a :class:`MapV` whose
        values all look like the value expression (``stoi[c]`` is an int), unless they are functions
        or classes (a registry: which one a key reads matters)."""
        known = self._known_dict(frame, state, node)
        if known is not None:
            return known
        s = state.copy()
        f: cst.CompFor | None = node.for_in
        length = self._distinct_keys(frame, s, node)
        while f is not None:
            self.assign(frame, s, f.target, self.element_value(self.eval(frame, s, f.iter)), None)
            for cond in f.ifs:
                self.eval(frame, s, cond.test, observe=False)
            f = f.inner_for_in
        self.eval(frame, s, node.key)
        value = self.eval(frame, s, node.value)
        return UnknownV() if isinstance(value, (FunctionV, ClassV)) else MapV(value, length)

    def _distinct_keys(self, frame: Frame, state: State, node: cst.DictComp) -> Any:
        """How many keys ``{i: ... for i in range(n)}`` has (``n``: a range's items are distinct and
        the key is the item itself); ``None`` for any other comprehension."""
        f = node.for_in
        if f.inner_for_in is not None or f.ifs:
            return None
        if not (isinstance(f.target, cst.Name) and isinstance(node.key, cst.Name) and f.target.value == node.key.value):
            return None
        it = self.eval(frame, state, f.iter, observe=False)
        return it.length if isinstance(it, RangeV) else None

    def _known_dict(self, frame: Frame, state: State, node: cst.DictComp) -> DictV | None:
        f = node.for_in
        if f.inner_for_in is not None:
            return None
        it = self.eval(frame, state, f.iter)
        items = self.iteration_items(frame, state, it, f.iter) or _filtered_items(it, f)
        if items is None:
            return self._constant_dict(frame, state, node, it)
        kept = self._kept_items(frame, state, f, items)
        if kept is None:
            return None
        out: dict[str, Value] = {}
        for s in kept:
            key = self.eval(frame, s, node.key)
            if not (isinstance(key, StrV) and key.value is not None):
                return None
            out[key.value] = self.eval(frame, s, node.value)
        return DictV(tuple(out.items()))

    def _constant_dict(self, frame: Frame, state: State, node: cst.DictComp, it: Value) -> DictV | None:
        """``{v: k for k, v in NAMES.items()}`` over a known sequence longer than loops are unrolled,
        of constants (strings, numbers, tuples of them: transformers' 800-entry name tables), with no
        ``if``, and key and value each one of the target's names: the dict, computed item by item
        without running the comprehension as code.  Past :data:`MAX_CONSTANT_ITEMS` items it is not
        computed (counted as ``expression-bound``)."""
        f = node.for_in
        if f.ifs or not (isinstance(it, TupleV) and it.kind is not SeqKind.SET):
            return None
        names = _target_names(f.target)
        if names is None or not all(isinstance(e, cst.Name) and e.value in names for e in (node.key, node.value)):
            return None
        if len(it.items) > MAX_CONSTANT_ITEMS:
            self.stats["expression-bound"] += 1
            return None
        out: dict[str, Value] = {}
        for item in it.items:
            bound = _destructure(f.target, item)
            if bound is None:
                return None
            key = bound[node.key.value]  # type: ignore[attr-defined]
            if not (isinstance(key, StrV) and key.value is not None):
                return None
            out[key.value] = bound[node.value.value]  # type: ignore[attr-defined]
        return DictV(tuple(out.items()))


#: The most items of a sequence of constants a dict comprehension is computed over directly
#: (:meth:`Expressions._constant_dict`).
MAX_CONSTANT_ITEMS = 4096


def _target_names(t: cst.BaseExpression) -> set[str] | None:
    """The names a comprehension target of names and tuples of names binds (``None``: another target)."""
    if isinstance(t, cst.Name):
        return {t.value}
    if isinstance(t, (cst.Tuple, cst.List)) and all(type(e) is not cst.StarredElement for e in t.elements):
        out: set[str] = set()
        for e in t.elements:
            inner = _target_names(e.value)
            if inner is None:
                return None
            out |= inner
        return out
    return None


def _is_constant(v: Value) -> bool:
    """A string, number, bool or ``None`` known exactly, or a tuple of such."""
    if isinstance(v, StrV):
        return v.value is not None
    if isinstance(v, BoolV):
        return v.value is not None
    if isinstance(v, IntV):
        return type(v.value) is int
    if isinstance(v, FloatV):
        return v.value is not None
    if isinstance(v, NoneV):
        return True
    return isinstance(v, TupleV) and all(_is_constant(x) for x in v.items)


def _destructure(t: cst.BaseExpression, v: Value) -> dict[str, Value] | None:
    """What each name of a target of names and tuples binds when assigned the constant ``v``
    (``None``: not a constant, or a length that does not match: Python raises)."""
    if isinstance(t, cst.Name):
        return {t.value: v} if _is_constant(v) else None
    if isinstance(t, (cst.Tuple, cst.List)) and isinstance(v, TupleV) and len(v.items) == len(t.elements):
        out: dict[str, Value] = {}
        for e, x in zip(t.elements, v.items):
            inner = _destructure(e.value, x)
            if inner is None:
                return None
            out.update(inner)
        return out
    return None


#: How each kind of expression is evaluated (exact node types; anything else is unknown:
#: imaginary numbers, lambdas).
#: Expressions that run a torch op when their result is a tensor.
_TENSOR_OPS = frozenset({cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.Subscript})

_EVALUATORS: dict[type, Callable[[Expressions, Frame, State, Any], Value]] = {
    cst.Name: Expressions._eval_name,
    OpaqueCode: Expressions._eval_opaque,
    OpaqueSequence: Expressions._eval_opaque_sequence,
    cst.Attribute: Expressions._eval_attribute,
    cst.Call: Expressions._eval_call,
    cst.Integer: Expressions._eval_integer,
    cst.Float: Expressions._eval_float,
    cst.SimpleString: Expressions._eval_string,
    cst.ConcatenatedString: Expressions._eval_concatenated,
    cst.FormattedString: Expressions._eval_fstring,
    cst.BinaryOperation: Expressions._eval_binary,
    cst.UnaryOperation: Expressions.unaryop,
    cst.BooleanOperation: Expressions._eval_boolean,
    cst.Comparison: Expressions.compare,
    cst.Subscript: Expressions.subscript,
    cst.Tuple: Expressions._eval_sequence,
    cst.List: Expressions._eval_sequence,
    cst.Set: Expressions._eval_set,
    cst.Dict: Expressions._eval_dict,
    cst.IfExp: Expressions._eval_ifexp,
    cst.Ellipsis: Expressions._eval_ellipsis,
    cst.ListComp: Expressions.comprehension,
    cst.GeneratorExp: Expressions.comprehension,
    cst.SetComp: Expressions.comprehension,
    cst.DictComp: Expressions.dict_comprehension,
    cst.NamedExpr: Expressions._eval_named,
    cst.Lambda: Expressions._eval_lambda,
}


def _index_tuple(t: TupleV, index: Value) -> Value:
    if isinstance(index, IntV) and type(index.value) is int:
        i = index.value
        if -len(t.items) <= i < len(t.items):
            return t.items[i]
        return UnknownV()
    if isinstance(index, SliceV):
        parts: list[int | None] = []
        for p in (index.start, index.stop, index.step):
            if isinstance(p, NoneV):
                parts.append(None)
            elif isinstance(p, IntV) and type(p.value) is int:
                parts.append(p.value)
            else:
                return SeqV(UnknownV(), t.kind)
        return TupleV(t.items[slice(*parts)], t.kind)
    if t.items and isinstance(index, IntV):
        return join_all(list(t.items))
    return UnknownV()


def _has_trailing_comma(node: cst.Subscript) -> bool:
    return bool(node.slice) and node.slice[-1].comma is not cst.MaybeSentinel.DEFAULT


def _string(node: cst.SimpleString) -> str | None:
    """A string literal's value; plain literals without escapes skip ``literal_eval``."""
    raw = node.value
    if raw[:1] in ("'", '"') and "\\" not in raw:
        q = 3 if raw[:3] in ('"""', "'''") else 1
        return raw[q:-q]
    v = node.evaluated_value
    return v if isinstance(v, str) else None


#: Items of a known sequence a filtered comprehension is evaluated over one by one, at most (more
#: than a loop is unrolled over in general: timm's ``[n for n, c in default_cfgs.items() if ...]``
#: over 313 configurations); joined, the items kept would be a list of unknown length.
MAX_FILTERED_ITEMS = 512


def _filtered_items(it: Value, clause: cst.CompFor) -> list[Value] | None:
    """The items of a known list, tuple or dict view that a comprehension's ``if`` filters."""
    seq = as_container(it)
    if not clause.ifs or not isinstance(seq, TupleV) or seq.kind is SeqKind.SET:
        return None
    return list(seq.items) if len(seq.items) <= MAX_FILTERED_ITEMS else None


def _narrows(test: cst.BaseExpression) -> bool:
    """Is ``test`` a ``None`` or truth test of a name or attribute (what narrows an optional value)?"""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return _narrows(test.expression)
    if isinstance(test, (cst.Name, cst.Attribute)):
        return True
    return (
        type(test) is cst.Comparison
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot))
    )


#: Order comparisons of two known numbers.
_ORDER: dict[type, Callable[[Any, Any], bool]] = {
    cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le,
    cst.GreaterThan: operator.gt,
    cst.GreaterThanEqual: operator.ge,
}


def _never_equal(a: Value, b: Value) -> bool:
    """A string and a value certainly of another type (an int, a float, a tuple, ``None``) compare unequal."""
    for x, y in ((a, b), (b, a)):
        if isinstance(x, StrV) and type(y) in (IntV, FloatV, BoolV, TupleV, NoneV):
            return True
    return False


def _maybe_tensor(v: Value) -> bool:
    return isinstance(v, (UnknownV, MaybeIntV)) or _bare(v)


def _bare(v: Value) -> bool:
    return isinstance(v, OpaqueV) and "." not in v.path


def _float(v: Value) -> float | None:
    if isinstance(v, FloatV):
        return v.value
    if isinstance(v, IntV) and type(v.value) is int:
        return float(v.value)
    return None


def _property_class(cls: ClassV) -> bool:
    """A project subclass of ``property`` with a ``__get__`` of its own (transformers' ``classproperty``)."""
    return isinstance(cls.lookup("__get__"), FunctionV) and any(
        isinstance(b, ExternalV) and b.qualname == "builtins.property" for c in cls.lineage() for b in c.bases
    )


def _deco(d: cst.Decorator) -> str:
    e = d.decorator
    if type(e) is cst.Call:
        e = e.func
    if type(e) is cst.Attribute:
        return e.attr.value
    if isinstance(e, cst.Name):
        return e.value
    return ""


#: Sequences longer than this (a literal, ``[x] * n``) are not tracked item by item: one expression's
#: cost stays bounded (``torch.cat`` of a 100,000-item literal checked 100,000 tensors).
MAX_EXACT_ITEMS = 1_000
#: A string concatenation of known strings is computed up to this many characters (a longer one, a
#: string grown in a loop, is a string of unknown value).
MAX_STR_CONCAT = 10_000
#: Of such a sequence, the most distinct item values joined into the look of every item.
MAX_JOINED_ITEMS = 64

#: numpy's constants (``np.pi * 2``).
_NUMPY_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan}

_INT_OPS = {
    "+": arith.add,
    "-": arith.sub,
    "*": arith.mul,
    "//": arith.floordiv,
    "%": arith.mod,
    "**": arith.dpow,
}

_FLOAT_OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "**": lambda a, b: a**b,
}

_UNUSED = (EllipsisV, RangeV)

#: Values whose join costs the same whatever they hold (a long literal of numbers joins them all).
_SCALARS = frozenset({IntV, FloatV, BoolV, StrV, NoneV})

#: Methods of a dict with known keys (and of an ``nn.ModuleDict``) that the interpreter follows.
DICT_METHODS = frozenset({"items", "values", "keys", "get"})

#: Methods that read a dict subclass's items (:data:`~.values.ITEMS`).
ITEM_READS = DICT_METHODS | {"__getitem__", "copy"}
#: The dict's own item writes a subclass calls through ``super()``.
_ITEM_WRITES = frozenset({"__setitem__", "__delitem__"})

#: Attributes that only tensors have: reading one from an unknown value makes it a tensor.
_TENSOR_PROPERTIES = frozenset({"shape", "ndim", "mT", "T", "dtype", "device"})


def _literal(v: Value) -> object:
    """The Python value of a literal (a known str, int or bool; ``None``), else ``_NO_LITERAL``."""
    if isinstance(v, NoneV):
        return None
    if isinstance(v, StrV) and v.value is not None:
        return v.value
    if isinstance(v, BoolV) and v.value is not None:
        return v.value
    if isinstance(v, IntV) and not isinstance(v, MaybeIntV) and type(v.value) is int:
        return v.value
    return _NO_LITERAL


_NO_LITERAL = object()


#: The keys a mapping's mixins read one by one, at most (``AttentionInterface`` has about ten).
MAX_MAPPING_KEYS = 64
#: ``Mapping``'s mixin methods that read its items (``__contains__`` is ``in``).
MAPPING_MIXINS = frozenset({"get", "keys", "items", "values"})


def _literal_keys(v: Value) -> list[str] | None:
    """The keys an ``__iter__`` gives, when it is a dict or a sequence of literal strings."""
    if isinstance(v, DictV) and not isinstance(v, AttrsV):
        return [k for k, _ in v.items]
    if (
        isinstance(v, TupleV)
        and v.kind is not SeqKind.SET  # a set's order is not its display's
        and all(isinstance(x, StrV) and x.value is not None for x in v.items)
    ):
        return [x.value for x in v.items if isinstance(x, StrV) and x.value is not None]
    return None


def _private_dict_lacks(
    frame: Frame, state: State, op: cst.BaseCompOp, key: Value, d: DictV, node: cst.BaseExpression
) -> BoolV | None:
    """``'n' in options`` of a dict the running function built and kept to itself
    (:func:`~tensorshape.infer.syntax.private_dicts`): a literal key it lacks is not in it (no other
    code can have added one); ``None`` otherwise (a module's dict may be a registry other modules
    fill, a dict given away may be filled where the analysis does not look)."""
    if frame.function is None or not isinstance(node, cst.Name) or isinstance(d, AttrsV):
        return None
    if not (isinstance(key, StrV) and key.value is not None):
        return None
    if state.vars.get(node.value) is not d or node.value not in private_dicts(frame.function.node):
        return None
    return BoolV(type(op) is cst.NotIn)


def _lacks(container: Value, key: Value) -> bool:
    """Does a dict or list of known entries certainly lack ``key`` (a literal)?"""
    if isinstance(container, DictV) and not isinstance(container, AttrsV):
        return isinstance(key, StrV) and key.value is not None and not container.has(key.value)
    if isinstance(container, SeqV) and container.kind is SeqKind.LIST:
        return isinstance(container.elem, NothingV)  # ``DEPRECATED_MODELS = []``
    return isinstance(container, TupleV) and container.kind is SeqKind.LIST and _contains(container, key) is False


def _contains(container: Value, item: Value) -> bool | None:
    """``item in container`` when both are known: a substring of a known string (``'deep' in
    stem_type``), a key a dict has, a literal among a tuple's literals (``stride in (8, 16,
    32)``); ``None`` otherwise."""
    if isinstance(container, StrV) and container.value is not None:
        return item.value in container.value if isinstance(item, StrV) and item.value is not None else None
    if isinstance(container, DictV) and not isinstance(container, AttrsV):
        # A key that is there; one that is not may be added where the analysis does not look (a
        # registry that other modules fill): unknown, never a path wrongly cut.
        found = isinstance(item, StrV) and item.value is not None and container.has(item.value)
        return True if found else None
    if isinstance(container, DirV):
        # A name the stubs model is there (one they do not may be there too: not decided).
        known = isinstance(item, StrV) and item.value is not None and bool(
            engine.table().lookup(f"{container.qualname}.{item.value}")
        )
        return True if known else None
    if isinstance(container, TupleV) and container.kind is not SeqKind.SIZE:
        wanted = _literal(item)
        items = [_literal(x) for x in container.items]
        if wanted is _NO_LITERAL or any(x is _NO_LITERAL for x in items):
            return None
        return wanted in items
    return None


def _index_sizes(recv: SeqV, sizes: Shape, index: Value) -> Value:
    """``x.shape[i]`` or ``x.shape[a:b]`` of a tensor of unknown rank: the dim, or the slice as sizes
    holding the run (``[b *s c]``'s ``[:-1]`` is ``[b *s]``), where the bounds fall outside the run."""
    if isinstance(index, IntV) and type(index.value) is int:
        d = sizes.dim(index.value)
        return IntV(d) if d is not None else recv.elem
    if not isinstance(index, SliceV) or not isinstance(index.step, NoneV):
        return recv.elem if not isinstance(index, SliceV) else SeqV(recv.elem, recv.kind)
    start, stop = _bound(index.start), _bound(index.stop)
    part = sizes.sliced(start, stop) if start is not False and stop is not False else None
    if part is None:
        return SeqV(recv.elem, recv.kind, sizes=Shape.unknown())  # some run of the sizes
    if part.rank is not None:
        return TupleV(tuple(IntV(d) for d in part.dims), recv.kind)
    return SeqV(recv.elem, recv.kind, sizes=part)


def _sizes_with_run(items: Sequence[Value], kind: SeqKind) -> Value:
    """A sequence of sizes holding a run of unknown length: its sizes as a shape holding the run
    (what ``view``, ``reshape``, ``expand`` and the creation ops read), where every other item is
    an int; else a sequence of unknown length."""
    dims: list[Item] = []
    for v in items:
        if isinstance(v, RunV):
            dims.extend(v.sizes.items)
        elif isinstance(v, IntV):
            dims.append(v.value)
        else:
            return SeqV(UnknownV(), kind)
    return SeqV(IntV(Unknown(UnknownSource.UNANNOTATED)), kind, sizes=Shape(tuple(dims)))


def _bound(v: Value) -> int | None | bool:
    """A slice bound: a known int, ``None`` when absent, ``False`` when not known."""
    if isinstance(v, NoneV):
        return None
    return v.value if isinstance(v, IntV) and type(v.value) is int else False


def _sliced_length(frame: Frame, n: Dim | None, index: SliceV) -> Dim | None:
    """The length of ``xs[:-k]``, ``xs[k:]`` or ``xs[:k]`` (``k`` a known int) of a list of ``n`` items,
    where the facts prove ``k <= n`` (Python clamps a slice: beyond that it is shorter); else unknown."""
    if n is None or isinstance(n, Unknown) or not isinstance(index.step, NoneV):
        return None
    start = index.start.value if isinstance(index.start, IntV) else None if isinstance(index.start, NoneV) else ...
    stop = index.stop.value if isinstance(index.stop, IntV) else None if isinstance(index.stop, NoneV) else ...
    if start is None and type(stop) is int:
        k = -stop if stop < 0 else stop
        if le3(k, n, frame.ctx.facts) is not Truth.TRUE:
            return None
        return arith.sub(n, k) if stop < 0 else k
    if stop is None and type(start) is int and start >= 0 and le3(start, n, frame.ctx.facts) is Truth.TRUE:
        return arith.sub(n, start)
    return None


def _percent_format(fmt: StrV, args: Value) -> StrV:
    """``"denseblock%d" % (i + 1)``: the string, when the format and every argument are known
    (numbers, strings); a string not known otherwise."""
    items = args.items if isinstance(args, TupleV) and args.kind is SeqKind.TUPLE else (args,)
    values: list[object] = []
    for v in items:
        if type(v) in (IntV, FloatV, BoolV, StrV) and type(getattr(v, "value", None)) in (int, float, bool, str):
            values.append(v.value)  # type: ignore[attr-defined]
        else:
            return StrV(None)
    if fmt.value is None:
        return StrV(None)
    try:
        return StrV(fmt.value % tuple(values))
    except (TypeError, ValueError, KeyError, OverflowError):
        return StrV(None)
