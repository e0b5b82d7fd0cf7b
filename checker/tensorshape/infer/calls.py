"""Calls: torch ops through the rule engine, builtins, the project's functions and classes."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import libcst as cst

from ..lang.render import describe_value as _describe
from ..model import codes
from ..model.diagnostics import Diagnostic, Severity, Span
from ..model.dims import Dim, Unknown, UnknownSource
from ..model.firstclass import DimV, LevelTensorV
from ..model.shape import Shape
from ..model.values import (
    NONE,
    BoolV,
    DatasetV,
    DictV,
    DTypeV,
    FloatV,
    IntV,
    LoaderV,
    MaybeIntV,
    ModuleV,
    NoneV,
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
from ..rules import engine, levels, signature
from ..rules.context import Arg
from ..rules.names import canonical
from ..rules.signature import param_ref
from ..unify import arith
from ..unify.compare import Truth, eq3
from ..unify.facts import NO_FACTS
from ..unify.match import Bindings, instantiate
from . import contents
from .annotations import Annotation
from .arrays import Apply, call_array_method, call_numpy, rule_on_arrays
from .base import MAX_BUILD_DEPTH, MAX_LIBRARY_DEPTH, WITH_CALLER, AnalyzerBase, Frame
from .configs import NAMESPACE_CLASSES, call_dict_method, carried_params, edited_params, namespace
from .draws import MAX_DRAWN_LIST, draw, randint_bounds, random_bounds
from .firstclass import render_levels
from .foreign import opaque_names
from .options import PARSER_CLASSES, call_parser_method
from .project import ModuleInfo
from .state import (
    State,
    built_length,
    container_items,
    dict_container,
    is_list_container,
    iteration_length,
    join_all,
    join_states,
    join_values,
    with_items,
)
from .strings import RE_FUNCTIONS, SeqMethodV, StrMethodV, call_re, call_seq_method, call_str_method
from .summaries import assigned_attrs
from .syntax import CHILD_REGISTRATIONS, NAMING_CALLS, by_function_body, simple_text
from .values import (
    CONTAINER,
    DYNAMIC_ATTRS,
    ITEMS,
    MODULE_BASES,
    NN_MODULE_NAMES,
    NN_MODULE_PRIVATE_NAMES,
    SETTER,
    TRAINING,
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
    FieldFactoryV,
    FunctionV,
    InstanceV,
    LambdaV,
    LazyImportV,
    MapV,
    ModuleNsV,
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
    building_prefix,
    container_with_child,
    copied,
    dict_base,
    dict_items,
    dict_of_pairs,
    generated_init,
    has_attribute,
    held_dict,
    is_torch_module_base,
    lacks_attribute,
    last_write,
    looked_up_name,
    mentions,
    module_children,
    opaque_setattr,
    plain_module_class,
    reads_dict_only,
    stamp,
    stored_name,
    submodules,
    truthiness,
    unseen_constructor,
    with_attr,
    with_mode,
)
from .writers import function_key

if TYPE_CHECKING:
    from .signature import Signature

__all__ = ["Calls", "canonical"]

#: Members of a class through which attributes are given or looked up other than as written.
_ATTRIBUTE_HOOKS = ("__getattr__", "__getattribute__", "__setattr__", "__delattr__", "__dict__", "__slots__")

#: Torch functions that make a tensor of a numpy array's shape.
_FROM_ARRAY = frozenset({"torch.from_numpy", "torch.tensor", "torch.as_tensor", "torch.asarray", "torch.Tensor"})

_CONTEXT_MANAGERS = {
    "torch.no_grad",
    "torch.inference_mode",
    "torch.enable_grad",
    "torch.set_grad_enabled",
    "torch.autocast",
    "torch.cuda.amp.autocast",
    "torch.amp.autocast",
}


#: The attributes every class object has, from ``type`` (``hasattr(cls, "__name__")`` is true).
CLASS_ATTRIBUTES = frozenset({"__name__", "__qualname__", "__module__", "__dict__", "__mro__", "__bases__", "__base__"})
#: The most modules ``model.apply(fn)`` gives to ``fn`` (a deeper model: the rest are counted).
_MAX_APPLIED = 256
#: Values :meth:`Calls.escape` walks through at most (beyond it, every module is taken as escaped).
_MAX_ESCAPED = 4096


#: The keywords the generated ``__init__`` of a dataclass passes to ``__post_init__``: none.
_NO_KEYWORDS = DictV(())


class Calls(AnalyzerBase):
    """Mixin of :class:`~tensorshape.infer.analyzer.Analyzer`: calls."""

    def core_arg(self, frame: Frame, a: Arg) -> Arg:
        v = a.value
        if isinstance(v, OpaqueV):
            v = MaybeIntV(self.opaque_int(frame, v.path)) if "." in v.path else UnknownV()
        elif isinstance(v, RangeV):
            v = SeqV(IntV(Unknown()), SeqKind.LIST)
        elif isinstance(v, OptionalV):
            v = UnknownV(UnknownSource.JOIN)
        return Arg(v, a.span, a.text) if v is not a.value else a

    def eval_call(self, frame: Frame, state: State, node: cst.Call) -> Value:
        f = node.func
        if type(f) is cst.Attribute and f.attr.value in _DEQUE_EDITS:
            edited = self.edit_deque(frame, state, f.value, f.attr.value, node)
            if edited is not None:
                return edited
        if type(f) is cst.Attribute and f.attr.value in ("append", "extend", "insert", "pop"):
            mutated = self.mutate_list(frame, state, f.value, f.attr.value, node)
            if mutated is not None:
                self.may_raise += 1  # (``pop`` of an empty list raises)
                return mutated
        if type(f) is cst.Attribute and f.attr.value in _SEQUENCE_EDITS and isinstance(f.value, cst.Name):
            held = state.vars.get(f.value.value)
            added = _added_literal(held, f.attr.value, node, lambda e: self.eval(frame, state, e))
            if added is not None:
                state.vars[f.value.value] = added
                return NONE
            if isinstance(held, TupleV) and held.kind in (SeqKind.LIST, SeqKind.SET, SeqKind.DEQUE):
                # An edit not followed item by item (``names.remove(k)``, ``seen.add(k)``): the list or
                # set keeps what it may hold, never its old items as if unchanged.
                state.vars[f.value.value] = _after_edit(held, f.attr.value)
        func = self.eval(frame, state, node.func, observe=False)
        args: list[Arg] = []
        kwargs: dict[str, Arg] = {}
        opaque = False
        # ``**m`` of a dict that is one of a few of known keys (:attr:`MapV.options`): its options.
        spread: list[dict[str, Arg]] | None = None
        for a in node.args:
            v = self.eval(frame, state, a.value)
            if a.star == "*":
                if isinstance(v, TupleV):
                    args.extend(Arg(item, frame.ticket(a.value), None) for item in v.items)
                elif isinstance(v, SeqV) and len(node.args) == 1 and _is_sequential(func):
                    args.append(Arg(v, frame.ticket(a.value), None))  # ``Sequential(*blocks)``: repeated blocks
                elif isinstance(v, SeqV) and len(node.args) == 1 and _is_builtin(func, "zip"):
                    return _transpose(v)  # ``seqs, labels = zip(*batch)`` in a collate function
                elif isinstance(v, SeqV) and v.sizes is not None and _takes_size_run(func):
                    args.append(Arg(RunV(v.sizes), frame.ticket(a.value), None))  # ``*x.shape[:-1]``
                else:
                    opaque = True
            elif a.star == "**" and isinstance(v, DictV):
                # ``**kwargs`` passed through a builder: the keywords it holds, each once.
                for k, item in v.items:
                    if k in kwargs:
                        opaque = True
                    kwargs[k] = Arg(item, frame.ticket(a.value), None)
            elif a.star == "**" and isinstance(v, MapV) and v.options is not None and spread is None:
                at = frame.ticket(a.value)
                spread = [{k: Arg(v.value, at, None) for k in keys} for keys in v.options]
            elif a.star == "**":
                opaque = True
            elif a.keyword is not None:
                kwargs[a.keyword.value] = Arg(v, frame.ticket(a.value), simple_text(a.value))
            else:
                args.append(Arg(v, frame.ticket(a.value), simple_text(a.value)))
        if spread is not None and not (
            isinstance(func, ExternalV)
            and all(k not in kwargs for d in spread for k in d)
            and not (type(f) is cst.Attribute and f.attr.value in (*NAMING_CALLS, *CHILD_REGISTRATIONS))
        ):
            opaque = True  # (an interpreted callee, a registration, or a keyword given twice)
            spread = None
        if _is_reveal(func, node):
            return self.reveal(frame, args, node)
        registered = _registered_attr(f, func, args, kwargs)
        if registered is None and type(f) is cst.Attribute and f.attr.value in NAMING_CALLS:
            # ``m.register_buffer(key, t)``: some attribute, of a name not known (or a registration
            # not modelled).
            self.wrote_unnamed(self.eval(frame, state, f.value, observe=False))
        if registered is not None or opaque or (type(f) is cst.Attribute and f.attr.value in CHILD_REGISTRATIONS):
            self.may_raise += 1  # a call not run through :meth:`call`
        if registered is not None and type(f) is cst.Attribute:
            # ``self.register_buffer("tril", torch.tril(...))``: as ``self.tril = ...``.
            self.assign_attr(frame, state, f.value, registered[0], registered[1], node, False)
            return NONE
        if type(f) is cst.Attribute and f.attr.value in CHILD_REGISTRATIONS:
            recv = self.eval(frame, state, f.value, observe=False)
            # A child registered under a name not known (DenseNet's ``"denselayer%d" % (i + 1)`` in
            # a loop not unrolled): which child it replaces, or where it goes, is not known.
            if isinstance(recv, ModuleV) and container_with_child(recv, "?", UnknownV()) is not None:
                self.tally("cause:add_module with a name not known", frame, node)
                self.replace_in(frame, state, f.value, UnknownV())
                return NONE
            if isinstance(recv, InstanceV) and frame.building is recv:
                key = building_key(recv, CONTAINER)
                if isinstance(state.vars.get(key), ModuleV):
                    self.tally("cause:add_module with a name not known", frame, node)
                    state.vars[key] = UnknownV()
                    return NONE
            elif isinstance(recv, InstanceV) and isinstance(recv.attrs.get(CONTAINER), ModuleV):
                self.tally("cause:add_module with a name not known", frame, node)
                self.replace_in(frame, state, f.value, with_attr(recv, CONTAINER, UnknownV()))
                return NONE
        if opaque:
            if isinstance(func, (FunctionV, BoundMethodV, ClassV)):
                # ``model_cls(**kwargs)`` of a dict whose keys are not known: counted, never run with
                # arguments it may not get.
                why = "not followed: `*`/`**` arguments not known"
                self.tally(f"cause:{why}", frame, node)
                return UnknownV(why=why)
            # A torch op (or another external) given ``**kwargs`` whose keys are not known
            # (transformers' ``sdpa_attention_forward``'s ``**sdpa_kwargs`` after a ``hasattr`` not
            # decided): counted, so the unknown result has a stated cause.
            self.tally("cause:`*`/`**` arguments not known", frame, node)
            return UnknownV(UnknownSource.UNSUPPORTED)
        self._edits = None
        given = kwargs
        if spread is not None:
            # Every keyword some option passes, for what the call does to its arguments.
            kwargs = {**kwargs, **{k: a for d in spread for k, a in d.items()}}
        args, kwargs = contents.before_call(frame, state, func, args, kwargs)

        def one(kw: dict[str, Arg]) -> Value:
            result = self.call(frame, state, func, args, kw, node)
            result = self.drawn_value(frame, state, func, args, kw, node, result)
            return contents.after_call(frame, state, func, args, kw, result)

        if spread is not None:
            # ``f(**m)`` of a dict that is one of a few: the call with each (as a :class:`ChoiceV`'s).
            passed = [{k: kwargs[k] for k in (*given, *d)} for d in spread]
            # What a call requires of the sizes holds only on its own path: none of it is kept.
            ctx = frame.ctx
            marks = (len(ctx.learned), len(ctx.constraints), len(ctx.obligations), len(ctx.runs_fixed))
            result = self.call_each(frame, [functools.partial(one, kw) for kw in passed])
            del ctx.learned[marks[0] :], ctx.constraints[marks[1] :], ctx.obligations[marks[2] :]
            del ctx.runs_fixed[marks[3] :]
        else:
            result = one(kwargs)
        if not isinstance(func, (FunctionV, BoundMethodV, ClassV, PartialV)) and not any(
            _is_builtin(func, b) for b in _INSPECTING
        ):
            # Not interpreted here (an interpreted callee rebinds what it runs a method on, and unpins
            # the object it read: :meth:`rebind_receiver`).
            self.unpin_arguments(frame, state, [a.value for a in (*args, *kwargs.values())])
            if not _leaves_attributes(func):
                self.escape([a.value for a in (*args, *kwargs.values())])
            if _is_builtin(func, "delattr") and len(args) == 2:
                gone = args[1].value
                if isinstance(gone, StrV) and gone.value is not None:
                    self._written_attrs.add(gone.value)
                else:
                    self.wrote_unnamed(args[0].value)
        self.forget_edited_configs(state, func, node)
        return result

    def drawn_value(
        self,
        frame: Frame,
        state: State,
        func: Value,
        args: Sequence[Arg],
        kwargs: Mapping[str, Arg],
        node: cst.Call,
        result: Value,
    ) -> Value:
        """Ints drawn in a known range (``infer/draws.py``): a ``torch.randint`` call's range is kept
        by node; ``int(t)``, ``t.item()`` and ``t.tolist()`` of such a call read fresh ints with the
        facts that bound them (a crop at ``i = int(torch.randint(0, h - size + 1, (1,)))`` keeps its
        ``size``)."""
        if isinstance(func, ExternalV) and canonical(func.qualname) == "torch.randint":
            bounds = randint_bounds(args, kwargs, lambda a: self._int(frame, a.value))
            if bounds is not None and isinstance(result, TensorV):
                frame.drawn[id(node)] = bounds
            else:
                frame.drawn.pop(id(node), None)
            return result
        source: cst.BaseExpression | None = None
        if _is_builtin(func, "int") and len(node.args) == 1 and not kwargs:
            source = node.args[0].value
        elif isinstance(func, TensorMethodV) and func.name in ("item", "tolist") and not args and not kwargs:
            assert type(node.func) is cst.Attribute
            source = node.func.value
        bounds = frame.drawn.get(id(source)) if type(source) is cst.Call else None
        if bounds is None:
            return result
        tensor = func.receiver if isinstance(func, TensorMethodV) else args[0].value
        if not isinstance(tensor, TensorV):
            return result
        if isinstance(func, TensorMethodV) and func.name == "tolist":
            n = tensor.shape.dims[0] if tensor.shape.rank == 1 else None
            if type(n) is not int or not 0 <= n <= MAX_DRAWN_LIST:
                return result
            items: list[Value] = []
            for _ in range(n):
                i, state.facts = draw(frame.ctx.fresh, state.facts, bounds)
                items.append(IntV(i))
            return TupleV(tuple(items), SeqKind.LIST)
        i, state.facts = draw(frame.ctx.fresh, state.facts, bounds)
        return IntV(i)

    def forget_edited_configs(self, state: State, func: Value, node: cst.Call) -> None:
        """A dict or namespace passed to a project function that edits its parameters in place is
        unknown after the call (its edits are not carried back): a stale size would be a false error."""
        passed = [
            a.value.value
            for a in node.args
            if isinstance(a.value, cst.Name)
            and (
                isinstance(held_dict(state.vars.get(a.value.value)), DictV)
                or _ran_setters(state.vars.get(a.value.value))
                or _known_items(state.vars.get(a.value.value))
            )
        ]
        if not passed:
            return  # asked first: the callee's body (maybe not loaded yet) is read only when it matters
        f: Value | None = func.function if isinstance(func, BoundMethodV) else func
        if isinstance(f, ClassV):
            f = f.lookup("__init__")
        if not isinstance(f, FunctionV) or not edited_params(f.node):
            return
        carried = self._carried_back(f, isinstance(func, BoundMethodV), node)
        for name in passed:
            held = state.vars[name]
            if type(held) is DictV and isinstance(carried.get(name), (DictV, MapV)):
                # Interpreted with this dict: the caller's dict is the callee's parameter on its way out.
                state.vars[name] = carried[name]
                continue
            if isinstance(held, TupleV) and _known_items(held):
                # A list or set: as the callee left it, or (not interpreted) holding what it may hold.
                after = carried.get(name)
                ok = isinstance(after, (TupleV, SeqV)) and after.kind is held.kind
                state.vars[name] = after if ok and after is not None else _after_edit(held, "extend")
                continue
            if _ran_setters(held) and isinstance(held, InstanceV):
                # ``widen(config)`` may write a property: what its setter assigns is not known after.
                kept = {m for m in held.setup if not m.endswith(SETTER)}
                held = InstanceV(
                    held.cls, dict(held.attrs), f"{held.key}-setters", kept, held.open_reason, **held.copy_of()
                )
                if held_dict(held) is None:
                    state.vars[name] = held
                    continue
            state.vars[name] = with_attr(held, ITEMS, UnknownV()) if isinstance(held, InstanceV) else UnknownV()

    def _carried_back(self, f: FunctionV, bound_method: bool, node: cst.Call) -> dict[str, Value]:
        """The caller's variables passed (by name) to parameters the call just interpreted edited in
        place and never rebound: each as the callee left it (empty when the call was not interpreted,
        or where the argument list cannot be matched to the parameters: a ``*args`` before it)."""
        if self._edits is None or self._edits[0] is not f.node or not self._edits[1]:
            return {}
        params = [p for p in self.signature(f).params]
        if bound_method and params:
            params = params[1:]
        positional = [p.name for p in params if p.kind not in ("var_positional", "var_keyword", "keyword_only")]
        out: dict[str, Value] = {}
        i = 0
        for a in node.args:
            if a.star:
                return out if a.star == "**" else {}
            target = a.keyword.value if a.keyword is not None else positional[i] if i < len(positional) else None
            if a.keyword is None:
                i += 1
            if target in self._edits[1] and isinstance(a.value, cst.Name):
                out[a.value.value] = self._edits[1][target]
        return out

    def mutate_list(
        self, frame: Frame, state: State, target: cst.BaseExpression, method: str, node: cst.Call
    ) -> Value | None:
        """``xs.append(v)`` / ``xs.extend(vs)`` / ``xs.insert(i, v)`` on a list variable or ``self`` attribute."""
        current = self.eval(frame, state, target, observe=False)
        container = current if isinstance(current, ModuleV) and is_list_container(current) else None
        if container is not None:
            current = container_items(container)  # ``self.blocks.append(Block(d))`` on an ``nn.ModuleList``
        if not (isinstance(current, SeqV) or (isinstance(current, TupleV) and current.kind is SeqKind.LIST)):
            return None
        vals = [self.eval(frame, state, a.value) for a in node.args]
        if method == "pop":
            return self.pop_list(frame, state, target, current, vals, node, container)
        if not vals:
            return None
        new = vals[-1]
        if isinstance(current, SeqV) and isinstance(current.elem, NothingV):
            current = TupleV((), SeqKind.LIST)  # ``layers = []``: empty, of known length
        if isinstance(current, TupleV) and (method != "extend" or isinstance(new, TupleV)) and method != "insert":
            # A list of known length stays exact (``layers.append(block)`` in ``_make_layer``'s loop).
            added = new.items if isinstance(new, TupleV) and method == "extend" else (new,)
            self.rebind_list(frame, state, target, TupleV((*current.items, *added), SeqKind.LIST), container)
            return NONE
        where = vals[0] if method == "insert" and len(vals) == 2 else None
        if isinstance(current, TupleV) and isinstance(where, IntV) and type(where.value) is int:
            # ``results.insert(0, layer(x))`` (an FPN's top-down pass): at that place, clamped as Python does.
            items = list(current.items)
            items.insert(where.value, new)
            self.rebind_list(frame, state, target, TupleV(tuple(items), SeqKind.LIST), container)
            return NONE
        elems: list[Value] = [current.elem] if isinstance(current, SeqV) else list(current.items)
        if method == "extend":
            if isinstance(new, TupleV):
                elems.extend(new.items)
            elif isinstance(new, SeqV):
                elems.append(new.elem)
            else:
                elems.append(UnknownV())
        else:
            elems.append(new)
        joined: Value = NothingV()
        for e in elems:
            joined = join_values(joined, e)
        self.rebind_list(frame, state, target, SeqV(joined, SeqKind.LIST), container)
        return NONE

    def edit_deque(
        self, frame: Frame, state: State, target: cst.BaseExpression, method: str, node: cst.Call
    ) -> Value | None:
        """``tags.append(t)``, ``tags.appendleft(t)``, ``popleft()``, ``pop()``, ``extend(ts)`` on a deque
        whose items are known (a variable, an attribute of a variable): the deque as edited, the item
        popped; ``None`` (not followed here) otherwise."""
        current = self.eval(frame, state, target, observe=False)
        if not (isinstance(current, TupleV) and current.kind is SeqKind.DEQUE):
            return None
        if any(a.star or a.keyword is not None for a in node.args):
            return None
        vals = [self.eval(frame, state, a.value) for a in node.args]
        items = current.items
        out: Value = NONE
        if method in ("append", "appendleft") and len(vals) == 1:
            items = (*items, vals[0]) if method == "append" else (vals[0], *items)
        elif method == "extend" and len(vals) == 1 and isinstance(vals[0], TupleV):
            items = (*items, *vals[0].items)
        elif method in ("pop", "popleft") and not vals and items:
            out, items = (items[-1], items[:-1]) if method == "pop" else (items[0], items[1:])
        else:
            return None  # (``pop`` of an empty deque raises: left to the method)
        self.replace_in(frame, state, target, TupleV(items, SeqKind.DEQUE))
        return out

    def pop_list(
        self,
        frame: Frame,
        state: State,
        target: cst.BaseExpression,
        current: SeqV | TupleV,
        vals: list[Value],
        node: cst.Call,
        container: ModuleV | None,
    ) -> Value | None:
        """``skips.pop()`` / ``xs.pop(i)`` on a list of known length: that item, the list without it
        (a UNet's decoder takes its skip connections back in reverse); ``None`` otherwise."""
        if not isinstance(current, TupleV) or len(vals) > 1:
            return None
        index = vals[0].value if vals and isinstance(vals[0], IntV) else -1
        if type(index) is not int:
            return None
        n, i = len(current.items), index
        if not -n <= i < n:
            return None  # ``pop from empty list`` / ``pop index out of range``: left to the list method
        k = i % n
        self.rebind_list(
            frame, state, target, TupleV(current.items[:k] + current.items[k + 1 :], SeqKind.LIST), container
        )
        return current.items[k]

    def rebind_list(
        self, frame: Frame, state: State, target: cst.BaseExpression, updated: Value, container: ModuleV | None = None
    ) -> None:
        if container is not None:
            updated = with_items(container, updated)
        if isinstance(target, cst.Name):
            state.vars[target.value] = updated
        elif type(target) is cst.Attribute and isinstance(target.value, cst.Name):
            recv = self.eval(frame, state, target.value, observe=False)
            if isinstance(recv, InstanceV) and frame.building is recv:
                state.vars[building_key(recv, looked_up_name(recv.cls, target.attr.value))] = updated
            else:
                state.vars[f"{target.value.value}.{target.attr.value}"] = updated
        elif type(target) is cst.Subscript:
            self.replace_in(frame, state, target, updated)  # ``groups[name].append(x)``: that item

    def call(
        self,
        frame: Frame,
        state: State,
        func: Value,
        args: Sequence[Arg],
        kwargs: Mapping[str, Arg],
        node: cst.CSTNode,
    ) -> Value:
        if not isinstance(func, (BoundMethodV, FunctionV)):
            self.may_raise += 1  # not a project function run here (an op, a class, a builtin): it may raise
        if isinstance(func, ReturnsSelfV):
            if func.method in ("train", "eval"):
                return self.set_mode(frame, state, func, args, kwargs, node)
            if func.method == "apply" and len(args) == 1 and not kwargs:
                self.apply_to_modules(frame, state, func.receiver, args[0], node)
            return func.receiver
        sets = self.mode_sets
        out = self._call(frame, state, func, args, kwargs, node)
        if self.mode_sets != sets:
            # The call set some module's mode (``evaluate(model)`` runs ``model.eval()``): the modules
            # this activation holds may be that one, in whichever mode the call left it.
            for name, v in list(state.vars.items()):
                forgot = self.moded(v, BoolV(None))
                if forgot is not v:
                    state.vars[name] = forgot
        if isinstance(func, ClassV) and func.is_module and frame.build_depth == 0 and frame.building is None:
            # A module built by the program (not a part built inside another's ``__init__``, whose
            # mode is its parent's): in training mode until ``.eval()``.
            return self.moded(out, BoolV(True))
        return out

    def _call(
        self,
        frame: Frame,
        state: State,
        func: Value,
        args: Sequence[Arg],
        kwargs: Mapping[str, Arg],
        node: cst.CSTNode,
    ) -> Value:
        span = frame.ticket(node)
        frame.ctx.facts = state.facts
        frame.ctx.invoke = lambda f, a, k, s: self.call(frame, state, f, a, k, node)
        if isinstance(func, UnknownV) and func.why is not None:
            return func  # ``model(x)`` of a model that was not followed: unknown for the same cause
        if isinstance(func, ChildrenV):
            children = module_children(func.receiver)
            return TupleV(children, SeqKind.TUPLE) if children is not None else UnknownV()
        if isinstance(func, ContainerInitV):
            return self.init_container(frame, state, func, args, kwargs, node)
        if isinstance(func, DataclassInitV):
            return self.init_dataclass_base(frame, state, func, args, kwargs, node)
        if isinstance(func, OptionalV):
            func = func.inner  # ``None`` cannot be called: the code runs only when it is not ``None``
        if isinstance(func, ChoiceV):
            return self.call_choice(frame, state, func, args, kwargs, node)
        if isinstance(func, ParserMethodV):
            return call_parser_method(func, args, kwargs)
        if isinstance(func, StrMethodV):
            return call_str_method(func, args, kwargs)
        if isinstance(func, SeqMethodV):
            return call_seq_method(func, args, kwargs)
        if isinstance(func, DictMethodV):
            result, edited = call_dict_method(func, args, kwargs)
            holder = func.holder
            if edited is not None and isinstance(holder, InstanceV) and _through_super(node):
                # ``super().__setitem__(key, value)``: the items of the instance being built, or of
                # the ``self`` this method runs on (the caller rebinds it from there).
                if frame.building is holder:
                    state.vars[building_key(holder, ITEMS)] = edited
                else:
                    self.rebind_aliases(state, holder, with_attr(holder, ITEMS, edited))
                return result
            if edited is not None and type(node) is cst.Call and type(node.func) is cst.Attribute:
                # ``cfg.update(d_model=128)``; of a dict subclass's instance, its items.
                holder = func.holder
                self.replace_in(
                    frame, state, node.func.value, edited if holder is None else with_attr(holder, ITEMS, edited)
                )
            return result
        if isinstance(func, LambdaV):
            return self.call_lambda(frame, state, func, args, kwargs)
        if isinstance(func, (OpaqueV, TensorMethodV)) and frame.learning is not None:
            method = self.learn_by_method(frame, state, func, args, kwargs, node)
            if method is not None:
                func = method
        if isinstance(func, TensorMethodV):
            frame.ctx.runs_fixed.clear()
            v = engine.call_method(
                func.receiver_arg,
                func.name,
                [self.core_arg(frame, a) for a in args],
                {k: self.core_arg(frame, a) for k, a in kwargs.items()},
                frame.ctx,
                span,
            )
            self.learn_fixed_rank(frame, state, [func.receiver_arg, *args])
            if v is None:
                self.stats["unknown-op"] += 1
                self.tally(f"unknown-op:Tensor.{func.name}", frame, node)
                return UnknownV(UnknownSource.UNSUPPORTED)
            return v
        if isinstance(func, ArrayMethodV):
            got = call_array_method(
                func.array,
                func.name,
                [self.core_arg(frame, a).value for a in args],
                {k: self.core_arg(frame, a).value for k, a in kwargs.items()},
                self.numpy_apply(frame),
            )
            if got is None:
                self.tally("cause:numpy call without a model", frame, node)
                return UnknownV(why="numpy call without a model")
            return got
        if isinstance(func, ExternalV) and canonical(func.qualname) == "functools.partial" and args:
            rest = tuple(a.value for a in args[1:])
            return PartialV(args[0].value, rest, tuple((k, a.value) for k, a in kwargs.items()))
        if isinstance(func, ExternalV) and canonical(func.qualname) in _CALL_THROUGH and args:
            # ``checkpoint(fn, *args)`` returns ``fn(*args)`` (recomputed in backward, the same shapes).
            own = _CALL_THROUGH[canonical(func.qualname)]
            passed = {k: a for k, a in kwargs.items() if k not in own}
            return self.call(frame, state, args[0].value, args[1:], passed, node)
        if isinstance(func, PartialV):
            # The call's keywords override the partial's, as ``functools.partial`` does.
            bound = {k: Arg(v, span, None) for k, v in func.kwargs}
            bound.update(kwargs)
            return self.call(frame, state, func.func, [*(Arg(v, span, None) for v in func.args), *args], bound, node)
        if isinstance(func, ExternalV):
            return self.call_external(frame, state, canonical(func.qualname), args, kwargs, node)
        if isinstance(func, (BoundMethodV, FunctionV)):
            function = func.function if isinstance(func, BoundMethodV) else func
            if function.module.library and function.node.name.value == "from_pretrained":
                # The model's configuration is downloaded by name at run time: the checker cannot see it.
                why = "not followed: from_pretrained reads a configuration downloaded at run time"
                self.tally(f"cause:{why}", frame, node)
                return UnknownV(why=why)
            receiver = func.receiver if isinstance(func, BoundMethodV) else None
            entered = self._inlines
            out = self.call_user(frame, state, function, receiver, args, kwargs, node)
            if self._inlines == entered:
                self.may_raise += 1  # its body was not run (an annotated result, a bound)
            return out
        if isinstance(func, ClassV):
            return self.instantiate(frame, state, func, args, kwargs, node)
        if isinstance(func, InstanceV):
            return self.call_instance(frame, state, func, args, kwargs, node)
        if isinstance(func, ModuleV):
            module = func
            learnt = self.learn_args(
                frame, state, args, kwargs, node, lambda a, k, p: engine.required_by_module(module, a, k, p, frame.ctx)
            )
            if learnt != (args, kwargs):
                self.as_before(frame, lambda: self._call_module(frame, module, args, kwargs, span))
            args, kwargs = learnt
            frame.ctx.runs_fixed.clear()
            v = self._call_module(frame, module, args, kwargs, span)
            self.learn_fixed_rank(frame, state, [*args, *kwargs.values()])
            return v if v is not None else UnknownV(UnknownSource.UNSUPPORTED)
        return UnknownV()

    def apply_to_modules(self, frame: Frame, state: State, module: Value, fn: Arg, node: cst.CSTNode) -> None:
        """``model.apply(fn)``: ``fn`` called on each submodule the analysis knows, then on the model
        (torch's order), so the code in it (DCGAN's ``weights_init``) is analysed with each module.
        Submodules that are not known (an attribute of unknown value) are counted, not called."""
        seen: list[Value] = []
        missing = False
        stack = [module]
        while stack and len(seen) < _MAX_APPLIED:
            m = stack.pop()
            if isinstance(m, OptionalV):
                m = m.inner
            if any(m is s or m == s for s in seen):
                continue
            if not isinstance(m, ModuleV) and not (isinstance(m, InstanceV) and m.cls.is_module):
                missing = True
                continue
            seen.append(m)
            stack.extend(reversed(list(submodules(m))))
        if missing or stack:
            self.tally("cause:apply: a submodule not known is not given to the function", frame, node)
        for m in reversed(seen):  # children before their parent, as torch's ``apply``
            self.call(frame, state, fn.value, [Arg(m, fn.span, None)], {}, node)

    def call_choice(
        self,
        frame: Frame,
        state: State,
        func: ChoiceV,
        args: Sequence[Arg],
        kwargs: Mapping[str, Arg],
        node: cst.CSTNode,
    ) -> Value:
        """Each module ``func`` may be, called with the same arguments; the results joined.  Which one
        was built is not known: a problem is reported only when every option has it (the same code at
        the same place), so that torch raises whichever it is; the result is that of the options that
        raise nothing."""
        return self.call_each(
            frame, [functools.partial(self.call, frame, state, o, args, kwargs, node) for o in func.options]
        )

    def call_each(self, frame: Frame, calls: Sequence[Callable[[], Value]]) -> Value:
        """Each of a few calls of which one runs (:meth:`call_choice`), the results joined: a problem
        is reported only when every call has it (the same code at the same place); the result is that
        of the calls that raise nothing."""
        ctx = frame.ctx
        results: list[Value] = []
        found: list[list[Diagnostic]] = []
        # A parameter learns nothing from an option: what one option requires holds only if it was built.
        learning, frame.learning = frame.learning, None
        try:
            for call in calls:
                mark = len(ctx.diagnostics)
                results.append(call())
                found.append(ctx.diagnostics[mark:])
                del ctx.diagnostics[mark:]
        finally:
            frame.learning = learning
        problems = [{(d.code.id, d.span) for d in ds if d.severity is not Severity.NOTE} for ds in found]
        common = set.intersection(*problems) if problems else set()
        kept: set[tuple[str, Span, str]] = set()
        for ds in found:
            for d in ds:
                key = (d.code.id, d.span, d.message)
                if (d.severity is Severity.NOTE or key[:2] in common) and key not in kept:
                    kept.add(key)
                    ctx.diagnostics.append(d)
        # An option whose call torch raises on does not reach the code after it.
        fine = [r for r, ds in zip(results, found) if not any(d.severity is Severity.ERROR for d in ds)]
        return join_all(fine or results)

    def call_lambda(
        self, frame: Frame, state: State, f: LambdaV, args: Sequence[Arg], kwargs: Mapping[str, Arg]
    ) -> Value:
        """A lambda's body with its parameters bound (positional, keyword or keyword-only; a
        parameter not passed takes its default, evaluated where the lambda was made).  A lambda
        made in another module, with ``*args``/``**kwargs``, or called with arguments that do not
        bind, is unknown, and counted."""
        params = f.node.params
        plain = list(params.posonly_params) + list(params.params)
        names = {p.name.value for p in (*plain, *params.kwonly_params)}
        if (
            f.module is not frame.module
            or type(params.star_arg) is cst.Param
            or params.star_kwarg is not None
            or len(args) > len(plain)
            or not kwargs.keys() <= names
        ):
            self.tally("cause:a lambda with *args, **kwargs or from another module", frame, f.node)
            return UnknownV()
        scope = State(dict(f.closure), state.facts)
        for i, p in enumerate((*plain, *params.kwonly_params)):
            a = args[i] if i < len(args) else kwargs.get(p.name.value)
            value = a.value if a is not None else f.defaults.get(p.name.value)
            if value is None:
                self.tally("cause:a lambda called without one of its arguments", frame, f.node)
                return UnknownV()
            scope.vars[p.name.value] = value
        return self.eval(frame, scope, f.node.body)

    def _call_module(
        self, frame: Frame, module: ModuleV, args: Sequence[Arg], kwargs: Mapping[str, Arg], span: Span
    ) -> Value | None:
        return engine.call_module(
            module,
            [self.core_arg(frame, a) for a in args],
            {k: self.core_arg(frame, a) for k, a in kwargs.items()},
            frame.ctx,
            span,
        )

    # -- external (torch, einops, builtins) ---------------------------------------------------
    def call_external(
        self, frame: Frame, state: State, q: str, args: Sequence[Arg], kwargs: Mapping[str, Arg], node: cst.CSTNode
    ) -> Value:
        span = frame.ticket(node)
        if q.startswith("builtins.") or q.startswith("math."):
            return self.call_builtin(frame, state, q, args, kwargs, node)
        if q in ("copy.copy", "copy.deepcopy") and len(args) == 1 and not kwargs:
            if args[0].value is frame.building:
                return UnknownV()
            held = args[0].value
            hooked = isinstance(held, InstanceV) and any(held.cls.lookup(m) is not None for m in _COPY_HOOKS)
            copy = None if hooked else copied(held, deep=q == "copy.deepcopy")
            if copy is None and not hooked and isinstance(held, InstanceV) and _plain_class(held.cls):
                # A config whose attributes are not all known: a copy is another instance of its
                # class (so no module), its attributes as unknown as the original's.
                reason = f"a copy of a `{held.cls.qualname}` whose attributes are not all known"
                self.tally(f"cause:{q} of a value holding objects that may change in place", frame, node)
                return InstanceV(held.cls, {}, f"{held.key}+opencopy", set(held.setup), reason)
            if copy is None:
                self.tally(f"cause:{q} of a value holding objects that may change in place", frame, node)
                return UnknownV(UnknownSource.UNSUPPORTED)
            return copy
        if q in RE_FUNCTIONS:
            return call_re(q, args, kwargs)
        if q in ("os.environ.get", "os.getenv") and 1 <= len(args) <= 2 and not kwargs:
            name = args[0].value
            if isinstance(name, StrV) and name.value is not None:
                # The environment the program will run in is not known: a variable is taken as unset
                # (timm's ``TIMM_USE_NAFLEXVIT``), counted (``environment_assumed``), never silent.
                self.tally("environment-assumed", frame, node)
                return args[1].value if len(args) == 2 else NONE
        if q == "importlib.import_module" and 1 <= len(args) <= 2 and not kwargs:
            name = _imported_name(*(a.value for a in args))
            if name is not None:
                # ``importlib.import_module(".bert", "transformers.models")``: as ``import`` of the
                # absolute name would give the module (one not found here: unknown, as ever).
                found = self.resolve_lazy(LazyImportV(name))
                if isinstance(found, ModuleNsV):
                    self.run_module(found.info)
                    return found
        if q == "dataclasses.fields" and len(args) == 1 and not kwargs:
            return self.dataclass_fields(args[0].value)
        if q == "dataclasses.asdict" and len(args) == 1 and not kwargs:
            return as_dict(args[0].value)
        if q == "dataclasses.replace" and len(args) == 1:
            return self.dataclass_replace(frame, state, args[0].value, kwargs, node)
        if q == "collections.OrderedDict" and len(args) <= 1:
            # ``layers = OrderedDict()``, then filled by ``layers[name] = block``; DenseNet's
            # ``OrderedDict([("conv0", nn.Conv2d(...)), ...])`` and ``OrderedDict(conv0=...)``.
            built = dict_of_pairs(args[0].value if args else TupleV(()), [(k, a.value) for k, a in kwargs.items()])
            if built is not None:
                return built
        if q == "collections.defaultdict" and len(args) <= 2 and not kwargs:
            # ``defaultdict(DefaultCfg)``, ``defaultdict(list)``: the items given (none, or a dict's).
            given = args[1].value if len(args) == 2 else DictV(())
            factory = args[0].value if args else NONE
            if isinstance(given, DictV) and not isinstance(given, AttrsV):
                if isinstance(factory, NoneV):
                    return DictV(given.items)  # no factory: a read of a missing key raises, as a dict's
                if isinstance(factory, (ExternalV, ClassV, FunctionV, LambdaV, PartialV)):
                    return DefaultDictV(given.items, factory)
            return UnknownV()
        if q == "collections.deque" and len(args) <= 1 and not kwargs:
            # ``deque()``, ``deque([""])``: the items of the iterable, in order (no ``maxlen``).
            items = (
                self.call_builtin(frame, state, "builtins.list", args, {}, node) if args else TupleV((), SeqKind.LIST)
            )
            if isinstance(items, TupleV):
                return TupleV(items.items, SeqKind.DEQUE)
            return UnknownV()
        if q == "itertools.repeat" and len(args) == 2 and not kwargs:
            # ``tuple(repeat(x, n))`` (timm's ``to_ntuple``): n copies of ``x`` when n is a small known int.
            n = self._int(frame, args[1].value)
            if type(n) is int and 0 <= n <= 64:
                return TupleV((args[0].value,) * n)
            return SeqV(args[0].value, SeqKind.TUPLE, n)
        if q.startswith("random."):
            return self.call_random(frame, state, q.removeprefix("random."), args, kwargs)
        if q == "typing.cast" and len(args) == 2:
            cast_value: Value = args[1].value  # ``v = cast(int, v)``: the value itself
            return cast_value
        if q in PARSER_CLASSES:
            return ParserV()
        if q in NAMESPACE_CLASSES:
            return namespace(args, kwargs)
        if q == "numpy.prod" and len(args) == 1 and not kwargs and not isinstance(args[0].value, ArrayV):
            return self.call_builtin(frame, state, "math.prod", args, kwargs, node)  # ``int(np.prod(img_shape))``
        if q.startswith("numpy."):
            made = call_numpy(
                q.removeprefix("numpy."),
                [self.core_arg(frame, a).value for a in args],
                {k: self.core_arg(frame, a).value for k, a in kwargs.items()},
                self.numpy_apply(frame),
            )
            if made is not None:
                return made
            self.tally("cause:numpy call without a model", frame, node)
            return UnknownV(why="numpy call without a model")
        if q == "torch.nn.Parameter" or q == "torch.nn.Buffer":
            return args[0].value if args else UnknownV()
        if q in _CONTEXT_MANAGERS:
            return UnknownV()
        if q in _FROM_ARRAY and args and isinstance(args[0].value, ArrayV) and "dtype" not in kwargs:
            # ``torch.from_numpy(a)``, ``torch.tensor(a)``: a tensor of the array's shape.
            return TensorV(args[0].value.shape, args[0].value.dtype)
        if q == "torch.from_numpy":
            # A numpy array's shape is not tracked, but the result is a tensor (``.view(1, k * k)`` of it
            # has the shape it asks for).
            return TensorV(Shape.unknown(UnknownSource.UNSUPPORTED))
        if q in ("torch.finfo", "torch.iinfo"):
            # ``torch.finfo(x.dtype).min``: a dtype's limits, numbers whose values are not tracked.
            number: Value = FloatV(None) if q == "torch.finfo" else IntV(Unknown())
            limits = (
                ("eps", "max", "min", "tiny", "smallest_normal", "resolution") if q == "torch.finfo" else ("max", "min")
            )
            return AttrsV((("bits", IntV(Unknown())), *((k, number) for k in limits), ("dtype", StrV(None))))
        if q == "torch.Size":
            return _size_of(args[0].value) if args else TupleV((), SeqKind.SIZE)
        if q == "torch.device":
            device, problem = _device([a.value for a in args], {k: a.value for k, a in kwargs.items()})
            if problem is not None:
                self.report(
                    frame,
                    codes.INVALID_ARG,
                    f"torch.device: {problem}",
                    span,
                    "a device string is 'cpu', 'cuda', 'cuda:0', 'mps', ...",
                )
            return device
        if q.startswith("torch.Tensor.") and args:
            v = engine.call_method(
                self.core_arg(frame, args[0]),
                q.rsplit(".", 1)[1],
                [self.core_arg(frame, a) for a in args[1:]],
                {k: self.core_arg(frame, a) for k, a in kwargs.items()},
                frame.ctx,
                span,
            )
            return v if v is not None else UnknownV(UnknownSource.UNSUPPORTED)
        if q == "torch.nn.Sequential" and len(args) == 1 and isinstance(args[0].value, MapV) and not kwargs:
            # ``nn.Sequential(layers)`` of an ``OrderedDict`` filled in a loop that is not unrolled
            # (ViT-B's 12 ``encoder_layer_{i}``): every child is like the map's value, their count
            # not known, as ``nn.Sequential(*blocks)`` of a list of unknown length.
            held = args[0].value
            args = [Arg(SeqV(held.value, SeqKind.LIST, held.length), args[0].span, args[0].text)]
        if q.startswith("torch.utils.data."):
            args = [self.dataset_arg(frame, state, a, node) for a in args]
            kwargs = {k: self.dataset_arg(frame, state, a, node) for k, a in kwargs.items()}
        if q not in engine.table().classes:
            learnt = self.learn_args(
                frame, state, args, kwargs, node, lambda a, k, p: engine.required_by_function(q, a, k, p, frame.ctx)
            )
            if learnt != (args, kwargs):
                before = (
                    [self.core_arg(frame, a) for a in args],
                    {k: self.core_arg(frame, a) for k, a in kwargs.items()},
                )
                self.as_before(frame, lambda: engine.call_function(q, before[0], before[1], frame.ctx, span))
            args, kwargs = learnt
        cargs = [self.core_arg(frame, a) for a in args]
        ckw = {k: self.core_arg(frame, a) for k, a in kwargs.items()}
        if q in engine.table().classes:
            v = engine.construct_module(q, cargs, ckw, frame.ctx, span)
            return v if v is not None else UnknownV()
        frame.ctx.runs_fixed.clear()
        v = engine.call_function(q, cargs, ckw, frame.ctx, span)
        self.learn_fixed_rank(frame, state, [*args, *kwargs.values()])
        if v is not None:
            return v
        if q.split(".")[0] in ("torch", "einops", "functorch"):
            self.stats["unknown-op"] += 1
            self.tally(f"unknown-op:{q}", frame, node)
            if getattr(self, "report_unknown_ops", False):
                self.report(
                    frame,
                    codes.UNKNOWN_OP,
                    f"`{q}` is not modelled; its result has an unknown shape",
                    span,
                    "add a signature to the stubs (docs/stubs.md) or annotate the result",
                )
            return UnknownV(UnknownSource.UNSUPPORTED)
        why = self.not_followed(q)
        if why is not None:
            self.tally(f"cause:not followed: {why}", frame, node)
            return UnknownV(why=f"not followed: {why}")
        return UnknownV()

    def numpy_apply(self, frame: Frame) -> Apply:
        return functools.partial(rule_on_arrays, frame.ctx)

    def learn_by_method(
        self,
        frame: Frame,
        state: State,
        func: OpaqueV | TensorMethodV,
        args: Sequence[Arg],
        kwargs: Mapping[str, Arg],
        node: cst.CSTNode,
    ) -> TensorMethodV | None:
        """``x.permute(0, 2, 1)`` on a learning parameter ``x`` (unannotated, or a bare ``Tensor``):
        the tensor method the parameter is a receiver of, once it learnt the shape the method
        accepts (``None``: nothing learnt)."""
        lr = frame.learning
        if isinstance(func, TensorMethodV):
            origin: Value | None = func.receiver
            owner, name = func.receiver_arg.text, func.name
        else:
            owner, _, name = func.path.rpartition(".")
            origin = state.vars.get(owner) if "." not in owner else None
        if lr is None or origin is None or lr.origin_of(origin) is None:
            return None
        span = frame.ticket(node)
        recv = Arg(origin, span, owner)
        got, _ = self.learn_args(
            frame,
            state,
            [recv],
            {},
            node,
            lambda a, k, p: engine.required_by_method(
                p,
                name,
                [self.core_arg(frame, x) for x in args],
                {n: self.core_arg(frame, x) for n, x in kwargs.items()},
                p,
                frame.ctx,
            ),
        )
        t = got[0].value
        return TensorMethodV(t, name, got[0]) if isinstance(t, TensorV) else None

    def not_followed(self, q: str) -> str | None:
        """Why the installed module that defines ``q`` was not read from source (a C extension, an
        excluded package), or ``None``: it is followed, modelled, or not installed at all."""
        parts = q.split(".")
        for n in range(len(parts) - 1, 0, -1):
            why = self.project.unfollowed.get(".".join(parts[:n]))
            if why is not None:
                return None if why in ("modelled by stubs", "standard library") else why
        return None

    def dataset_arg(self, frame: Frame, state: State, a: Arg, node: cst.CSTNode) -> Arg:
        """A user ``Dataset`` subclass's instance, for the data rules: a sample is what its
        ``__getitem__`` returns for some index, and its length what ``__len__`` returns."""
        inst = a.value
        if not isinstance(inst, InstanceV) or inst.cls.lookup("__getitem__") is None:
            return a
        length: Dim | None = None
        if inst.cls.lookup("__len__") is not None:
            n = self.call(frame, state, self.attribute(frame, state, inst, "__len__", None), [], {}, node)
            length = n.value if isinstance(n, IntV) and not isinstance(n.value, Unknown) else None
        idx = frame.ctx.fresh("index")
        getitem = self.attribute(frame, state, inst, "__getitem__", None)
        if isinstance(getitem, BoundMethodV) and isinstance(getitem.function, FunctionV):
            # A sampler draws each index from ``range(len(dataset))``: ``0 <= idx`` and ``idx + 1 <= len``
            # hold in the body, so ``data[idx : idx + k]`` is in range when ``__len__`` says so.
            entry = NO_FACTS.assume_le(0, idx)
            if length is not None:
                entry = entry.assume_le(arith.add(idx, 1), length)
            self._entry_facts[id(getitem.function.node)] = entry
        try:
            sample = self.call(frame, state, getitem, [Arg(IntV(idx), a.span, None)], {}, node)
        finally:
            if isinstance(getitem, BoundMethodV) and isinstance(getitem.function, FunctionV):
                self._entry_facts.pop(id(getitem.function.node), None)
        return Arg(DatasetV(sample, length), a.span, a.text)

    def _built_length(self, frame: Frame, v: Value, distinct: bool = False) -> Dim | None:
        """The length of a list built by iterating ``v`` to its end (only the distinct items with
        ``distinct``): as many items as it gives, or see :func:`~tensorshape.infer.state.built_length`."""
        n = None if distinct else iteration_length(v)
        return n if n is not None else built_length(self.element_value(v), frame.ctx.fresh)

    def call_random(
        self, frame: Frame, state: State, name: str, args: Sequence[Arg], kwargs: Mapping[str, Arg]
    ) -> Value:
        """The ``random`` module, and a ``random.Random(seed)`` generator (which has its functions as
        methods): what kind of value each draws (``randrange`` an int, ``choice`` an item); an int
        drawn in a known range is a fresh symbol with the facts that bound it (``infer/draws.py``)."""
        vals = [a.value for a in args]
        if name == "Random":
            return ExternalV("random")
        bounds = random_bounds(name, args, kwargs, lambda a: self._int(frame, a.value))
        if bounds is not None:
            i, state.facts = draw(frame.ctx.fresh, state.facts, bounds)
            return IntV(i)
        if name in ("randrange", "randint", "getrandbits"):
            return IntV(Unknown(UnknownSource.DATA_DEPENDENT))
        if name in ("random", "uniform", "gauss", "normalvariate", "betavariate", "expovariate"):
            return FloatV(None)
        if name == "choice" and vals:
            return self.element_value(vals[0])
        if name in ("sample", "choices") and vals:
            return SeqV(self.element_value(vals[0]), SeqKind.LIST)
        if name in ("seed", "shuffle"):
            return NONE
        return UnknownV(UnknownSource.UNSUPPORTED)

    def call_builtin(
        self, frame: Frame, state: State, q: str, args: Sequence[Arg], kwargs: Mapping[str, Arg], node: cst.CSTNode
    ) -> Value:
        name = q.split(".", 1)[1]
        vals = [a.value for a in args]
        ints = [self._int(frame, v) for v in vals]
        if name == "range":
            if not vals or len(vals) > 3 or any(i is None for i in ints):
                return RangeV(Unknown())
            if len(ints) == 1:
                return RangeV(_range_len(0, ints[0], 1), 0, 1)
            start, stop = ints[0], ints[1]
            step = ints[2] if len(ints) == 3 else 1
            return RangeV(_range_len(start, stop, step), start, step)
        if name == "slice" and 1 <= len(vals) <= 3 and not kwargs:
            # ``slice(-n, None)`` kept to index with later: the value ``x[-n:]`` would index with.
            parts = [v if not isinstance(v, OpaqueV) else IntV(self.opaque_int(frame, v.path)) for v in vals]
            start, stop, step = (NONE, parts[0], NONE) if len(parts) == 1 else (*parts, NONE)[:3]
            return SliceV(start, stop, step)
        if name == "len" and vals:
            inst = vals[0]
            if isinstance(inst, InstanceV) and isinstance(inst.cls.lookup("__len__"), FunctionV):
                # ``len(vocab)``: what the class's ``__len__`` returns (``len(self.itos)``).
                got = self.call(frame, state, self.attribute(frame, state, inst, "__len__", None), [], {}, node)
                return got if isinstance(got, IntV) else IntV(Unknown())
            return _len(inst)
        if name == "set" and not vals and not kwargs:
            return TupleV((), SeqKind.SET)  # ``seen = set()``, filled by ``seen.add(name)``
        if name == "dict" and (not vals or isinstance(vals[0], DictV)) and len(vals) <= 1:
            # ``dict(embed_dim=384, **kwargs)``: a config dict built from keywords
            base = dict(vals[0].items) if vals and isinstance(vals[0], DictV) else {}
            base.update((k, a.value) for k, a in kwargs.items())
            return DictV(tuple(base.items()))
        if name == "dict" and len(vals) == 1 and isinstance(vals[0], TupleV):
            # ``dict(pairs)`` of (key, value) pairs with known string keys (``dict(self.items())``).
            paired = dict_of_pairs(vals[0], [(k, a.value) for k, a in kwargs.items()])
            if paired is not None:
                return paired
        if name == "int" and vals:
            v = vals[0]
            if isinstance(v, RatioV):
                # ``int(n_embd / n_head)``: sizes are non-negative, so truncation is floor division.
                return IntV(frame.ctx.facts.simplify(arith.floordiv(v.num, v.den)))
            if isinstance(v, IntV):
                return v
            if isinstance(v, FloatV) and v.value is not None:
                return IntV(int(v.value))
            if isinstance(v, BoolV) and v.value is not None:
                return IntV(int(v.value))
            parsed = _parsed_number(int, vals, kwargs)
            if parsed is not None:
                return IntV(parsed)  # ``int("24")``: timm's block strings give the channels so
            return IntV(Unknown(UnknownSource.DATA_DEPENDENT if isinstance(v, TensorV) else UnknownSource.UNANNOTATED))
        if name == "float":
            v = vals[0] if vals else FloatV(0.0)
            if isinstance(v, FloatV):
                return v
            if isinstance(v, IntV) and type(v.value) is int:
                return FloatV(float(v.value))
            number = _parsed_number(float, vals, kwargs)
            return FloatV(number if isinstance(number, float) else None)
        if name == "bool":
            # ``bool(i == 0)``, ``bool(n_layers)``: known when the value's truth is (``bool()`` is false).
            return BoolV(truthiness(vals[0]) if vals else False)
        if name == "str":
            return StrV(None)
        if name in ("min", "max"):
            seq = vals
            if len(vals) == 1 and isinstance(vals[0], TupleV):
                seq = list(vals[0].items)
            dims = [self._int(frame, v) for v in seq]
            if seq and all(d is not None for d in dims):
                fn = arith.dmin if name == "min" else arith.dmax
                return IntV(fn(*dims))
            if seq and all(isinstance(v, (IntV, FloatV)) for v in seq):
                known = [f for f in map(_float_of, seq) if f is not None]
                if len(known) == len(seq):
                    # ``max(1.0, width_mult)``: the known value (the first of equals, as Python picks).
                    best = min(known) if name == "min" else max(known)
                    picked: Value = seq[known.index(best)]
                    return picked
                return FloatV(None)
            return UnknownV()
        if name == "abs" and vals:
            d = ints[0]
            if d is not None and type(d) is int:
                return IntV(abs(d))
            return vals[0] if isinstance(vals[0], (IntV, FloatV, TensorV)) else UnknownV()
        if name == "sum" and vals and isinstance(vals[0], TupleV):
            dims = [self._int(frame, v) for v in vals[0].items]
            if all(d is not None for d in dims):
                return IntV(arith.dsum(dims))
            return UnknownV()
        if name in ("tuple", "list"):
            kind = SeqKind.TUPLE if name == "tuple" else SeqKind.LIST
            if not vals:
                return TupleV((), kind)
            v = vals[0]
            if isinstance(v, TupleV):
                return TupleV(v.items, kind)
            if isinstance(v, SeqV):
                return SeqV(v.elem, kind, v.length)
            if (
                isinstance(v, RangeV)
                and type(v.length) is int
                and v.length <= 64
                and type(v.start) is int
                and type(v.step) is int
            ):
                return TupleV(tuple(IntV(v.start + i * v.step) for i in range(v.length)), kind)
            v = as_container(v)
            if isinstance(v, ModuleV) and v.children:
                return TupleV(v.children, kind)
            return SeqV(self.element_value(v), kind, self._built_length(frame, v))
        if name in ("sorted", "set", "frozenset") and len(vals) == 1:
            # ``chars = sorted(set(text))``: as many items as iterating gives (a set: the distinct ones),
            # a fresh size when not known, fixed once built, so ``len(chars)`` is one size everywhere.
            v = as_container(vals[0])
            constants = _constants(v)
            if constants is not None and name == "sorted" and not kwargs:
                # ``sorted`` of known numbers or strings: those items, in order.
                order = sorted(range(len(constants)), key=lambda i: constants[i])  # (stable, as Python's)
                assert isinstance(v, TupleV)
                return TupleV(tuple(v.items[i] for i in order), SeqKind.LIST)
            if constants is not None:
                # ``len(set(block_widths))`` of known ints: the distinct ones (in an order not known).
                return SeqV(self.element_value(v), SeqKind.LIST, len(set(constants)))
            if name == "sorted" and isinstance(v, TupleV):
                return SeqV(self.element_value(v), SeqKind.LIST, len(v.items))
            length = self._built_length(frame, v, name != "sorted")
            if length is None:
                # Items of any kind (``sorted(w for w, c in counts.items() if c >= k)``): some count of
                # them, each its own (``varied``: ``torch.cat`` of them is not that count times one).
                return SeqV(self.element_value(v), SeqKind.LIST, frame.ctx.fresh("n"), True)
            return SeqV(self.element_value(v), SeqKind.LIST, length)
        if name in ("iter", "next") and vals:
            # An iterator of a loader is the loader; ``next`` gives its first (full) batch.
            return vals[0] if name == "iter" else self.element_value(vals[0])
        if name == "enumerate" and vals and isinstance(vals[0], LoaderV):
            ld = vals[0]
            index = IntV(Unknown(UnknownSource.UNANNOTATED))
            last = TupleV((index, ld.last)) if ld.last is not None else None
            return replace(ld, batch=TupleV((index, ld.batch)), last=last)
        if name == "enumerate" and vals:
            items = self.iteration_items(frame, state, vals[0], node)  # type: ignore[arg-type]
            rows = _small_rows(vals[0])
            if items is None and rows is not None:
                # ``enumerate(x)`` of a batch of 2: its first pass certainly runs, with index 0.
                items = [self.element_value(vals[0])] * rows
            if items is not None:
                return TupleV(tuple(TupleV((IntV(i), it)) for i, it in enumerate(items)), SeqKind.LIST)
            return SeqV(TupleV((IntV(Unknown()), self.element_value(vals[0]))), SeqKind.LIST)
        if name == "zip" and vals:
            seqs = [self.iteration_items(frame, state, v, node) for v in vals]  # type: ignore[arg-type]
            if all(s is not None for s in seqs):
                n = min(len(s) for s in seqs)  # type: ignore[arg-type]
                return TupleV(tuple(TupleV(tuple(s[i] for s in seqs)) for i in range(n)), SeqKind.LIST)  # type: ignore[index]
            return SeqV(TupleV(tuple(self.element_value(v) for v in vals)), SeqKind.LIST)
        if name == "map" and len(vals) == 2:
            # ``q, k, v = map(lambda t: rearrange(t, ...), qkv)``: the function applied to each item.
            items = self.iteration_items(frame, state, vals[1], node)  # type: ignore[arg-type]
            if items is not None:
                out = [self.call(frame, state, vals[0], [Arg(item, args[1].span, None)], {}, node) for item in items]
                return TupleV(tuple(out), SeqKind.LIST)
            elem = self.element_value(vals[1])
            length = vals[1].length if isinstance(vals[1], SeqV) else None
            return SeqV(
                self.call(frame, state, vals[0], [Arg(elem, args[1].span, None)], {}, node), SeqKind.LIST, length
            )
        if name == "reversed" and vals and isinstance(vals[0], TupleV):
            return TupleV(tuple(reversed(vals[0].items)), vals[0].kind)
        if name == "type" and len(vals) == 1 and not kwargs and isinstance(vals[0], InstanceV):
            return vals[0].cls  # ``type(config)``: the class it was made from (a metaclass's answer aside)
        if name == "isinstance" and len(vals) == 2:
            classes = vals[1].items if isinstance(vals[1], TupleV) else (vals[1],)
            return BoolV(_isinstance_any(vals[0], classes))
        if name == "issubclass" and len(vals) == 2 and not kwargs:
            classes = vals[1].items if isinstance(vals[1], TupleV) else (vals[1],)
            answers = [_issubclass(vals[0], c) for c in classes]
            return BoolV(True if True in answers else False if answers and all(a is False for a in answers) else None)
        if name == "getattr" and len(vals) >= 2 and isinstance(vals[1], StrV) and vals[1].value:
            if (
                len(vals) >= 3
                and isinstance(vals[0], InstanceV)
                and (
                    lacks_attribute(vals[0], vals[1].value)
                    or self.has_attr(frame, state, vals[0], vals[1].value) is False
                )
            ):
                default: Value = vals[2]
                return default
            return self.attribute(frame, state, vals[0], vals[1].value, None)
        if name == "dir" and len(vals) == 1 and not kwargs and isinstance(vals[0], ExternalV):
            q = canonical(vals[0].qualname)
            if q == "torch" or q.startswith("torch."):
                return DirV(q)  # ``'silu' in dir(torch.nn.functional)``: what the stubs model
        if name == "hasattr" and len(vals) == 2 and isinstance(vals[1], StrV) and vals[1].value and not kwargs:
            # ``hasattr(self, "rope_parameters")`` in a config's ``__post_init__``: the attributes set
            # so far and the class line decide it.
            return BoolV(self.has_attr(frame, state, vals[0], vals[1].value))
        if name in ("all", "any") and len(vals) == 1 and not kwargs and isinstance(vals[0], TupleV):
            # ``all(v is None for v in known)``: decided when each item's truth is known, or one decides.
            truths = [truthiness(v) for v in vals[0].items]
            decisive = name == "any"  # the item value that settles the answer
            if decisive in truths:
                return BoolV(decisive)
            return BoolV(not decisive if None not in truths else None)
        if name in ("setattr", "object.__setattr__") and len(vals) == 3 and not kwargs:
            if frame.building is not None and vals[0] is frame.building:
                self.set_building_attr(frame, state, frame.building, vals[1], vals[2], name == "setattr")
                return NONE
            # Another object's attribute: ``hasattr`` of that name (of any, for a name not known) is
            # no longer decided on a module.
            if isinstance(vals[1], StrV) and vals[1].value is not None:
                self._written_attrs.add(vals[1].value)
            else:
                self.wrote_unnamed(vals[0])
            return UnknownV()
        if name == "super":
            inst = state.vars.get("self")
            owner = frame.function.owner if frame.function is not None else None
            return SuperV(inst if inst is not None else UnknownV(), owner)
        if name == "round" and vals:
            # Python's ``round`` (half to even): an int of one argument, a float of two.
            x = vals[0]
            digits = ints[1] if len(ints) == 2 else None
            number = (
                x.value
                if isinstance(x, FloatV) and x.value is not None and math.isfinite(x.value)
                else x.value
                if isinstance(x, IntV) and type(x.value) is int
                else None
            )
            if len(vals) == 1:
                if isinstance(x, IntV) and not isinstance(x, MaybeIntV):
                    return x
                return IntV(Unknown()) if number is None else IntV(round(number))
            if number is not None and type(digits) is int and len(vals) == 2:
                return FloatV(float(round(number, digits)))
            return FloatV(None)
        if name == "divmod" and len(ints) == 2 and ints[0] is not None and ints[1] is not None:
            return TupleV((IntV(arith.floordiv(ints[0], ints[1])), IntV(arith.mod(ints[0], ints[1]))))
        if name in ("math.prod", "prod") and vals:
            seq = vals[0]
            if isinstance(seq, TupleV):
                dims = [self._int(frame, v) for v in seq.items]
                if all(d is not None for d in dims):
                    return IntV(arith.prod(dims))
            return IntV(Unknown())
        if name in ("sqrt", "log", "exp", "log2", "sin", "cos", "pi"):
            f = vals[0] if vals else None
            if isinstance(f, (IntV, FloatV)):
                x = f.value if isinstance(f, FloatV) else f.value if type(f.value) is int else None
                if isinstance(x, (int, float)):
                    try:
                        return FloatV(float(getattr(math, name)(x)))
                    except (ValueError, OverflowError):
                        return FloatV(None)
            return FloatV(None)
        if name in ("ceil", "floor") and vals:
            f = vals[0]
            if isinstance(f, RatioV):
                div = arith.ceildiv if name == "ceil" else arith.floordiv
                return IntV(frame.ctx.facts.simplify(div(f.num, f.den)))
            if isinstance(f, FloatV) and f.value is not None:
                return IntV(math.ceil(f.value) if name == "ceil" else math.floor(f.value))
            if isinstance(f, IntV):
                return f
            return IntV(Unknown())
        if name == "print":
            return NONE
        return UnknownV()

    # -- the project's functions ---------------------------------------------------------------
    def call_user(
        self,
        frame: Frame,
        state: State,
        f: FunctionV,
        receiver: Value | None,
        args: Sequence[Arg],
        kwargs: Mapping[str, Arg],
        node: cst.CSTNode | None,
    ) -> Value:
        """Call a project function; a method run on a pinned instance after its construction rebinds
        the instance with what the method assigned to ``self`` (``model.reset_classifier(7)``)."""
        if not (
            isinstance(receiver, InstanceV)
            and receiver.pinned
            and frame.building is not receiver
            and receiver.cls.reassigns(receiver.setup)
        ):
            self._moved = None
            out = self._call_user(frame, state, f, receiver, args, kwargs, node)
            self.rebind_moved(state, f)
            return out
        self._after = None
        self._moved = None
        result = self._call_user(frame, state, f, receiver, args, kwargs, node)
        self.rebind_moved(state, f)
        after: Value | None = None
        if self._after is not None and self._after[0] is f.node and self._after[1] is receiver:
            after = self._after[2]
        self.rebind_receiver(frame, state, receiver, after, node)
        return result

    def rebind_receiver(
        self, frame: Frame, state: State, old: InstanceV, new: Value | None, node: cst.CSTNode | None
    ) -> None:
        """``old`` after a method ran on it: ``new`` (the method's ``self`` on its ways out), or ``old``
        unpinned where that is not known (the method was not interpreted: not run to its end, cut by
        a bound, a recursion); rebound where it was read from.  ``old`` itself is unpinned in place:
        an alias (another variable, a container, a join that holds it) reads such attributes as
        unknown, never as the constructor's value, and calls memoised on it are dropped.  (Other
        variables are not rebound by identity: one object may stand for two instances at run time.)"""
        if not isinstance(new, InstanceV) or new.cls is not old.cls:
            new = replace(old, attrs=dict(old.attrs), key=f"{old.key}+unpinned", setup=set(old.setup), pinned=False)
        if new is old:
            return
        old.pinned = False
        self._call_memo.drop_holding(old)
        holder: cst.BaseExpression | None = None
        if type(node) is cst.Call:
            holder = node.func.value if type(node.func) is cst.Attribute else node.func
        elif isinstance(node, (cst.Attribute, cst.Subscript)):
            holder = node.value  # a property, ``registry[key] = fn``
        if isinstance(holder, cst.Name):
            prefix = f"{holder.value}."
            for held in [k for k in state.vars if k.startswith(prefix)]:
                attr = held[len(prefix) :]
                if attr in new.attrs:
                    state.vars[held] = new.attrs[attr]
        if holder is not None:
            self.replace_in(frame, state, holder, new)

    def rebind_moved(self, state: State, f: FunctionV) -> None:
        """After a call to ``f``: the caller's variables holding an argument the callee wrote an
        attribute through (``self.config.x = ...`` in a base class's constructor, on every way out)
        hold the argument as the callee left it, so they read what it wrote (other references to the
        object read it as unknown: :meth:`~tensorshape.infer.values.InstanceV.overwritten`)."""
        moved, self._moved = self._moved, None
        if moved is None or moved[0] is not f.node:
            return
        for old, new in moved[1]:
            self.rebind_aliases(state, old, new)

    def unpin_arguments(self, frame: Frame, state: State, values: Sequence[Value]) -> None:
        """Pinned instances passed to code not interpreted here: it may run any of their methods, so
        they are unpinned from now on."""
        for v in values:
            if isinstance(v, InstanceV) and v.pinned and frame.building is not v and v.cls.reassigns(v.setup):
                self.rebind_receiver(frame, state, v, None, None)

    def wrote_unnamed(self, recv: Value) -> None:
        """An attribute of a name not known was written on ``recv``: ``hasattr`` is no longer decided
        on it, if it is a project module.  (On an object the analysis does not know, the write is
        taken to reach no module it knows, as for every attribute read: were it one, what the
        analysis reads of that module's attributes would be as stale as a ``hasattr``.)"""
        if isinstance(recv, OptionalV):
            recv = recv.inner
        if isinstance(recv, InstanceV) and recv.cls.is_module:
            self._escaped.add(recv.born)
        elif not isinstance(recv, (InstanceV, ModuleV)):
            self._unseen_unnamed = stamp()  # the assumption ``has_attr`` counts where it decides

    def escape(self, values: Sequence[Value]) -> None:
        """Project modules reached from ``values``, given to code not interpreted here (through the
        attributes and containers holding them): it may give them attributes (torch's
        ``weight_norm`` adds ``weight_g``), so ``hasattr`` is no longer decided on them."""
        found, complete = self.reachable_modules(values)
        self._escaped |= found
        if not complete:
            self._written_unnamed = stamp()  # too many to follow: no module made before now is decided

    def reachable_modules(self, values: Sequence[Value]) -> tuple[set[int], bool]:
        """The stamps of the project modules reached from ``values`` (through the attributes and
        containers holding them), and whether they were all followed (not too many)."""
        found: set[int] = set()
        todo = list(values)
        seen: set[int] = set()
        while todo and len(seen) < _MAX_ESCAPED:
            v = todo.pop()
            if id(v) in seen:
                continue
            seen.add(id(v))
            if isinstance(v, OptionalV):
                todo.append(v.inner)
            elif isinstance(v, InstanceV) and v.cls.is_module:
                found.add(v.born)
                todo.extend(v.attrs.values())
            elif isinstance(v, InstanceV):
                found.add(v.born)  # (its dicts may be filled there: :meth:`never_filled`)
            elif isinstance(v, ModuleV):
                todo.extend(v.children)
                todo.extend(v.args.values())
            elif isinstance(v, TupleV):
                todo.extend(v.items)
            elif isinstance(v, DictV):
                todo.extend(w for _, w in v.items)
            elif isinstance(v, SeqV):
                todo.append(v.elem)
        return found, not todo

    def _call_user(
        self,
        frame: Frame,
        state: State,
        f: FunctionV,
        receiver: Value | None,
        args: Sequence[Arg],
        kwargs: Mapping[str, Arg],
        node: cst.CSTNode | None,
    ) -> Value:
        if frame.learning is not None and node is not None and not f.module.library:
            # A parameter passed on to a project function learns what that function's first use of it
            # requires (``self.block(x)`` whose ``forward`` starts with a convolution).
            args, kwargs = self.learn_args(frame, state, args, kwargs, node, self.ask_callee(frame, f, receiver))
        sig = self.signature(f)
        all_args = list(args)
        if sig.is_method and receiver is not None:
            all_args.insert(0, Arg(receiver))
        call_node = node if node is not None else f.node
        if sig.has_shapes and sig.returns_shape and levels.involved(all_args, kwargs):
            # An annotated function knows nothing of first-class dims: it is batched over them.
            low_args, low_kwargs, bound = levels.lower(all_args, kwargs)
            b = self.check_call(frame, f, sig, low_args, low_kwargs, call_node, receiver)
            out = levels.batched(self.result_of(frame, sig.returns, b), bound)
            return out if out is not None else UnknownV()
        quiet = False
        if sig.has_shapes:
            fresh: set[Any] = set()
            b = self.check_call(frame, f, sig, all_args, kwargs, call_node, receiver, fresh)
            result = self.result_of(frame, sig.returns, b, lambda name: _record(frame.ctx.fresh(name), fresh))
            # Arguments that break the annotations are the caller's error, reported at the call: the
            # callee's body, correct for the values its annotations allow, is not run with them.
            if b.violated:
                if not (frame.building is not None and receiver is frame.building):
                    return result if sig.returns_shape else UnknownV()
                quiet = True
            elif sig.returns_shape:
                # The body with the actual values may know more than the annotation (``-> "b out"`` of a
                # layer built as ``nn.Linear(d, 64)``).  What it finds with values the annotations allow is
                # the callee's: reported there, in this file; a callee in another file reports its own.
                quiet = f.module is not frame.module
                before = len(frame.ctx.diagnostics)
                body = self.inline(frame, f, sig, all_args, kwargs, call_node, receiver, quiet=quiet)
                # Where the callee's own analysis reports too, its report stands alone (see ``analyze``).
                self._with_values.update(id(d) for d in frame.ctx.diagnostics[before:])
                return more_precise(result, body, frozenset(fresh))
        if frame.building is not None and receiver is frame.building:
            # A helper called by ``__init__`` (``self._build_layers()``) builds the instance too.
            inst = frame.building
            inst.setup.add(f.node.name.value)
            prefix = building_prefix(inst)
            overlay = {k: v for k, v in state.vars.items() if k.startswith(prefix)}
            result = self.inline(
                frame, f, sig, all_args, kwargs, call_node, receiver, building=inst, overlay=overlay, quiet=quiet
            )
            state.vars.update(overlay)
            return result
        return self.inline(frame, f, sig, all_args, kwargs, call_node, receiver)

    def run_setter(
        self, frame: Frame, state: State, recv: InstanceV, setter: FunctionV, value: Value, at: cst.CSTNode
    ) -> InstanceV:
        """``recv.p = value`` of a property with a setter: its body run on the instance.  While ``recv``
        is built, as a helper of its constructor (its pending attributes updated); otherwise on a copy
        that the setter builds further (``with_attr``'s edit, one attribute or several), returned.
        What it assigns is unknown when the depth bound cut something short or the body may not end
        normally (a ``raise`` for the value): nothing stale."""
        changed = assigned_attrs(setter.node)
        ran = setter.node.name.value + SETTER
        hollow = self._hollow
        if frame.building is recv:
            recv.setup.add(ran)
            done = self.call_user(frame, state, setter, recv, [Arg(value)], {}, at)
            if self._hollow != hollow or not isinstance(done, NoneV):
                for a in changed:
                    state.vars[building_key(recv, a)] = UnknownV()
            return recv
        attrs = {k: v for k, v in recv.attrs.items() if k != setter.node.name.value}
        # Other references to the object (a caller's, a model's ``self.config``) keep the setter's
        # attributes unknown (:meth:`~tensorshape.infer.values.ClassV.reassigned`); this one knows them.
        edited = InstanceV(recv.cls, attrs, f"{recv.key}+{ran}", {*recv.setup, ran}, recv.open_reason, **recv.copy_of())
        overlay: dict[str, Value] = {}
        sig = self.signature(setter)
        done = self.inline(
            frame, setter, sig, [Arg(edited), Arg(value)], {}, at, edited, building=edited, overlay=overlay
        )
        _commit(edited, overlay)
        if self._hollow != hollow or not isinstance(done, NoneV):
            for a in changed:
                edited.attrs[a] = UnknownV()
        return edited

    def check_call(
        self,
        frame: Frame,
        f: FunctionV,
        sig: Signature,
        args: Sequence[Arg],
        kwargs: Mapping[str, Arg],
        node: cst.CSTNode,
        receiver: Value | None,
        fresh: set[Any] | None = None,
    ) -> Bindings:
        """Check a call against the callee's shape annotations: the bindings of the annotations' names."""
        op = sig.opdef(f.qualname)
        span = frame.ticket(node)
        cargs = [self.core_arg(frame, a) for a in args]
        ckw = {k: self.core_arg(frame, a) for k, a in kwargs.items()}

        def refs(path: str, bound: Mapping[str, Arg]) -> Dim | None:
            head, _, rest = path.partition(".")
            if head == "self" and isinstance(receiver, InstanceV) and rest:
                v = self.attribute(frame, State(), receiver, rest.split(".")[0], None)
                return v.value if isinstance(v, IntV) else None
            return param_ref(path, bound)

        return signature.check_call(op, cargs, ckw, frame.ctx, span, f.node.name.value, refs)

    def result_of(
        self, frame: Frame, ann: Annotation | None, b: Bindings, fresh: Callable[[str], Dim] | None = None
    ) -> Value:
        """The value an annotation promises, under a call's bindings (``fresh`` names the unbound dims)."""
        if ann is None:
            return UnknownV()
        if ann.kind == "tensor":
            if ann.spec is None:
                return TensorV(_unknown_shape())
            return TensorV(instantiate(ann.spec, b, fresh or frame.ctx.fresh))
        if ann.kind == "tuple":
            return TupleV(tuple(self.result_of(frame, a, b, fresh) for a in ann.items))
        if ann.kind == "list" and ann.items:
            return SeqV(self.result_of(frame, ann.items[0], b, fresh), SeqKind.LIST)
        if ann.kind == "int":
            return IntV(Unknown())
        if ann.kind == "float":
            return FloatV(None)
        if ann.kind == "bool":
            return BoolV(None)
        if ann.kind == "none":
            return NONE
        return UnknownV()

    def inline(
        self,
        frame: Frame,
        f: FunctionV,
        sig: Signature,
        args: Sequence[Arg],
        kwargs: Mapping[str, Arg],
        node: cst.CSTNode,
        receiver: Value | None,
        building: InstanceV | None = None,
        overlay: dict[str, Value] | None = None,
        quiet: bool = False,
    ) -> Value:
        """Interpret ``f`` with the actual arguments (memoised, depth bounded).

        While building an instance, ``overlay`` carries its pending attributes
        in and out (see :func:`~tensorshape.infer.values.building_key`).  A
        ``quiet`` call only computes the result: what the body finds is not reported."""
        key: Any
        entry = self._entry_facts.pop(id(f.node), NO_FACTS)
        try:
            key = (
                # A function defined inside another sees that call's variables: memoised per definition.
                id(f.node) if f.closure is None else f,
                id(building) if building is not None else None,
                tuple(a.value for a in args),
                tuple(sorted((k, a.value) for k, a in kwargs.items())),
                quiet,
                entry,
                last_write(),  # a write through a reference since may change what the body reads
            )
            hash(key)
        except TypeError:
            key = None
        # Building an instance does not count toward the call depth (a model's constructor calls a
        # layer helper that builds blocks that call a conv helper), but constructions nest boundedly.
        # Calls into an installed package are inlined deeper (layers of small builders).
        self._inlines += 1
        self.reached.add(function_key(f.module.path, f.node))
        limit = MAX_LIBRARY_DEPTH if f.module.library else frame.limit
        too_deep = frame.depth >= limit if building is None else frame.build_depth >= MAX_BUILD_DEPTH
        if too_deep or (key is not None and key in self._active) or f.node.asynchronous is not None:
            # Not run: what it calls is not known, so the modules it was given may have been given
            # any attribute (:meth:`never_written`).
            passed = [a.value for a in (*args, *kwargs.values())]
            found, complete = self.reachable_modules([*passed, *(v for v in (receiver, building) if v is not None)])
            self._cut_reached |= found
            if not complete:
                self._cut_unbounded = stamp()
            # Whatever construction is under way is cut short (a builder's ``conv3x3(...)`` as much as
            # a nested ``__init__``): its instance is not memoised.
            self._hollow += 1
            self.may_raise += 1  # the body is not run
            self._after = None
            self._edits = None
            if too_deep:
                self._cut += 1
            return self.result_of(frame, sig.returns, Bindings(frame.ctx.facts)) if sig.returns else UnknownV()
        span = frame.ticket(node)
        what = f"call to `{f.node.name.value}`"
        if (
            key is not None
            and key in self._call_memo
            and building is None
            and self.adopted(
                frame,
                self._call_memo[key][2],
                (self._call_memo[key][0], self._call_constraints.get(key), self._call_facts.get(key)),
                key,
            )
        ):
            result, diags, _, sets_modes = self._call_memo[key]
            self.may_raise += self._call_raises.get(key, True)
            self.mode_sets += sets_modes
            self._after = self._call_after.get(key)
            self._edits = self._call_edits.get(key)
            self._moved = None  # (a call that wrote through a reference is not reused: ``last_write``)
            callee = Frame(f.module, self.new_context(), f, sig)
            callee.ctx.diagnostics.extend(diags)
            callee.ctx.constraints.extend(self._call_constraints.get(key, ()))
            if not quiet:
                self.merge_callee(frame, callee, span, what)
            frame.ctx.learned.extend(self._call_facts.get(key, ()))
            return result
        callee = Frame(
            f.module,
            self.new_context(),
            f,
            sig,
            depth=frame.depth + (building is None),
            limit=frame.limit,
            build_depth=frame.build_depth + (building is not None),
            opaque=frame.opaque,
            generic=False,
            building=building,
        )
        callee.ctx.symbols = frame.ctx.symbols
        callee.ctx.partial = frame.ctx.partial
        callee.ctx.muted = quiet
        state = State(dict(f.closure) if f.closure else {}, entry)
        if overlay:
            state.vars.update(overlay)
        op = sig.opdef(f.qualname)
        bound = engine.bind(op, list(args), dict(kwargs))
        for i, p in enumerate(sig.params):
            a = bound.get(p.name) if bound is not None else (args[i] if i < len(args) else kwargs.get(p.name))
            if a is None:
                state.vars[p.name] = p.default if p.default is not None else UnknownV()
            elif p.kind == "var_keyword":
                state.vars[p.name] = a.value if isinstance(a.value, DictV) else UnknownV()
            else:
                state.vars[p.name] = a.value
        given = {p.name: v for p in sig.params if isinstance(v := state.vars.get(p.name), InstanceV)}
        if key is not None:
            self._active.add(key)
        cut = self._cut
        sets = self.mode_sets
        raises = self.may_raise
        try:
            end = self.exec_block(callee, state, _body(f.node))
        finally:
            if key is not None:
                self._active.discard(key)
        exits = end
        for s in callee.return_states:
            exits = join_states(exits, s)
        if building is not None and overlay is not None and exits is not None:
            # What the helper set on the instance, on every way out (``self.inplanes = ...; return layer``).
            prefix = building_prefix(building)
            overlay.clear()
            overlay.update({k: v for k, v in exits.vars.items() if k.startswith(prefix)})
        # The receiver as the callee leaves it (what it assigned to ``self``), for :meth:`call_user`.
        this = sig.params[0].name if sig.is_method and sig.params else None
        out = exits.vars.get(this) if exits is not None and this is not None else None
        after = (f.node, receiver, out) if receiver is not None and out is not None else None
        # The dicts it edited in place, as it leaves them (read by :meth:`forget_edited_configs`).
        carried = carried_params(f.node) if exits is not None else frozenset()
        edits = (f.node, {p: exits.vars.get(p, UnknownV()) for p in carried}) if exits is not None and carried else None
        joined: Value | None = None
        for r in callee.returns:
            joined = r if joined is None else join_values(joined, r)
        if end is not None:
            joined = NONE if joined is None else join_values(joined, NONE)
        result = joined if joined is not None else UnknownV()
        if not quiet:
            self.merge_callee(frame, callee, span, what)
        # The call returns only if what the callee required held: the caller learns it.
        facts = callee.return_facts
        if end is not None:
            facts = end.facts if facts is None else facts.join(end.facts)
        learned = facts.relations() if facts else []
        frame.ctx.learned.extend(learned)
        if key is not None and building is None and self._cut == cut:
            # A result the depth bound cut short is not memoised: the same call from a shallower
            # place (``main()``'s own analysis after the module ran it) goes deeper.
            self._call_memo[key] = (
                result,
                list(callee.ctx.diagnostics),
                frame.ctx.symbols.token,
                self.mode_sets != sets,
            )
            self._call_constraints[key] = list(callee.ctx.constraints)
            self._call_facts[key] = learned
            self._call_after[key] = after
            self._call_edits[key] = edits
            self._call_raises[key] = self.may_raise != raises
        self._after = after
        self._edits = edits
        self._moved = (f.node, _moved_arguments(given, exits)) if given and exits is not None else None
        return result

    def set_mode(
        self,
        frame: Frame,
        state: State,
        func: ReturnsSelfV,
        args: Sequence[Arg],
        kwargs: Mapping[str, Arg],
        node: cst.CSTNode,
    ) -> Value:
        """``model.eval()``, ``model.train(mode)``: the module and every module it holds in that mode
        (unknown where the argument is not a known bool), rebound where it was read from (``model``,
        ``self.encoder``) and in every variable of this activation that holds it or one of its parts."""
        mode = BoolV(False)
        if func.method == "train":
            given = args[0].value if args else kwargs["mode"].value if "mode" in kwargs else BoolV(True)
            mode = given if isinstance(given, BoolV) else BoolV(None)
        old = func.receiver
        if not isinstance(old, (InstanceV, ModuleV)):
            return old
        if frame.building is old:
            # ``self.eval()`` in ``__init__``: the parts built so far, and the instance once built.
            for k, v in building_attrs(old, state).items():
                state.vars[building_key(old, k)] = with_mode(v, mode)
            state.vars[building_key(old, TRAINING)] = mode
            return old
        self.mode_sets += 1
        new = self.moded(old, mode)
        if new is old:
            return old
        parts: dict[int, Value] = {}
        _pair_parts(old, new, parts)
        for name, v in list(state.vars.items()):
            if id(v) in parts:
                state.vars[name] = parts[id(v)]
        if type(node) is cst.Call and type(node.func) is cst.Attribute:
            self.replace_in(frame, state, node.func.value, new)
        return new

    def moded(self, v: Value, mode: BoolV) -> Value:
        """:func:`with_mode`, one copy per module and mode (``model.train()`` after ``model.eval()``
        is the module as built again), so calls memoised on it are reused and loops settle."""
        if not isinstance(v, InstanceV):
            # A container read again and again (a registry dict a decorator fills, a module's table of
            # configurations, read at every global look-up in a function) is walked once per mode when
            # it holds no module: the walk gives ``v`` itself again.
            if not isinstance(v, (TupleV, SeqV, DictV, ModuleV)):
                return with_mode(v, mode)
            key = (id(v), mode.value)
            same = self._unmoded.get(key)
            if same is v:
                return v
            out = with_mode(v, mode)
            if out is v:
                self._unmoded[key] = v
            return out
        origin = v.origin or v
        key = (id(origin), mode.value)
        hit = self._moded.get(key)
        stale = hit is not None and isinstance(hit[1], InstanceV) and origin.pinned and not hit[1].pinned
        if hit is None or hit[0] is not origin or stale:
            hit = self._moded[key] = (origin, with_mode(origin, mode))
        return hit[1]

    def adopted(self, frame: Frame, source: int, made: Any, given: Any) -> bool:
        """Whether ``made``, which the analysis whose symbol table has the token ``source`` made from
        the values ``given`` (a memoised call's result from its arguments, a cached instance), can be
        used here: its own sizes (those not in ``given``, which name the same sizes here, since the
        memo's key matched) are taken into this analysis, unless one has a name this analysis gave to
        another size (then the caller computes the value again)."""
        table = frame.ctx.symbols
        if source == table.token:
            return True
        if table.adopt(opaque_names([made]) - opaque_names([given]), source):
            return True
        self.stats["reuse-recomputed"] += 1
        return False

    # -- the project's classes ----------------------------------------------------------------------
    def instantiate(
        self, frame: Frame, state: State, cls: ClassV, args: Sequence[Arg], kwargs: Mapping[str, Arg], node: cst.CSTNode
    ) -> Value:
        # A dataclass's generated ``__init__``, its own or one a subclass without an ``__init__`` inherits.
        made = generated_init(cls)
        if made is not None and made.dataclass_fields is not None:
            inst = InstanceV(cls, key=f"{cls.qualname}(...)", pinned=True)
            fields = made.dataclass_fields
            names = [n for n, _ in fields]
            for (n, default), i in zip(fields, range(len(names))):
                # The generated ``__init__`` assigns each field: through a ``__setattr__`` that may rename it.
                if i < len(args):
                    inst.attrs[stored_name(cls, n)] = args[i].value
                elif n in kwargs:
                    inst.attrs[stored_name(cls, n)] = kwargs[n].value
                elif default is not None:
                    inst.attrs[stored_name(cls, n)] = self.field_default(frame, state, default, node)
            inst.open_reason = unseen_constructor(cls, None, False)
            if any(opaque_setattr(c, cls) for c in cls.lineage()):
                inst.attrs.clear()  # the generated ``__init__`` sets each field through ``__setattr__``
            if any(c.hook_reason is not None for c in cls.lineage()):
                inst.attrs.clear()  # a hook or class decorator not followed may change the constructor
            if (cls.dataclass_kw_only or made.dataclass_kw_only or cls.kwargs_init) and args:
                inst.attrs.clear()  # ``kw_only`` fields passed by position: Python raises
                inst.open_reason = inst.open_reason or f"`{cls.qualname}` takes its fields by keyword only"
            # The keywords that are not fields: an ``__init__`` taking any keyword passes them on.
            rest = DictV(tuple((k, a.value) for k, a in kwargs.items() if k not in names))
            if rest.items and not cls.kwargs_init:
                inst.attrs.clear()  # an unexpected keyword: Python raises
                inst.open_reason = inst.open_reason or f"`{cls.qualname}` is given a keyword that is not a field"
            if dict_base(cls):
                self.run_field_setters(frame, inst, [n for n in names if stored_name(cls, n) in inst.attrs], node)
            post = cls.lookup("__post_init__")
            if (
                isinstance(post, FunctionV)
                and inst.open_reason is None
                and len(args) <= len(names)
                and self.run_post_init(frame, inst, post, node, rest)
            ):
                self.validate_after_init(inst)
                return inst
            if isinstance(post, FunctionV) or inst.open_reason is not None or len(args) > len(names):
                # What ``__post_init__`` (or a decorator's constructor) sets is not the field's value.
                changed = (
                    set(names)
                    if not isinstance(post, FunctionV) or not _post_init_followed(post)
                    else {a for c in cls.lineage() for a in c.assigned_in.get("__post_init__", ())}
                )
                for n in changed:
                    inst.attrs.pop(n, None)
                inst.open_reason = inst.open_reason or f"`{cls.qualname}.__post_init__` is not analysed"
            self.validate_after_init(inst)
            return inst
        try:
            key: Any = (
                id(cls.node),
                tuple(a.value for a in args),
                tuple(sorted((k, a.value) for k, a in kwargs.items())),
                last_write(),
            )
            hash(key)
        except TypeError:
            key = None
        if key is not None and key in self._instances and self._instances[key][0].pinned:
            # (One unpinned since, where an alias may have run a method on it, is built again.)
            cached, source = self._instances[key]
            if self.adopted(frame, source, cached, key):
                if cached.cls.reassigns(cached.setup) or cached.cls.written:
                    # Another construction is another instance: a method run on one, or a write through
                    # a reference to it, leaves the other.
                    return _another(cached)
                cached.shared = True
                return cached
        inst = InstanceV(cls, key=f"{cls.qualname}#{len(self._instances)}", pinned=True)
        if key is not None:
            self._instances[key] = (inst, frame.ctx.symbols.token)
        init = cls.lookup("__init__")
        inst.open_reason = unseen_constructor(cls, init, bool(args or kwargs))
        if isinstance(init, FunctionV):
            sig = self.signature(init)
            overlay: dict[str, Value] = {}
            hollow = self._hollow
            self._moved = None
            self.inline(frame, init, sig, [Arg(inst), *args], kwargs, node, inst, building=inst, overlay=overlay)
            self.rebind_moved(state, init)
            _commit(inst, overlay)
            if self._hollow != hollow and key is not None:
                # The depth bound stopped an ``__init__`` inside: a construction with the same
                # arguments from a shallower call must build the instance again, in full.
                self._instances.pop(key, None)
        elif init is None:
            base = _torch_module_base(cls)
            if base is not None:
                # ``class Wide(nn.Linear): ...`` with no ``__init__`` of its own: torch's builds the layer.
                inst.attrs[CONTAINER] = self.call_external(frame, state, base, args, kwargs, node)
            elif dict_base(cls):
                # ``ClassInstantier(ACT2CLS)``: the dict's constructor keeps the items (``None``: not known).
                items = dict_items(cls, [a.value for a in args], {k: a.value for k, a in kwargs.items()})
                inst.attrs[ITEMS] = items if items is not None else UnknownV()
        if key is not None and key in self._instances and inst.cls.reassigns(inst.setup):
            return _another(inst)  # the memoised one is never unpinned: each construction gets a copy
        return inst

    def has_attr(self, frame: Frame, state: State, inst: Value, name: str) -> bool | None:
        """``hasattr(inst, name)`` when known (:func:`~tensorshape.infer.values.has_attribute`)."""
        if isinstance(inst, ModuleNsV):
            # ``hasattr(mod, "default_cfgs")`` of a project module: a global it has bound (so far, while
            # its top level runs) is there; one it lacks may come later, from a star import or a
            # module ``__getattr__``: not decided.
            return True if self.module_global(inst.info, name) is not None else None
        if isinstance(inst, ClassV) and name in CLASS_ATTRIBUTES:
            return True  # every class has its ``__name__`` (``type``'s own attributes)
        if not isinstance(inst, InstanceV):
            return None
        building = frame.building is inst
        attrs = building_attrs(inst, state) if building else inst.attrs
        # An ``nn.Module`` the program built (not a method's generic ``self``, which may be a
        # subclass's), never given to code not interpreted here, with no attribute written by a name
        # not known on an object that may be it since it was made: what the analysis saw set on it
        # is all it has.
        sealed = inst.cls.is_module and self.untouched(inst)
        answer = has_attribute(inst, name, attrs, building, self._written_attrs, sealed)
        if answer is None and sealed and not building and self.never_written(inst, name):
            answer = False
        if answer is False and inst.cls.is_module and inst.born < self._unseen_unnamed:
            # Decided although an attribute of a name not known was written since the module was
            # made, through an object not known: taken not to be this module (counted, never silent).
            self.stats["hasattr-assumed"] += 1
        return answer

    def untouched(self, inst: InstanceV) -> bool:
        """Made while the analysis watched (not a method's generic ``self``), never given to code not
        interpreted here, and no attribute written by a name not known on an object that may be it
        since it was made."""
        return (
            inst.born > self._written_unnamed
            and inst.born not in self._escaped
            and all(g.born != inst.born for g in self._generic_instances.values())
        )

    def cut_short(self, inst: InstanceV) -> bool:
        """Was ``inst`` given to a call that was cut short (which may have done anything to it)?"""
        return inst.born in self._cut_reached or inst.born < self._cut_unbounded

    def never_written(self, inst: InstanceV, name: str) -> bool:
        """Was attribute ``name`` certainly never given to ``inst``, a built module of installed
        classes (sealed: never given to code not interpreted, no attribute of a name not known written
        on it), though its class line's code may write it?  When the name is not torch's (a
        module's own), not a member, not set on it nor on any other object so far, the classes
        analysed with nothing unknown done to them, and no function of their packages that may
        write an attribute of that name (:class:`~tensorshape.infer.writers.PackageWriters`) has been
        reached: not run, nor called and cut short, so it wrote nothing; nor was the instance given
        to a call cut short (which may have run one).  transformers' ``getattr(self, "_use_kernels",
        False)`` in ``PreTrainedModel.train``."""
        if name.startswith("__") or name in NN_MODULE_NAMES or name in NN_MODULE_PRIVATE_NAMES:
            return False
        if name in inst.attrs or name in self._written_attrs or inst.open_reason is not None:
            return False
        if self.cut_short(inst) or inst.cls.lookup(name) is not None:
            return False
        roots: set[Path] = set()
        for c in inst.cls.lineage():
            if not c.module.library or c.hook_reason is not None or c.node.keywords:
                return False
            if any(m in c.members for m in _ATTRIBUTE_HOOKS):
                return False
            if any(
                not isinstance(b, ClassV) and not (isinstance(b, ExternalV) and canonical(b.qualname) in MODULE_BASES)
                for b in c.bases
            ):
                return False
            root = self.package_folder(c.module)
            if root is None:
                return False
            roots.add(root)
        return self.none_reached(roots, name, contents=False)

    def package_folder(self, info: ModuleInfo) -> Path | None:
        """The folder of the installed package ``info`` is part of (``None``: not a package's)."""
        init = self.project.find_module(info.name.partition(".")[0])
        return init.parent if init is not None and init.name == "__init__.py" else None

    def none_reached(self, roots: set[Path], name: str, contents: bool) -> bool:
        """Has no function of the packages in ``roots`` that may write attribute ``name`` (with
        ``contents``: change the dict it holds) been reached, and are they all known?"""
        for root in sorted(roots):
            writers = self.project.writers.writers(root, name, contents=contents)
            if writers is None or writers & self.reached:
                return False
        return True

    def never_filled(self, inst: InstanceV, name: str) -> bool:
        """Does the dict that attribute ``name`` of ``inst`` holds certainly still hold only what the
        analysis saw put in it?  ``inst`` is an instance of installed classes made while the
        analysis watched, never given to code not interpreted (nor to a call cut short), with no
        attribute written by a name not known since; and no function of their packages that may
        change the dict (:meth:`~tensorshape.infer.writers.PackageWriters.writers` with
        ``contents``) has been reached.  transformers' ``_LazyAutoMapping._extra_content``, which
        only ``register`` fills: ``type(config) in self._extra_content`` is ``False``."""
        if name.startswith("__") or name in self._written_attrs or inst.open_reason is not None:
            return False
        if not self.untouched(inst) or self.cut_short(inst):
            return False
        roots: set[Path] = set()
        for c in inst.cls.lineage():
            root = self.package_folder(c.module) if c.module.library and c.hook_reason is None else None
            if root is None:
                return False
            roots.add(root)
        return self.none_reached(roots, name, contents=True)

    def set_building_attr(
        self, frame: Frame, state: State, inst: InstanceV, name: Value, value: Value, hooked: bool = True
    ) -> None:
        """``setattr(self, name, value)`` while ``inst`` is built: the attribute of a literal name is
        ``value`` (stored under the name a renaming ``__setattr__`` gives it, unless not ``hooked``:
        ``object.__setattr__``); a name not known may be any attribute, so each joins ``value``, and
        the instance may have others it does not show."""
        if isinstance(name, StrV) and name.value is not None:
            state.vars[building_key(inst, stored_name(inst.cls, name.value) if hooked else name.value)] = value
            return
        for k, v in building_attrs(inst, state).items():
            state.vars[building_key(inst, k)] = join_values(v, value)
        inst.open_reason = inst.open_reason or "an attribute is set by a name not known"

    def field_default(self, frame: Frame, state: State, default: Value, node: cst.CSTNode) -> Value:
        """The value a dataclass's generated ``__init__`` gives a field it is not passed: its default,
        or what its ``default_factory`` returns, called anew for this instance."""
        if not isinstance(default, FieldFactoryV):
            return default
        return self.call(frame, state, default.factory, [], {}, node)

    def dataclass_fields(self, of: Value) -> Value:
        """``dataclasses.fields(x)`` of a project dataclass (or one of its instances): each field's
        ``name`` and ``default`` (``MISSING`` when it has none, or a ``default_factory``)."""
        cls = of.cls if isinstance(of, InstanceV) else of
        if not isinstance(cls, ClassV) or cls.dataclass_fields is None:
            return UnknownV()
        if any(mentions(c.node, _INIT_VARS) for c in cls.lineage()):
            return UnknownV()  # an ``InitVar`` pseudo-field is not one of ``fields()``
        missing = ExternalV("dataclasses.MISSING")
        return TupleV(
            tuple(
                AttrsV((("name", StrV(n)), ("default", missing if d is None or isinstance(d, FieldFactoryV) else d)))
                for n, d in cls.dataclass_fields
            )
        )

    def dataclass_replace(
        self, frame: Frame, state: State, of: Value, changes: Mapping[str, Arg], node: cst.CSTNode
    ) -> Value:
        """``dataclasses.replace(x, **changes)`` of a project dataclass's instance whose fields are known:
        its class built again from its fields, ``changes`` replacing some (``__post_init__`` runs, as
        in Python).  Unknown when a field is ``init=False`` or an ``InitVar`` (Python treats those
        apart), when the instance's fields are not all known, or a change is not a field (Python raises
        then, and an error needs the fields ``replace`` sees: left unreported)."""
        fields = of.cls.dataclass_fields if isinstance(of, InstanceV) and of.open_reason is None else None
        if not isinstance(of, InstanceV) or fields is None:
            return UnknownV()
        cls = of.cls
        names = [n for n, _ in fields]
        if any(mentions(c.node, _INIT_VARS) or _init_false_field(c.node) for c in cls.lineage()):
            return UnknownV()
        if any(n not in of.attrs or of.stale(n) for n in names) or any(k not in names for k in changes):
            return UnknownV()
        kwargs = {n: changes[n] if n in changes else Arg(of.attrs[n]) for n in names}
        return self.call(frame, state, cls, [], kwargs, node)

    def run_post_init(
        self, frame: Frame, inst: InstanceV, post: FunctionV, node: cst.CSTNode, rest: DictV = _NO_KEYWORDS
    ) -> bool:
        """Run a dataclass's ``__post_init__`` on the instance its fields built, as ``__init__`` builds
        one: what it assigns to ``self`` (``self.d_head = self.d_model // self.n_head``) is the value it
        computes.  A ``**kwargs`` parameter gets ``rest``, the keywords that were not fields (an
        ``__init__`` taking any keyword passes them on; the generated one passes none).  ``False``
        (nothing run) when it takes ``InitVar`` arguments or may set attributes by name (``vars``,
        ``__dict__`` writes); a run the depth bound cut short leaves what it assigns unknown."""
        sig = self.signature(post)
        plain = [p for p in sig.params if p.kind != "var_keyword"]
        if len(plain) != 1 or not _post_init_followed(post) or (rest.items and len(plain) == len(sig.params)):
            return False
        prefix = building_prefix(inst)
        overlay = {prefix + k: v for k, v in inst.attrs.items()}
        hollow = self._hollow
        inst.setup.add("__post_init__")
        passed = {k: Arg(v) for k, v in rest.items} if len(plain) < len(sig.params) else {}
        self.inline(frame, post, sig, [Arg(inst)], passed, node, inst, building=inst, overlay=overlay)
        if self._hollow != hollow:
            for c in inst.cls.lineage():
                for a in c.assigned_in.get("__post_init__", ()):
                    overlay.pop(prefix + a, None)
            inst.open_reason = f"`{inst.cls.qualname}.__post_init__` was cut short by the depth bound"
        inst.attrs.clear()
        _commit(inst, overlay)
        return True

    def run_field_setters(self, frame: Frame, inst: InstanceV, names: Sequence[str], node: cst.CSTNode) -> None:
        """The items of a dataclass's instance whose base is a dict (transformers' ``ModelOutput``):
        the generated ``__init__`` runs no dict constructor, so there are none, unless the class's
        ``__setattr__`` (transparent: :func:`~tensorshape.infer.values.opaque_setattr`) stores some
        as it sets each field (``super().__setitem__(name, value)``): then it runs on each field
        assigned, in order, on the instance being built.  Items not followed are unknown."""
        inst.attrs[ITEMS] = DictV(())
        setter = next((c.members["__setattr__"] for c in inst.cls.lineage() if "__setattr__" in c.members), None)
        if setter is None or (isinstance(setter, FunctionV) and not mentions(setter.node, _ITEM_SETTERS)):
            return
        if not isinstance(setter, FunctionV) or inst.open_reason is not None:
            inst.attrs[ITEMS] = UnknownV()
            return
        sig = self.signature(setter)
        prefix = building_prefix(inst)
        overlay = {prefix + k: v for k, v in inst.attrs.items()}
        hollow = self._hollow
        for n in names:
            value = inst.attrs[stored_name(inst.cls, n)]
            self.inline(frame, setter, sig, [Arg(inst), Arg(StrV(n)), Arg(value)], {}, node, inst, inst, overlay)
        inst.attrs.clear()
        _commit(inst, overlay)
        if self._hollow != hollow:
            inst.attrs[ITEMS] = UnknownV()

    def validate_after_init(self, inst: InstanceV) -> None:
        """A constructor wrapped to run validators after it (``@strict``) may call any method of the
        class on the instance: what those methods assign is not known after it."""
        if not inst.cls.validated:
            return
        for a in validator_writes(inst.cls):
            inst.attrs.pop(a, None)

    def call_instance(
        self,
        frame: Frame,
        state: State,
        inst: InstanceV,
        args: Sequence[Arg],
        kwargs: Mapping[str, Arg],
        node: cst.CSTNode,
    ) -> Value:
        name = "forward" if inst.cls.is_module else "__call__"
        method = inst.cls.lookup(name)
        if method is None and inst.cls.is_module:
            method = inst.cls.lookup("__call__")
        if isinstance(method, FunctionV):
            return self.call_user(frame, state, method, inst, args, kwargs, node)
        container = as_container(inst)
        if method is None and container is not inst:
            return self.call(frame, state, container, args, kwargs, node)  # a ``Sequential`` subclass
        return UnknownV()

    def init_container(
        self,
        frame: Frame,
        state: State,
        init: ContainerInitV,
        args: Sequence[Arg],
        kwargs: Mapping[str, Arg],
        node: cst.CSTNode,
    ) -> Value:
        """``super().__init__(*layers)`` in a ``Sequential`` subclass's ``__init__``: the container is
        built as ``nn.Sequential(*layers)`` would be and kept on the instance being built."""
        inst = init.instance
        if isinstance(inst, InstanceV) and frame.building is inst:
            built = self.call_external(frame, state, init.qualname, args, kwargs, node)
            state.vars[building_key(inst, CONTAINER)] = built
        return NONE

    def init_dataclass_base(
        self,
        frame: Frame,
        state: State,
        init: DataclassInitV,
        args: Sequence[Arg],
        kwargs: Mapping[str, Arg],
        node: cst.CSTNode,
    ) -> Value:
        """``super().__init__(...)`` in the ``__init__`` of a dataclass's subclass (torchvision's
        ``MBConvConfig``): the generated ``__init__`` sets each field of the instance being built to the
        argument passed, else to its default.  A call Python refuses, a field without a known default,
        or a generated ``__init__`` that does more (``__post_init__``, keywords only, a class hook)
        sets nothing known: the instance is open, its fields unknown."""
        inst, made = init.instance, init.cls
        if not isinstance(inst, InstanceV) or frame.building is not inst or made.dataclass_fields is None:
            return UnknownV()
        fields = made.dataclass_fields
        names = [n for n, _ in fields]
        values: dict[str, Value] = {}
        for i, (n, default) in enumerate(fields):
            if i < len(args):
                values[n] = args[i].value
            elif n in kwargs:
                values[n] = kwargs[n].value
            elif default is not None:
                values[n] = self.field_default(frame, state, default, node)
        refused = (
            len(args) > len(names)
            or any(k not in names or names.index(k) < len(args) for k in kwargs)
            or len(values) < len(names)
        )
        followed = not (
            refused
            or made.dataclass_kw_only
            or made.kwargs_init
            or isinstance(made.lookup("__post_init__"), FunctionV)
            or any(c.hook_reason is not None or opaque_setattr(c, inst.cls) for c in made.lineage())
        )
        if not followed:
            inst.open_reason = inst.open_reason or f"the generated `{made.qualname}.__init__` is not followed"
            for n in names:
                self.set_building_attr(frame, state, inst, StrV(n), UnknownV())
            return UnknownV()
        for n, v in values.items():
            self.set_building_attr(frame, state, inst, StrV(n), v)
        return NONE

    # -- reveal_shape ------------------------------------------------------------------------------------
    def reveal(self, frame: Frame, args: Sequence[Arg], node: cst.Call) -> Value:
        if not args:
            return UnknownV()
        v: Value = args[0].value
        if frame.generic:
            self.report(frame, codes.REVEAL, f"revealed shape: {describe_value(v)}", frame.ticket(node), None)
        elif frame.module is self.checked and not frame.ctx.muted:
            # The body run with a caller's arguments (the program's own sizes): a second view of the
            # same line, shown after the generic one (see ``api.merge_reveals``).
            message = f"revealed shape: {describe_value(v)} {WITH_CALLER}"
            self.report(frame, codes.REVEAL, message, frame.ticket(node), None)
        return v


def _imported_name(name: Value, package: Value = NONE) -> str | None:
    """The absolute module name ``importlib.import_module(name, package)`` imports, when both are
    literals (``".bert"`` in ``"transformers.models"``: ``transformers.models.bert``)."""
    if not (isinstance(name, StrV) and name.value):
        return None
    dots = len(name.value) - len(name.value.lstrip("."))
    if not dots:
        return name.value
    if not (isinstance(package, StrV) and package.value):
        return None
    parts = package.value.split(".")
    if dots - 1 >= len(parts) or not name.value[dots:]:
        return None
    return ".".join([*parts[: len(parts) - (dots - 1)], name.value[dots:]])


def _record(d: Dim, into: set[Any]) -> Dim:
    into.add(d)
    return d


def more_precise(promised: Value, actual: Value, fresh: frozenset[Any]) -> Value:
    """The result of an annotated call: the annotation's, made precise by what the body computed.

    A dim the annotation leaves open (unknown, or named only in the return annotation: a fresh
    ``out``) takes the body's value; a dim the annotation fixes stays as annotated when the body
    disagrees (the callee's error, reported in the callee).
    """
    if isinstance(promised, TupleV) and isinstance(actual, TupleV) and len(promised.items) == len(actual.items):
        items = tuple(more_precise(p, a, fresh) for p, a in zip(promised.items, actual.items))
        return TupleV(items, promised.kind)
    if not (isinstance(promised, TensorV) and isinstance(actual, TensorV)) or actual.shape.rank is None:
        return promised
    want, got = promised.shape, actual.shape.dims
    assert got is not None
    if want.rank is None:
        star = want.star_index
        assert star is not None
        head, tail = want.items[:star], want.items[star + 1 :]
        if len(head) + len(tail) > len(got):
            return promised
        wanted: list[Dim | None] = [*head, *([None] * (len(got) - len(head) - len(tail))), *tail]
    elif want.rank == len(got):
        wanted = list(want.dims or ())
    else:
        return promised
    dims = [_more_precise_dim(w, a, fresh) for w, a in zip(wanted, got)]
    return TensorV(Shape(tuple(dims)), promised.dtype or actual.dtype, actual.layout, promised.names or actual.names)


def _more_precise_dim(want: Dim | None, got: Dim, fresh: frozenset[Any]) -> Dim:
    if want is None or isinstance(want, Unknown):
        return got
    if isinstance(got, Unknown):
        return want
    if type(want) is not int and fresh and getattr(want, "free_symbols", set()) & fresh:
        return got  # named only by the return annotation: the body says what it is
    if eq3(want, got) is Truth.TRUE:
        return got if type(got) is int else want
    return want


def describe_value(v: Value) -> str:
    return _describe(v, _describe_own)


def _describe_own(v: Value) -> str | None:
    """This front end's values: tensors with first-class dims, instances of the project's classes."""
    if isinstance(v, (LevelTensorV, DimV)):
        return render_levels(v)
    if isinstance(v, InstanceV):
        return v.cls.node.name.value + "(...)"
    if isinstance(v, ClassV):
        return f"class {v.node.name.value}"
    if isinstance(v, ChoiceV):
        return " or ".join(describe_value(o) for o in v.options)
    return None


def _is_reveal(func: Value, node: cst.Call) -> bool:
    if isinstance(func, ExternalV) and func.qualname.endswith(".reveal_shape"):
        return True
    f = node.func
    return isinstance(f, cst.Name) and f.value == "reveal_shape" and not isinstance(func, (FunctionV, ClassV))


#: Functions that call their first argument with the rest (and the keywords not their own) and
#: return what it returns.
_CALL_THROUGH: dict[str, frozenset[str]] = {
    "torch.utils.checkpoint.checkpoint": frozenset(
        {"use_reentrant", "preserve_rng_state", "context_fn", "determinism_check", "debug"}
    ),
}


#: The builtin classes ``isinstance`` is decided for, by the kinds of value that are instances of each.
_INSTANCE_OF: dict[str, tuple[type[Value], ...]] = {
    "int": (IntV, BoolV),
    "float": (FloatV,),
    "bool": (BoolV,),
    "str": (StrV,),
    "dict": (DictV, MapV),
}


_SEQUENCE_ABCS = frozenset({"collections.abc.Sequence", "typing.Sequence"})

#: ABCs a class object is no instance of (an ``Enum`` class, iterable through its metaclass, aside).
_ITERABLE_ABCS = frozenset({"collections.abc.Iterable", "typing.Iterable", *_SEQUENCE_ABCS})

#: Classes of callables: no data value is an instance of one.
_CALLABLE_CLASSES = frozenset({"builtins.type", "functools.partial", "types.FunctionType", "types.MethodType"})

#: Classes no class object is an instance of.
_NOT_CLASSES = frozenset(
    {"builtins.tuple", "builtins.list", "functools.partial", "types.FunctionType", "types.MethodType", "torch.Tensor"}
)


#: The device types ``torch.device`` accepts at the start of a device string.
_DEVICE_TYPES = (
    "cpu",
    "cuda",
    "ipu",
    "xpu",
    "mkldnn",
    "opengl",
    "opencl",
    "ideep",
    "hip",
    "ve",
    "fpga",
    "maia",
    "xla",
    "lazy",
    "vulkan",
    "mps",
    "meta",
    "hpu",
    "mtia",
    "privateuseone",
)


#: Device types of out-of-tree backends (Ascend's ``torch_npu``, Cambricon, Moore Threads, Enflame,
#: DIPU, Tecorigin): importing the backend's package registers the name, so a string naming one is a
#: device the analysis cannot rule out, never an error.
_OUT_OF_TREE_DEVICES = frozenset({"npu", "mlu", "musa", "gcu", "dipu", "sdaa"})


def _device(args: list[Value], kwargs: dict[str, Value]) -> tuple[Value, str | None]:
    """``torch.device("cuda:1")``, ``torch.device("cuda", 1)``, ``torch.device(x.device)``: an object
    with ``.type`` and ``.index`` (known when the string is), and torch's error for a string whose
    device type it does not know."""
    unknown: Value = AttrsV((("type", StrV(None)), ("index", UnknownV())))
    first = args[0] if args else kwargs.get("type")
    if isinstance(first, AttrsV) and first.get("type") is not None and len(args) + len(kwargs) == 1:
        return first, None
    if not isinstance(first, StrV) or first.value is None:
        return unknown, None
    kind, colon, number = first.value.partition(":")
    if kind in _OUT_OF_TREE_DEVICES:
        return unknown, None
    if kind not in _DEVICE_TYPES:
        return unknown, (
            f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device string: {first.value}"
        )
    index: Value = NONE
    if colon:
        if not number.isdigit():
            return unknown, f"Invalid device string: '{first.value}'"
        index = IntV(int(number))
    rest = args[1] if len(args) > 1 else kwargs.get("index")
    if rest is not None and not isinstance(rest, NoneV):
        if colon:
            return (
                unknown,
                f"type (string) must not include an index because index was passed explicitly: {first.value}",
            )
        index = rest if isinstance(rest, IntV) else UnknownV()
    return AttrsV((("type", StrV(kind)), ("index", index))), None


def _is_class(v: Value) -> bool:
    """A class of the project or one torch's table knows (``nn.BatchNorm2d``)."""
    return isinstance(v, ClassV) or (isinstance(v, ExternalV) and canonical(v.qualname) in engine.table().classes)


def _enum_like(v: Value) -> bool:
    """Could the class ``v`` be iterable (an ``Enum``, or a base the analysis cannot see)?"""
    if not isinstance(v, ClassV):
        return False
    return any(
        not isinstance(b, (ClassV, ExternalV)) or (isinstance(b, ExternalV) and "enum" in b.qualname.lower())
        for c in v.lineage()
        for b in c.bases
    )


#: The public ``torch.nn`` module classes that derive from another public one (besides ``nn.Module``):
#: ``(subclass, base)``, as torch defines them.
_NN_SUBCLASSES = frozenset(
    {
        *((f"Lazy{c}", c) for c in ("Linear", "Conv1d", "Conv2d", "Conv3d")),
        *((f"LazyConvTranspose{n}d", f"ConvTranspose{n}d") for n in (1, 2, 3)),
        *((f"ZeroPad{n}d", f"ConstantPad{n}d") for n in (1, 2, 3)),
        *((c, "RNNBase") for c in ("RNN", "GRU", "LSTM")),
        *((c, "RNNCellBase") for c in ("RNNCell", "GRUCell", "LSTMCell")),
        ("UpsamplingBilinear2d", "Upsample"),
        ("UpsamplingNearest2d", "Upsample"),
        ("ReLU6", "Hardtanh"),
        ("NLLLoss2d", "NLLLoss"),
    }
)


def _public_nn(qualname: str) -> str | None:
    """``"Linear"`` for ``"torch.nn.Linear"``; ``None`` for a name outside ``torch.nn`` or private."""
    head, _, name = qualname.rpartition(".")
    return name if head == "torch.nn" and not name.startswith("_") else None


def _module_isinstance(v: ModuleV | InstanceV, cls: str) -> bool | None:
    """``isinstance(m, nn.LayerNorm)`` of a modelled torch layer, or of a project module deriving only
    from ``nn.Module``: decided by torch's class hierarchy (``None`` when it is not certain: a private
    base such as ``_BatchNorm``, a class outside ``torch.nn``, a project class over a torch layer)."""
    if cls == "torch.nn.Module":
        return True if isinstance(v, ModuleV) or v.cls.is_module else None
    base = _public_nn(cls)
    if base is None:
        return None
    if isinstance(v, InstanceV):
        return False if plain_module_class(v.cls) else None
    own = _public_nn(v.qualname)
    if own is None:
        return None
    return own == base or (own, base) in _NN_SUBCLASSES


def _isinstance_any(v: Value, classes: Sequence[Value]) -> bool | None:
    """``isinstance(v, (A, B))``; of a choice of modules, what every option says (``nn.Dropout(p) if
    p > 0 else nn.Identity()`` is an ``nn.Module`` whichever was built)."""
    if isinstance(v, ChoiceV):
        agreed = {_isinstance_any(o, classes) for o in v.options}
        return agreed.pop() if len(agreed) == 1 else None
    answers = [_isinstance(v, c) for c in classes]
    if True in answers:
        return True
    return False if answers and all(a is False for a in answers) else None


def _issubclass(sub: Value, cls: Value) -> bool | None:
    """``issubclass(A, B)`` of two project classes (timm's ``issubclass(attn_layer, DiffAttention)``):
    whether ``B`` is among ``A``'s bases, when every base of ``A`` is a class the analysis knows and
    ``B`` has no base outside the project but ``object`` and torch's (whose metaclass could answer
    otherwise: ``ABCMeta.register``); ``None`` otherwise."""
    if not isinstance(sub, ClassV) or not isinstance(cls, ClassV):
        return None
    line = sub.lineage()
    if any(c is cls for c in line):
        return True
    if any(not isinstance(b, (ClassV, ExternalV)) for c in line for b in c.bases):
        return None
    for c in (*line, *cls.lineage()):
        if any(k.keyword is not None and k.keyword.value == "metaclass" for k in c.node.keywords):
            return None
    if any(not (b.qualname.startswith("torch.") or b.qualname == "builtins.object") for b in _external_bases(cls)):
        return None
    return False


def _isinstance_of_project_class(v: Value, cls: ClassV) -> bool | None:
    """``isinstance(default_cfg, DefaultCfg)`` of a project class: of an instance, whether its class
    derives from ``cls`` (as :func:`_issubclass` decides it); plain data (an int, a string, ``None``,
    a dict or tuple the analysis built) is no instance of a class whose only base outside the
    project is ``object``."""
    if isinstance(v, InstanceV):
        return _issubclass(v.cls, cls)
    if isinstance(v, (IntV, FloatV, BoolV, StrV, NoneV, DictV, TupleV)) and not isinstance(v, MaybeIntV):
        if any(
            k.keyword is not None and k.keyword.value == "metaclass" for c in cls.lineage() for k in c.node.keywords
        ):
            return None
        return False if all(b.qualname == "builtins.object" for b in _external_bases(cls)) else None
    return None


def _external_bases(cls: ClassV) -> list[ExternalV]:
    return [b for c in cls.lineage() for b in c.bases if isinstance(b, ExternalV)]


def _isinstance(v: Value, cls: Value) -> bool | None:
    """``isinstance(v, cls)`` when the value's kind decides it (``pair(t)``'s ``isinstance(t, tuple)``
    of an int is false), else ``None``."""
    if isinstance(cls, ClassV):
        return _isinstance_of_project_class(v, cls)
    if not isinstance(cls, ExternalV):
        return None
    if isinstance(v, TensorV):
        return True if cls.qualname == "torch.Tensor" else False if cls.qualname.startswith("builtins.") else None
    if isinstance(v, (ModuleV, InstanceV)):
        return _module_isinstance(v, canonical(cls.qualname))
    abc = canonical(cls.qualname)
    if abc in _ITERABLE_ABCS and not isinstance(v, MaybeIntV):
        # ``isinstance(img_size, Sequence)`` in a builder: tuples, lists and strings are sequences;
        # a dict is iterable but no sequence.
        if isinstance(v, (TupleV, StrV, SeqV)) or (
            isinstance(v, DictV) and not isinstance(v, AttrsV) and abc not in _SEQUENCE_ABCS
        ):
            return True
        if _is_class(v) and not _enum_like(v):
            return False  # ``to_ntuple(4)(BasicBlock)``: a class is repeated, not iterated
        return False if isinstance(v, (IntV, FloatV, BoolV, DictV, NoneV)) else None
    if _is_class(v):
        # A class (``norm_layer=nn.BatchNorm2d`` where a name or a partial may be given) is a ``type``,
        # and no int, str, dict, sequence, function or partial.
        if cls.qualname == "builtins.type":
            return True
        return False if cls.qualname in _NOT_CLASSES or cls.qualname.removeprefix("builtins.") in _INSTANCE_OF else None
    if isinstance(v, PartialV) and cls.qualname == "functools.partial":
        return True
    if cls.qualname in _CALLABLE_CLASSES and isinstance(v, (IntV, FloatV, BoolV, StrV, DictV, NoneV, TupleV, TensorV)):
        return False  # data (``act_layer="gelu"``) is no class, function or partial
    if canonical(cls.qualname) == "torch.Tensor" and (
        isinstance(v, (TupleV, SeqV, StrV, DictV, NoneV, FloatV, BoolV)) or type(v) is IntV
    ):
        # DenseNet's ``_DenseLayer`` given its list of features; ``logits_to_keep=0``, a Python int
        # (a ``MaybeIntV`` may be a tensor: not decided).
        return False
    name = cls.qualname.removeprefix("builtins.")
    if name == cls.qualname or isinstance(v, MaybeIntV):
        return None  # not a builtin class, or a value that may be a tensor
    if isinstance(v, TupleV) and v.kind in (SeqKind.SET, SeqKind.DEQUE):
        return False if name in ("tuple", "list", *_INSTANCE_OF) else None  # a set or deque is neither
    if isinstance(v, TupleV):
        if name in ("tuple", "list"):
            return (v.kind is SeqKind.LIST) == (name == "list")  # a ``torch.Size`` is a tuple
        return False if name in _INSTANCE_OF else None
    if isinstance(v, (IntV, FloatV, BoolV, StrV, DictV, MapV, NoneV)):
        if name in ("tuple", "list"):
            return False
        kinds = _INSTANCE_OF.get(name)
        return isinstance(v, kinds) if kinds is not None else None
    return None


def _parsed_number(kind: Callable[[str], int | float], vals: Sequence[Value], kwargs: Mapping[str, Arg]) -> Any:
    """``int("24")`` / ``float("0.25")`` of one known string (at most 100 characters): the number
    Python parses; ``None`` for any other argument, or a string Python refuses (a ``ValueError`` is
    not this analysis's to report)."""
    if len(vals) != 1 or kwargs or not isinstance(vals[0], StrV) or vals[0].value is None or len(vals[0].value) > 100:
        return None
    try:
        return kind(vals[0].value)
    except ValueError:
        return None


#: ``nn.Module`` methods that set an attribute named by their first argument, and the keyword of its value.
REGISTERING_METHODS = {"register_buffer": "tensor", "register_parameter": "param", "add_module": "module"}


def _registered_attr(
    f: cst.BaseExpression, func: Value, args: Sequence[Arg], kwargs: Mapping[str, Arg]
) -> tuple[str, Value] | None:
    """The attribute and value that ``obj.register_buffer("name", value)`` (or a sibling) sets, for a
    method the project does not define itself."""
    if not (type(f) is cst.Attribute and f.attr.value in REGISTERING_METHODS and isinstance(func, UnknownV)):
        return None
    if not args or not isinstance(args[0].value, StrV) or not args[0].value.value:
        return None
    keyword = REGISTERING_METHODS[f.attr.value]
    value = args[1].value if len(args) > 1 else kwargs[keyword].value if keyword in kwargs else None
    return (args[0].value.value, value) if value is not None else None


def _moved_arguments(given: dict[str, InstanceV], exits: State) -> list[tuple[InstanceV, InstanceV]]:
    """The arguments (by parameter) that a call wrote an attribute through, on every way out: each
    with the copy its parameter holds at the end (the same object, ``born`` alike, that knows more
    writes).  A write on one path only leaves a join that knows none of them."""
    out: list[tuple[InstanceV, InstanceV]] = []
    for name, old in given.items():
        new = exits.vars.get(name)
        if (
            isinstance(new, InstanceV)
            and new is not old
            and new.cls is old.cls
            and new.born == old.born
            and any(w > old.through.get(k, 0) for k, w in new.through.items())
        ):
            out.append((old, new))
    return out


def _another(inst: InstanceV) -> InstanceV:
    """A copy of a memoised construction: unpinning it (:meth:`Calls.rebind_receiver`) leaves the memo."""
    return replace(inst, attrs=dict(inst.attrs), setup=set(inst.setup), born=stamp(), through={})


#: Builtins that look at an object without running its methods (of the project's classes).
_INSPECTING = ("isinstance", "issubclass", "type", "id", "getattr", "hasattr", "callable")


def _plain_class(cls: ClassV) -> bool:
    """A project class that is no module and whose line has no external base but ``object``: a copy
    of one of its instances is an instance of it (absent copy hooks of its own)."""
    return not cls.is_module and all(
        isinstance(b, ClassV) or (isinstance(b, ExternalV) and b.qualname in ("object", "builtins.object"))
        for c in cls.lineage()
        for b in c.bases
    )


def _leaves_attributes(func: Value) -> bool:
    """Does calling ``func`` (not interpreted here) give the objects passed to it no attributes?  A
    builtin other than ``delattr``, or a torch module class (``nn.ModuleList([...])`` holds the
    modules; torch's ``nn.utils`` functions are the ones that add parameters)."""
    if not isinstance(func, ExternalV):
        return False
    if func.qualname.startswith("builtins."):
        return func.qualname != "builtins.delattr"
    name = canonical(func.qualname)
    return name.startswith("torch.nn.") and name.count(".") == 2 and name.rsplit(".", 1)[1][:1].isupper()


def _constants(v: Value) -> list[int | float | str] | None:
    """The items of a tuple or list of known numbers (or of known strings), else ``None``."""
    if not isinstance(v, TupleV) or not v.items:
        return None
    out: list[int | float | str] = []
    for i in v.items:
        if isinstance(i, IntV) and type(i.value) is int and not isinstance(i, MaybeIntV):
            out.append(i.value)
        elif isinstance(i, FloatV) and i.value is not None:
            out.append(i.value)
        elif isinstance(i, StrV) and i.value is not None:
            out.append(i.value)
        else:
            return None
    if len({type(x) is str for x in out}) > 1:
        return None  # (``sorted`` would raise)
    return out


def _is_builtin(func: Value, name: str) -> bool:
    return isinstance(func, ExternalV) and func.qualname == f"builtins.{name}"


def _transpose(rows: SeqV) -> Value:
    """``zip(*rows)`` of a list of unknown length: one tuple per column, each as long as ``rows``."""
    if isinstance(rows.elem, TupleV):
        return TupleV(tuple(SeqV(item, SeqKind.TUPLE, rows.length) for item in rows.elem.items), SeqKind.LIST)
    return SeqV(SeqV(UnknownV(), SeqKind.TUPLE), SeqKind.LIST)


def _float_of(v: Value) -> float | None:
    if type(v) is FloatV and v.value is not None:
        return float(v.value)
    if type(v) is IntV and type(v.value) is int:
        return float(v.value)
    return None


def _torch_module_base(cls: ClassV) -> str | None:
    """The torch module class (canonical) whose ``__init__`` a project class without one of its own
    inherits (``class Wide(nn.Linear): ...``), if any."""
    for c in cls.lineage():
        for b in c.bases:
            if isinstance(b, ExternalV) and is_torch_module_base(canonical(b.qualname)):
                return canonical(b.qualname)
    return None


#: The rules whose size arguments may hold a run of unknown length.
_SIZE_RUN_RULES = frozenset({"view", "expand", "create"})


def _takes_size_run(func: Value) -> bool:
    """``x.view(*sizes)``, ``x.expand(*sizes, d)``, ``x.new_zeros(*sizes)``, ``torch.zeros(*sizes, d)``:
    the size arguments may hold a run of unknown length."""
    if isinstance(func, TensorMethodV):
        q = f"torch.Tensor.{func.name}"
    elif isinstance(func, ExternalV):
        q = canonical(func.qualname)
    else:
        return False
    defs = engine.table().lookup(q)
    return bool(defs) and defs[0].rule in _SIZE_RUN_RULES


def _is_sequential(func: Value) -> bool:
    if isinstance(func, ContainerInitV):
        return func.qualname == "torch.nn.Sequential"  # ``super().__init__(*layers)``
    return isinstance(func, ExternalV) and canonical(func.qualname) == "torch.nn.Sequential"


def _range_len(start: Dim, stop: Dim, step: Dim) -> Dim:
    if type(start) is int and type(stop) is int and type(step) is int and step:
        return len(range(start, stop, step))
    if step == 1:
        return arith.sub(stop, start)
    if type(step) is int and step > 1:
        # ``range(0, n, 3)``: ``ceil(max(0, n) / 3)`` passes
        return arith.ceildiv(arith.dmax(0, arith.sub(stop, start)), step)
    return Unknown()


def _len(v: Value) -> Value:
    v = as_container(v)
    if isinstance(v, TupleV):
        return IntV(len(v.items))
    if type(v) is DictV:
        return IntV(len(v.items))  # a dict of known keys (a namespace has no ``len``)
    if isinstance(v, (TensorV, ArrayV)):
        d = v.shape.dim(0) if v.shape.rank != 0 else None
        return IntV(d if d is not None else Unknown())
    if isinstance(v, ModuleV) and v.children:
        return IntV(len(v.children))
    if isinstance(v, ModuleV) and (named := dict_container(v)) is not None:
        return IntV(len(named.items))
    if isinstance(v, RangeV):
        return IntV(v.length)
    if isinstance(v, MapV) and v.length is not None:
        return IntV(v.length)
    if isinstance(v, StrV) and v.value is not None:
        return IntV(len(v.value))
    if isinstance(v, (DatasetV, LoaderV, SeqV)) and v.length is not None:
        return IntV(v.length)
    length = iteration_length(v)
    return IntV(length if length is not None else Unknown())


def _size_of(v: Value) -> Value:
    if isinstance(v, TupleV):
        return TupleV(v.items, SeqKind.SIZE)
    return SeqV(IntV(Unknown()), SeqKind.SIZE)


def _unknown_shape() -> Shape:
    return Shape.unknown(UnknownSource.ANNOTATED)


def _body(node: cst.FunctionDef) -> Sequence[cst.BaseStatement | cst.BaseSmallStatement]:
    b = node.body
    if type(b) is cst.IndentedBlock:
        return b.body
    return b.body


#: The most rows of a tensor that ``enumerate`` gives one by one.
MAX_ENUMERATED_ROWS = 8


def _small_rows(v: Value) -> int | None:
    """How many rows a tensor has when its first size is a small known int, else ``None``."""
    if not isinstance(v, TensorV) or v.shape.rank is None or v.shape.rank == 0:
        return None
    n = v.shape.items[0]
    return n if type(n) is int and 0 <= n <= MAX_ENUMERATED_ROWS else None


#: Names by which a ``__post_init__`` sets attributes that running it follows (on the instance it
#: builds): ``setattr(self, name, v)``, ``super().__setattr__``, ``self.__dict__.get(name)``.
_FOLLOWED_DYNAMIC = frozenset({"setattr", "__setattr__", "__dict__"})
_INIT_VARS = frozenset({"InitVar"})


def _init_false_field(node: cst.ClassDef) -> bool:
    """Does the class body declare a field ``field(init=False)`` (not a parameter of ``__init__``)?"""
    for stmt in node.body.body if type(node.body) is cst.IndentedBlock else ():
        for small in stmt.body if type(stmt) is cst.SimpleStatementLine else ():
            if type(small) is cst.AnnAssign and type(small.value) is cst.Call:
                for a in small.value.args:
                    if (
                        a.keyword is not None
                        and a.keyword.value == "init"
                        and not (isinstance(a.value, cst.Name) and a.value.value == "True")
                    ):
                        return True
    return False


def as_dict(v: Value) -> Value:
    """``dataclasses.asdict(x)`` of a project dataclass's instance: its fields in order, nested
    dataclasses as dicts, lists, tuples and dicts rebuilt, data copied; unknown when its fields are not
    all known (an unknown object may be a dataclass too, so an unknown item stays unknown)."""
    if not isinstance(v, InstanceV) or v.cls.dataclass_fields is None or v.open_reason is not None:
        return UnknownV()
    items: list[tuple[str, Value]] = []
    for n, _ in v.cls.dataclass_fields:
        a = v.attrs.get(n)
        items.append((n, _as_dict_item(a) if a is not None and not v.stale(n) else UnknownV()))
    return DictV(tuple(items))


def _as_dict_item(v: Value) -> Value:
    if isinstance(v, InstanceV):
        return as_dict(v) if v.cls.dataclass_fields is not None else UnknownV()
    if isinstance(v, TupleV) and v.kind in (SeqKind.TUPLE, SeqKind.LIST):
        return TupleV(tuple(_as_dict_item(x) for x in v.items), v.kind)
    if isinstance(v, SeqV) and v.kind in (SeqKind.TUPLE, SeqKind.LIST):
        return replace(v, elem=_as_dict_item(v.elem))
    if type(v) is DictV:
        return DictV(tuple((k, _as_dict_item(x)) for k, x in v.items))
    if isinstance(v, MapV):
        return MapV(_as_dict_item(v.value), v.length)
    copied = data_copy(v, True)
    return copied if copied is not None and not isinstance(copied, InstanceV) else UnknownV()


#: Methods that change a list or a set in place (``append``/``extend``/``insert``/``pop`` of a list are
#: followed item by item where they can be, :meth:`Calls.mutate_list`).
#: The methods of a ``collections.deque`` followed item by item (:meth:`Calls.edit_deque`).
_DEQUE_EDITS = frozenset({"append", "appendleft", "extend", "pop", "popleft"})

_SEQUENCE_EDITS = frozenset(
    {
        "pop",
        "remove",
        "clear",
        "sort",
        "reverse",
        "add",
        "discard",
        "update",
        "difference_update",
        "intersection_update",
        "symmetric_difference_update",
        "append",
        "extend",
        "insert",
        "appendleft",
        "popleft",
        "extendleft",
        "rotate",
    }
)


def _added_literal(
    held: Value | None, method: str, node: cst.Call, evaluate: Callable[[cst.BaseExpression], Value]
) -> TupleV | None:
    """``seen.add(name)`` of a set of literal strings or ints and a literal: the set with it (as it
    was when it holds it already); ``None`` for any other edit."""
    if method != "add" or not (isinstance(held, TupleV) and held.kind is SeqKind.SET) or len(node.args) != 1:
        return None
    if node.args[0].star or node.args[0].keyword is not None:
        return None
    new = evaluate(node.args[0].value)
    literals = [_literal(v) for v in (*held.items, new)]
    if any(x is None for x in literals):
        return None
    return held if literals[-1] in literals[:-1] else TupleV((*held.items, new), SeqKind.SET)


def _literal(v: Value) -> tuple[str, object] | None:
    """A value a set holds by equality: a known string or int (``None``: another value)."""
    if isinstance(v, StrV) and v.value is not None:
        return ("str", v.value)
    if type(v) is IntV and type(v.value) is int:
        return ("int", v.value)
    return None


def _known_items(v: Value | None) -> bool:
    """A list or set of known items (what an edit the analysis does not follow would make stale)."""
    return isinstance(v, TupleV) and v.kind in (SeqKind.LIST, SeqKind.SET, SeqKind.DEQUE)


def _after_edit(held: TupleV, method: str) -> Value:
    """A list or set of known items after ``method`` changed it in a way not followed."""
    if method == "clear":
        return TupleV((), held.kind)
    elem = join_all(list(held.items)) if held.items else UnknownV()
    if method in ("sort", "reverse"):
        return SeqV(elem, held.kind, len(held.items))
    if method in ("pop", "remove", "discard") or held.kind is SeqKind.LIST:
        # Fewer items, or a list item of any kind (``extend``/``insert`` not followed): length not known.
        return SeqV(UnknownV() if method not in ("pop", "remove", "discard") else elem, held.kind)
    return SeqV(UnknownV(), held.kind)


#: Methods that make a copy something else than the same fields.
_COPY_HOOKS = ("__copy__", "__deepcopy__", "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__")

#: Values a copy of which is the same value (the analysis never edits them in place: an edit rebinds).
_PLAIN_DATA = (IntV, FloatV, StrV, BoolV, NoneV, DTypeV, TensorV)


def data_copy(v: Value, deep: bool) -> Value | None:
    """``copy.deepcopy(x)`` / ``copy.copy(x)`` of plain data (numbers, strings, tensors, tuples,
    lists and string-keyed dicts of them) and of a project dataclass's instance holding such data
    (a new instance with the same fields); ``None`` for anything else (a module, a class with its own
    ``__copy__``/``__deepcopy__``/``__reduce__``, an object not known)."""
    if isinstance(v, _PLAIN_DATA):
        return v
    if isinstance(v, TupleV) and v.kind in (SeqKind.TUPLE, SeqKind.LIST):
        items = [data_copy(x, deep) if deep else x for x in v.items]
        return None if any(x is None for x in items) else TupleV(tuple(x for x in items if x is not None), v.kind)
    if type(v) is DictV:
        pairs = [(k, data_copy(x, deep) if deep else x) for k, x in v.items]
        return None if any(x is None for _, x in pairs) else DictV(tuple((k, x) for k, x in pairs if x is not None))
    if (
        isinstance(v, InstanceV)
        and v.cls.dataclass_fields is not None
        and v.open_reason is None
        and not v.cls.is_module
    ):
        if any(v.cls.lookup(m) is not None for m in _COPY_HOOKS):
            return None
        attrs: dict[str, Value] = {}
        for k, x in v.attrs.items():
            y = data_copy(x, deep) if deep else x
            if y is None:
                return None
            attrs[k] = y
        return InstanceV(v.cls, attrs, f"{v.key}+copy", set(v.setup), None, None, v.pinned)
    return None


def _post_init_followed(post: FunctionV) -> bool:
    """Can running ``__post_init__`` follow every attribute it sets?  Not when it uses ``vars`` or
    ``__getattr__``, or writes through ``self.__dict__``."""
    return _followed(post.node)


@by_function_body
def _followed(node: cst.FunctionDef) -> bool:
    return not mentions(node, DYNAMIC_ATTRS - _FOLLOWED_DYNAMIC) and reads_dict_only(node)


def _ran_setters(v: Value | None) -> bool:
    """Whether ``v`` is an instance that knows what property setters assigned (they ran on it)."""
    return isinstance(v, InstanceV) and any(m.endswith(SETTER) for m in v.setup)


#: What a ``__setattr__`` calls to store items as it sets attributes.
_ITEM_SETTERS = frozenset({"__setitem__", "update", "setdefault"})


def _through_super(node: cst.CSTNode) -> bool:
    """Is ``node`` a call of a method of ``super()`` (``super().__setitem__(key, value)``)?"""
    return (
        type(node) is cst.Call
        and type(node.func) is cst.Attribute
        and type(node.func.value) is cst.Call
        and isinstance(node.func.value.func, cst.Name)
        and node.func.value.func.value == "super"
    )


def _commit(inst: InstanceV, overlay: dict[str, Value]) -> None:
    """Store the attributes ``__init__`` left pending on the instance."""
    prefix = building_prefix(inst)
    for k, v in overlay.items():
        if k.startswith(prefix):
            inst.attrs[k[len(prefix) :]] = v


def _pair_parts(old: Value, new: Value, out: dict[int, Value]) -> None:
    """``out[id(o)] = n`` for each module ``o`` of ``old`` and its counterpart ``n`` in ``new`` (a copy
    of ``old`` in another mode: the same attributes and children)."""
    if old is new or id(old) in out:
        return
    out[id(old)] = new
    if isinstance(old, InstanceV) and isinstance(new, InstanceV):
        for k, v in old.attrs.items():
            if k in new.attrs:
                _pair_parts(v, new.attrs[k], out)
    elif isinstance(old, ModuleV) and isinstance(new, ModuleV) and len(old.children) == len(new.children):
        for a, b in zip(old.children, new.children):
            _pair_parts(a, b, out)


def validator_writes(cls: ClassV) -> set[str]:
    """The attributes the methods of ``cls`` may assign on an instance when code run after its
    constructor (``@strict``'s validators) calls them: what each method other than ``__init__`` and
    ``__post_init__`` assigns, and what the setter of a property assigns when one of those methods
    (or a setter they trigger) assigns that property.  A setter is not a method the class holds by
    a name (the class holds the property, which is not callable): it runs only when its property
    is assigned."""
    setters: dict[str, set[str]] = {}
    out: set[str] = set()
    for c in cls.lineage():
        for method, attrs in c.assigned_in.items():
            if method.endswith(SETTER):
                setters.setdefault(method[: -len(SETTER)], set()).update(attrs)
            elif method not in ("__init__", "__post_init__"):
                out |= attrs
    todo = [a for a in out if a in setters]
    while todo:
        for a in setters.pop(todo.pop(), set()):
            if a not in out:
                out.add(a)
                if a in setters:
                    todo.append(a)
    return out
