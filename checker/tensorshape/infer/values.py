"""Values only the libcst front end has: functions, classes, instances, imports.

They subclass the core's :class:`~tensorshape.model.values.Value`; the rule
engine treats them as unknown, except where the front end converts them first
(:func:`to_core`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import libcst as cst

from ..model.dims import Dim
from ..model.shape import Shape
from ..model.values import (
    BoolV,
    DictV,
    FloatV,
    IntV,
    MaybeIntV,
    ModuleV,
    NoneV,
    SeqKind,
    SeqV,
    StrV,
    TensorV,
    TupleV,
    UnknownV,
    Value,
)
from ..rules import engine
from ..rules.context import Arg
from ..rules.names import canonical
from .syntax import attribute_writes, by_function_body, code_children, literal_setattrs, names_under, private_lists

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from .annotations import Annotation
    from .project import ModuleInfo

__all__ = [
    "ArrayV",
    "ArrayMethodV",
    "PartialV",
    "DirV",
    "AttrsV",
    "DictMethodV",
    "MapV",
    "lacks_attribute",
    "MODULE_BASES",
    "NN_MODULE_PRIVATE_NAMES",
    "has_attribute",
    "with_attr",
    "copied",
    "dict_of_pairs",
    "container_with_child",
    "named_child",
    "ExternalV",
    "ModuleNsV",
    "LazyImportV",
    "FunctionV",
    "ClassV",
    "InstanceV",
    "BoundMethodV",
    "OpaqueV",
    "AnnotationV",
    "RangeV",
    "NothingV",
    "SuperV",
    "RatioV",
    "OptionalV",
    "LambdaV",
    "to_core",
    "truthiness",
    "CONTAINER",
    "ITEMS",
    "dict_base",
    "dict_items",
    "held_dict",
    "is_accessor",
    "property_setter",
    "mapping_base",
    "is_setter",
    "SETTER",
    "ContainerInitV",
    "DataclassInitV",
    "generated_init",
    "is_torch_module_base",
    "ChildrenV",
    "as_container",
    "module_children",
    "unseen_constructor",
    "mentions",
    "DYNAMIC_ATTRS",
    "opaque_setattr",
    "stored_name",
    "looked_up_name",
    "object_setattr",
    "reads_dict_only",
    "same_lambda",
    "building_attrs",
    "is_registry",
]


@dataclass(frozen=True, slots=True)
class ExternalV(Value):
    """Something from outside the analysed project, known by its qualified name
    (``torch``, ``torch.nn.functional.relu``, ``jaxtyping.Float``, ``einops.rearrange``)."""

    qualname: str


@dataclass(frozen=True, slots=True)
class DirV(Value):
    """``dir(torch.nn.functional)`` of a torch module the stubs model: a name the stubs give it is
    among its names (timm's ``'silu' in dir(torch.nn.functional)``); any other use is unknown."""

    qualname: str


@dataclass(eq=False, slots=True)
class ModuleNsV(Value):
    """A module of the analysed project (``from . import layers``)."""

    info: ModuleInfo


@dataclass(frozen=True, slots=True)
class LazyImportV(Value):
    """A name imported from a project module that has not been needed yet.

    Resolved (the module parsed and run) the first time the name is used, so a
    package ``__init__`` that re-exports everything does not make the checker
    parse the whole package.
    """

    module: str
    #: The imported name, or ``None`` for the module itself.
    attr: str | None = None


#: The suffix of a property setter's key in :attr:`ClassV.assigned_in` (the getter has the name).
SETTER = ".setter"

#: Ordered stamps: an instance's birth, a write to an attribute through one reference to it
#: (:attr:`ClassV.written`, :meth:`InstanceV.overwritten`).
_STAMPS = itertools.count(1)


def stamp() -> int:
    """The next stamp (later than any given before)."""
    return next(_STAMPS)


_LAST_WRITE = [0]


#: The writes of one attribute of a class remembered with the object written (past it, the last
#: entry stands for any object: :meth:`InstanceV.overwritten` is then as cautious as before).
_MAX_WRITE_LOG = 4096


def record_write(cls: ClassV, name: str, who: int | None = None) -> int:
    """A write to attribute ``name`` of an instance of ``cls`` through one reference: its stamp.
    ``who``: the object written (its :attr:`InstanceV.born`), ``None`` when the reference may stand
    for several objects."""
    cls.written[name] = _LAST_WRITE[0] = stamp()
    log = cls.write_log.setdefault(name, [])
    if len(log) >= _MAX_WRITE_LOG:
        log[-1] = (_LAST_WRITE[0], None)
    else:
        log.append((_LAST_WRITE[0], who))
    return _LAST_WRITE[0]


def last_write() -> int:
    """The stamp of the last :func:`record_write` (a call memoised before it may have read a value
    that write made stale)."""
    return _LAST_WRITE[0]


@dataclass(eq=False, slots=True)
class FunctionV(Value):
    """A function (or method) defined in the analysed project."""

    node: cst.FunctionDef
    module: ModuleInfo
    #: The class that defines it, for methods.
    owner: ClassV | None = None
    qualname: str = ""
    #: For a function defined inside another: the enclosing function's variables where it was defined.
    closure: dict[str, Value] | None = None


@dataclass(eq=False, slots=True)
class ClassV(Value):
    node: cst.ClassDef
    module: ModuleInfo
    bases: tuple[Value, ...]
    qualname: str = ""
    #: Class-level assignments and methods.
    members: dict[str, Value] = field(default_factory=dict)
    #: ``@dataclass`` fields (name, default value or None), in order.
    dataclass_fields: tuple[tuple[str, Value | None], ...] | None = None
    #: Fields taken by keyword only (``dataclass(cls, kw_only=True)``).
    dataclass_kw_only: bool = False
    #: ``__init__`` replaced by one taking any keyword: the fields from the keywords (their defaults
    #: otherwise), the other keywords passed to ``__post_init__(**rest)`` (:mod:`.classhooks`).
    kwargs_init: bool = False
    #: ``__init__`` wrapped by one that then runs code that may call the class's methods (validators).
    validated: bool = False
    #: Why a base's ``__init_subclass__`` or a class decorator may change what the constructor does
    #: (``None``: it does not).
    hook_reason: str | None = None
    #: ``self.<attr>`` assignments (and list mutations) per method name.
    assigned_in: dict[str, frozenset[str]] = field(default_factory=dict)
    #: Attributes code outside construction wrote through one reference to an instance
    #: (``self.config._attn_implementation_internal = ...`` in a model's constructor, ``cfg.width =
    #: 8``), each with the stamp of its last such write: other references to an instance born
    #: before it may hold a stale value (:meth:`InstanceV.overwritten`).
    written: dict[str, int] = field(default_factory=dict)
    #: Those writes in order, each with the object written (``None``: maybe any), so that a write to
    #: one object leaves the others of the class known (timm's ``DefaultCfg`` per model).
    write_log: dict[str, list[tuple[int, int | None]]] = field(default_factory=dict)

    #: This class and its project base classes, each once, depth first (computed on first use).
    _line: tuple[ClassV, ...] | None = field(default=None, repr=False)

    def lineage(self) -> tuple[ClassV, ...]:
        """This class, then its project base classes depth first, each once: a ladder of diamonds
        is walked in time linear in its classes (a walk of the bases as a tree doubles per rung)."""
        if self._line is None:
            out: dict[int, ClassV] = {}
            stack: list[ClassV] = [self]
            while stack:
                c = stack.pop()
                if id(c) in out:
                    continue
                out[id(c)] = c
                stack.extend(b for b in reversed(c.bases) if isinstance(b, ClassV) and id(b) not in out)
            self._line = tuple(out.values())
        return self._line

    def reassigned(self, name: str, setup: set[str]) -> bool:
        """Is attribute ``name`` changed by a method that is not part of construction?  A property's
        setter (its assignments kept as ``"<name>.setter"``) is not, on an instance it ran on (while
        built, or through the reference the property was written by: ``setup`` has it)."""
        return any(
            name in attrs and method != "__init__" and method not in setup
            for c in self.lineage()
            for method, attrs in c.assigned_in.items()
        )

    def reassigns(self, setup: set[str]) -> bool:
        """Does a method that is not part of construction assign any attribute?"""
        return any(
            attrs and method != "__init__" and method not in setup
            for c in self.lineage()
            for method, attrs in c.assigned_in.items()
        )

    def lookup(self, name: str) -> Value | None:
        """A member, through the project base classes (first match, depth first)."""
        if name in self.members:
            return self.members[name]
        for c in self.lineage():
            v = c.members.get(name)
            if v is not None:
                return v
        return None

    def external_bases(self) -> list[str]:
        """Qualified names of external base classes (``torch.nn.Module``), through project bases."""
        return [b.qualname for c in self.lineage() for b in c.bases if isinstance(b, ExternalV)]

    @property
    def is_module(self) -> bool:
        """Is this an ``nn.Module`` subclass?"""
        return any(q.startswith("torch.nn") for q in self.external_bases())


@dataclass(eq=False, slots=True)
class InstanceV(Value):
    """An instance of a project class: its attributes as far as ``__init__`` set them."""

    cls: ClassV
    attrs: dict[str, Value] = field(default_factory=dict)
    #: A key describing how it was built, for memoising calls of its methods.
    key: str = ""
    #: Methods that ran while ``__init__`` built the instance (their assignments are construction).
    setup: set[str] = field(default_factory=set)
    #: Why the instance may have attributes ``attrs`` does not show (its constructor was not seen:
    #: a class decorator, an external base's ``__init__``, a ``__post_init__`` setting them by name):
    #: then reading one that is not in ``attrs`` is unknown, never the class-level default.
    open_reason: str | None = None
    #: The instance this one is a copy of with other modes set (``model.eval()``): the paths of a
    #: join that hold the same module in different modes hold it in an unknown mode.
    origin: InstanceV | None = None
    #: An instance the program built (not the generic ``self`` of a method analysed without a caller):
    #: an attribute another method reassigns holds what construction gave it until that method runs
    #: on the instance (interpreted: its writes rebind the instance) or the instance reaches code that
    #: may run it unseen (then it is unpinned: such attributes are unknown, as for the generic one).
    pinned: bool = False
    #: When the object was made (:func:`stamp`); copies of it (an edit, a mode, a join) keep it.
    born: int = field(default_factory=stamp)
    #: Attributes written through this reference, with the stamp of the write: it knows them.
    through: dict[str, int] = field(default_factory=dict)
    #: Two constructions were given this one value (a memoised construction): it may stand for two
    #: objects, so a write through one reference is not carried to the other variables holding it.
    shared: bool = False
    #: It may be one of several objects (a join of two, or an analysis's stand-in for any): a write
    #: through it may be to any of them, and a write to any of them may be to it.
    several: bool = False

    def stale(self, name: str) -> bool:
        """Is attribute ``name`` possibly changed by a method this analysis did not follow, or
        through another reference?"""
        return (not self.pinned and self.cls.reassigned(name, self.setup)) or self.overwritten(name)

    def overwritten(self, name: str) -> bool:
        """Was attribute ``name`` written through another reference to this object, or to one this
        value may stand for (:attr:`ClassV.written`): an object born before the write, not written
        through here since."""
        last = self.cls.written.get(name)
        since = max(self.born, self.through.get(name, 0))
        if last is None or last <= since:
            return False
        if self.twofold or self.several:
            return True
        for when, who in reversed(self.cls.write_log.get(name, ())):
            if when <= since:
                break
            if who is None or who == self.born:
                return True  # (a write to another object, known to be another, leaves this one)
        return False

    @property
    def one_object(self) -> int | None:
        """The object this value is (its :attr:`born`), ``None`` when it may be one of several."""
        return None if self.twofold or self.several else self.born

    @property
    def twofold(self) -> bool:
        """May this value stand for two objects (it, or the instance it is a moded copy of, was
        given to two constructions)?"""
        return self.shared or (self.origin is not None and self.origin.shared)

    def copy_of(self) -> dict[str, Any]:
        """The fields a copy of this object keeps (for ``InstanceV(..., **inst.copy_of())``)."""
        return {"born": self.born, "through": dict(self.through), "shared": self.shared, "several": self.several}


@dataclass(frozen=True, slots=True)
class PartialV(Value):
    """``functools.partial(func, *args, **kwargs)``: a builder calling ``func`` with these first."""

    func: Value
    args: tuple[Value, ...] = ()
    kwargs: tuple[tuple[str, Value], ...] = ()


@dataclass(frozen=True, slots=True)
class AttrsV(DictV):
    """A ``types.SimpleNamespace(d_model=64)`` (or ``argparse.Namespace(...)`` built by hand): a
    configuration object whose attributes are the keywords it was built with (and those set later)."""


@dataclass(frozen=True, slots=True)
class DefaultDictV(DictV):
    """A ``collections.defaultdict(factory)`` of known items: a read of a key it lacks stores and
    gives ``factory()`` (a new object for each key)."""

    factory: Value


def like_dict(base: DictV, items: tuple[tuple[str, Value], ...]) -> DictV:
    """A dict of ``items`` of the kind of ``base`` (a ``defaultdict`` keeps its factory)."""
    return DefaultDictV(items, base.factory) if isinstance(base, DefaultDictV) else DictV(items)


@dataclass(frozen=True, slots=True)
class MapV(Value):
    """A dict whose keys are not known (a vocabulary filled by ``vocab.setdefault(word, len(vocab))``
    or ``vocab[word] = i``) and whose values all look like ``value``: reading any key gives ``value``."""

    value: Value
    #: How many keys it has, when known (``{i: f"LABEL_{i}" for i in range(n)}``: ``n``); an edit or a
    #: join gives a map without it.
    length: Any = None
    #: The key sets it may have, when it is the join of dicts of known keys (paths that set
    #: different keys: transformers' ``sdpa_kwargs = {}`` then ``sdpa_kwargs["enable_gqa"] = True``
    #: under a condition not decided), at most :data:`MAX_CHOICES` of at most
    #: :data:`MAX_OPTION_KEYS` keys, each key reading ``value``; ``None`` otherwise (an edit gives a
    #: map without them).  ``f(**m)`` of an external function (a torch op) is the call with each in
    #: turn, as a call of a :class:`ChoiceV`.
    options: tuple[tuple[str, ...], ...] | None = None


#: The most keys each dict a :class:`MapV` may be (:attr:`MapV.options`) has.
MAX_OPTION_KEYS = 8


@dataclass(frozen=True, slots=True)
class DictMethodV(Value):
    """``cfg.get`` (or another method of a string-keyed dict, or of a :class:`MapV`) before it is called."""

    receiver: DictV | MapV
    name: str
    #: The instance of a dict subclass whose items ``receiver`` is (see :data:`ITEMS`): an edit
    #: gives it new items, never turns it into a dict.
    holder: InstanceV | None = None


@dataclass(eq=False, slots=True)
class BoundMethodV(Value):
    receiver: Value
    function: FunctionV


@dataclass(frozen=True, slots=True)
class OpaqueV(Value):
    """An unknown object reached through a path (``config``, ``config.model``).

    Reading an attribute gives another path; where a rule needs an int, the
    path becomes an opaque symbol (the same symbol for the same path in one
    analysis), so ``config.hidden_size`` is a size that relates across uses.
    """

    path: str


@dataclass(frozen=True, slots=True)
class AnnotationV(Value):
    """A type alias of a shape annotation (``Image = Float[Tensor, "b c h w"]``)."""

    annotation: Annotation


@dataclass(frozen=True, slots=True)
class FieldFactoryV(Value):
    """A dataclass field's ``field(default_factory=f)``: the generated ``__init__`` calls ``f()`` for
    each instance not given the field (one new object per instance, never one shared default)."""

    factory: Value


@dataclass(frozen=True, slots=True)
class NothingV(Value):
    """No value yet: the elements of an empty list literal (joins as the identity)."""


@dataclass(frozen=True, slots=True)
class RangeV(Value):
    """``range(...)``: an iterable of ints whose length is known or not."""

    length: Any
    start: Any = 0
    step: Any = 1


@dataclass(frozen=True, slots=True)
class SuperV(Value):
    instance: Value
    cls: Any


@dataclass(frozen=True, slots=True)
class RatioV(FloatV):
    """``a / b`` of two ints: a float to the rules, but ``int(a / b)`` is ``a // b``
    (``int(n_embd / n_head)`` is the head size, exact where the code says ``n_head``
    divides ``n_embd``)."""

    num: Dim = 0
    den: Dim = 1


@dataclass(frozen=True, slots=True)
class ChoiceV(Value):
    """One of a few modules or lambdas, which one not known (``nn.Dropout(p) if p > 0.0 else
    nn.Identity()`` with ``p`` unknown, a ``ModuleList`` of layers built with different options, the
    item of a list of lambdas appended in a loop: NeRF's ``embed_fns``).

    Calling it calls each option with the same arguments and joins the results; reading an
    attribute joins the options' attributes; anything else sees it as unknown."""

    options: tuple[Value, ...]


#: At most this many options in a :class:`ChoiceV` (a join with more is unknown).
MAX_CHOICES = 4


def choice_options(v: Value) -> tuple[Value, ...] | None:
    """The modules (or lambdas) ``v`` may be: itself for a module (``ModuleV``, an ``InstanceV``) or
    a lambda, the options of a :class:`ChoiceV`; ``None`` for any other value."""
    if isinstance(v, ChoiceV):
        return v.options
    if isinstance(v, (ModuleV, InstanceV, LambdaV)):
        return (v,)
    return None


@dataclass(frozen=True, slots=True)
class OptionalV(Value):
    """A value that is ``inner`` or ``None`` (``self.norm = nn.LayerNorm(d) if norm else None``).

    ``x is not None`` narrows it to ``inner``; calling it or reading an attribute uses
    ``inner`` (that code runs only when it is not ``None``); the rule engine sees it as unknown.
    """

    inner: Value


@dataclass(eq=False, slots=True)
class LambdaV(Value):
    """``lambda t: rearrange(t, ...)``: its body is evaluated with the arguments where it is called,
    seeing the variables of the place that made it (``closure``)."""

    node: cst.Lambda
    module: ModuleInfo
    closure: dict[str, Value]
    #: The values of its parameters' defaults, by name, evaluated where the lambda was made
    #: (``lambda x, fn=fn: fn(x)`` in a loop keeps each pass's ``fn``).
    defaults: dict[str, Value] = field(default_factory=dict)


def same_lambda(a: LambdaV, b: LambdaV) -> bool:
    """Do two lambdas compute the same: made by one ``lambda`` of one module, with equal defaults and
    equal values for the names its body reads from where it was made (``lambda x, p_fn=p_fn:
    p_fn(x)`` made again on the next pass of a loop, with the same ``p_fn``)."""
    if a is b:
        return True
    if a.node is not b.node or a.module is not b.module or a.defaults != b.defaults:
        return False
    params = a.node.params
    own = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)}
    return all(a.closure.get(n) == b.closure.get(n) for n in names_under(a.node.body) - own)


def truthiness(v: Value, negate: bool = False) -> bool | None:
    """``bool(v)`` when the value says (``None``, a known bool or int, a string, a tuple of known
    length, a dict with a known key), else ``None``.  An empty dict or a list is left unknown: a
    registry filled by other modules, or an append the analysis does not see, would make its
    emptiness stale."""
    known: bool | None = None
    if isinstance(v, NoneV):
        known = False
    elif isinstance(v, BoolV):
        known = v.value
    elif isinstance(v, IntV) and not isinstance(v, MaybeIntV) and type(v.value) is int:
        known = v.value != 0
    elif isinstance(v, FloatV) and v.value is not None:
        known = v.value != 0.0  # (``if se_ratio:`` of RegNet's 0.25)
    elif isinstance(v, StrV) and v.value is not None:
        known = bool(v.value)
    elif isinstance(v, DictV):
        known = True if isinstance(v, AttrsV) or v.items else None  # a namespace is true even when empty
    elif isinstance(v, TupleV) and v.kind not in (SeqKind.LIST, SeqKind.DEQUE):
        known = bool(v.items)
    elif isinstance(v, InstanceV) and _plain_object_class(v.cls):
        known = True  # ``if not pretrained_cfg:`` of a config object: true, as any object
    elif isinstance(v, ClassV) and _plain_metaclass(v):
        known = True  # ``if attn_type:`` of ``SqueezeExcite`` (timm's ``get_attn``): a class is true
    elif isinstance(v, (FunctionV, PartialV)):
        known = True  # a function, a ``functools.partial``: true, as any object without ``__bool__``
    elif isinstance(v, ChoiceV):
        # ``if self.drop_path:`` of ``nn.Dropout(p) if p > 0 else nn.Identity()``: what every option says.
        truths = {_module_truth(o) for o in v.options}
        known = truths.pop() if len(truths) == 1 else None
    return None if known is None else known != negate


def private_list_truth(function: FunctionV | None, test: cst.BaseExpression, value: Value) -> bool | None:
    """``if stage:`` (or ``rest[0] if rest else d``) of a list the running function built and kept to
    itself (:func:`~tensorshape.infer.syntax.private_lists`): its emptiness is what the appends
    followed say; ``None`` otherwise (a list another reference may fill unseen, a registry)."""
    if function is None or not isinstance(test, cst.Name):
        return None
    if not isinstance(value, (TupleV, SeqV)) or value.kind is not SeqKind.LIST:
        return None
    if test.value not in private_lists(function.node):
        return None
    if isinstance(value, SeqV):  # ``stage = []`` with nothing appended yet
        return False if isinstance(value.elem, NothingV) else None
    return bool(value.items)


#: Torch's module classes with a ``__len__`` (an empty one is false).
_SIZED_MODULES = frozenset({"Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Container"})


def plain_module_class(cls: ClassV) -> bool:
    """A project module class whose bases are the project's own or ``nn.Module`` itself."""
    return cls.is_module and all(
        isinstance(b, ClassV) or (isinstance(b, ExternalV) and canonical(b.qualname) == "torch.nn.Module")
        for c in cls.lineage()
        for b in c.bases
    )


def _plain_object_class(cls: ClassV) -> bool:
    """A class of the project whose instances are true as any object's: no ``__bool__`` or
    ``__len__`` of its own or its bases', every base outside the project ``object``, no metaclass."""
    if cls.lookup("__len__") is not None or cls.lookup("__bool__") is not None:
        return False
    return all(
        (isinstance(b, ClassV) or (isinstance(b, ExternalV) and b.qualname == "builtins.object"))
        and not any(k.keyword is not None and k.keyword.value == "metaclass" for k in c.node.keywords)
        for c in cls.lineage()
        for b in (c.bases or (ExternalV("builtins.object"),))
    )


def _plain_metaclass(cls: ClassV) -> bool:
    """A project class whose truth is ``type``'s (true): no ``metaclass=`` in its line, every base
    outside the project ``object`` or a torch module (``nn.Module``'s metaclass is ``type``)."""
    return all(
        (
            isinstance(b, ClassV)
            or (isinstance(b, ExternalV) and (b.qualname == "builtins.object" or b.qualname.startswith("torch.nn.")))
        )
        and not any(k.keyword is not None and k.keyword.value == "metaclass" for k in c.node.keywords)
        for c in cls.lineage()
        for b in (c.bases or (ExternalV("builtins.object"),))
    )


def _module_truth(v: Value) -> bool | None:
    """``bool(module)``: true, as for any object, unless its class has a ``__len__`` or ``__bool__``
    (a container is false when empty); ``None`` where that is not certain.  A lambda is true."""
    if isinstance(v, LambdaV):
        return True
    if isinstance(v, ModuleV):
        return None if v.qualname.rsplit(".", 1)[-1] in _SIZED_MODULES else True
    if isinstance(v, InstanceV) and plain_module_class(v.cls):
        return None if v.cls.lookup("__len__") is not None or v.cls.lookup("__bool__") is not None else True
    return None


def building_key(inst: InstanceV, name: str) -> str:
    """The state variable that holds ``self.<name>`` while ``__init__`` builds ``inst``.

    Keeping attributes in the state while building (instead of on the instance)
    lets branches of ``__init__`` join, rather than the last write winning.
    """
    return f"@{id(inst)}.{name}"


def is_registry(d: DictV) -> bool:
    """A dict of functions or classes (a registry: which one a key reads matters)."""
    return any(isinstance(v, (FunctionV, ClassV)) for _, v in d.items)


def with_attr(inst: InstanceV, name: str, value: Value) -> InstanceV:
    """A copy of ``inst`` with attribute ``name`` set (an edit after construction: ``model.fc = ...``)."""
    return InstanceV(
        inst.cls,
        {**inst.attrs, name: value},
        f"{inst.key}+{name}",
        set(inst.setup),
        inst.open_reason,
        pinned=inst.pinned,
        **inst.copy_of(),
    )


def _shared_state(v: Value) -> bool:
    """Could ``v`` be changed in place through one reference and seen through another (a list, a
    dict, an instance, a module)?  The analysis gives each reference its own copy on a write, so a
    shallow copy holding such a value would not see the original's later edits (or the reverse)."""
    if isinstance(v, TupleV):
        return v.kind == SeqKind.LIST or any(_shared_state(i) for i in v.items)
    if isinstance(v, SeqV):
        return v.kind == SeqKind.LIST or _shared_state(v.elem)
    if isinstance(v, OptionalV):
        return _shared_state(v.inner)
    return not isinstance(
        v, (IntV, FloatV, BoolV, StrV, NoneV, TensorV, ClassV, FunctionV, ExternalV, PartialV, RangeV, UnknownV)
    )


def copied(v: Value, deep: bool) -> Value | None:
    """``copy.copy(v)`` (``deep``: ``copy.deepcopy(v)``), or ``None`` when it is not known.

    Values are copied on every write here (``obj.attr = x`` rebinds the reference written through),
    so a copy of an instance is a new instance with the same attributes, and a copy of anything
    immutable is the value itself.  A shallow copy shares its attributes' objects with the original:
    only when none of them can change in place (EfficientNet's ``copy.copy(cnf)`` of a config of
    ints and a class); otherwise it is not known.  A deep copy shares nothing, which is what the
    copy-on-write values give."""
    if isinstance(v, InstanceV):
        if v.open_reason is not None or any(
            isinstance(a, ParserV) or not deep and _shared_state(a) for a in v.attrs.values()
        ):
            return None
        return InstanceV(v.cls, dict(v.attrs), f"{v.key}+copy", set(v.setup), None, pinned=v.pinned)
    if not _shared_state(v) or deep and isinstance(v, (ModuleV, TupleV, SeqV, DictV)):
        return v
    return None


def dict_of_pairs(pairs: Value, keywords: list[tuple[str, Value]]) -> DictV | None:
    """``OrderedDict(pairs, **keywords)`` (or ``dict(...)``) when every key is a known string and
    the pairs are a list or tuple of known length, or a dict of known keys (a copy, in its order);
    later keys replace earlier ones, in place."""
    if type(pairs) is DictV:
        return DictV(tuple({**dict(pairs.items), **dict(keywords)}.items()))
    if not isinstance(pairs, TupleV):
        return None
    items: dict[str, Value] = {}
    for pair in pairs.items:
        if not (isinstance(pair, TupleV) and len(pair.items) == 2):
            return None
        key, value = pair.items
        if not (isinstance(key, StrV) and key.value is not None):
            return None
        items[key.value] = value
    items.update(keywords)
    return DictV(tuple(items.items()))


#: The torch containers whose ``forward`` or iteration goes through every registered child.
_LISTED_CONTAINERS = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList"})


def container_with_child(container: ModuleV, name: str, child: Value) -> Value | None:
    """``seq.add_module(name, child)`` (or ``seq.name = child``) on a ``Sequential``/``ModuleList``:
    the child replaces the one registered under ``name``, else comes last (torch's ``_modules``
    order, which ``forward`` and iteration follow); ``None`` for another module (its children are
    not what its ``forward`` runs), and unknown when the container's children or names are not
    known (a repeated block of unknown count) or the value may be a module or not."""
    if container.qualname not in _LISTED_CONTAINERS and container.qualname != "torch.nn.ModuleDict":
        return None
    is_module = isinstance(child, ModuleV) or isinstance(child, InstanceV) and child.cls.is_module
    if not is_module:
        known_other = isinstance(child, (IntV, FloatV, BoolV, StrV, NoneV, TensorV, TupleV, DictV))
        return None if known_other else UnknownV()
    if container.qualname == "torch.nn.ModuleDict":
        # DenseNet's ``_DenseBlock``: ``self.add_module("denselayer%d" % (i + 1), layer)``, then
        # ``self.items()`` in its ``forward``.
        by_name = container.args.get("modules", NoneV())
        if isinstance(by_name, NoneV):
            by_name = DictV(())
        if not isinstance(by_name, DictV) or container.children:
            return UnknownV()
        return ModuleV(
            container.qualname,
            {
                **container.args,
                "modules": DictV((*by_name.items, (name, child)))
                if by_name.get(name) is None
                else DictV(tuple((k, child if k == name else v) for k, v in by_name.items)),
            },
        )
    if set(container.args) - {"names"}:
        return UnknownV()
    given = container.args.get("names")
    if isinstance(given, TupleV):
        names = [n.value if isinstance(n, StrV) else None for n in given.items]
    else:
        names = [str(k) for k in range(len(container.children))]
    children = list(container.children)
    if name in names:
        children[names.index(name)] = child
    else:
        names.append(name)
        children.append(child)
    labels = TupleV(tuple(StrV(n) for n in names))
    return ModuleV(container.qualname, {**container.args, "names": labels}, tuple(children))


def named_child(container: ModuleV, name: str) -> Value | None:
    """The child a ``Sequential``/``ModuleList`` registered under ``name`` when its names are known
    (built from an ``OrderedDict``, or added by ``add_module``)."""
    given = container.args.get("names")
    if container.qualname not in _LISTED_CONTAINERS or not isinstance(given, TupleV):
        return None
    for label, child in zip(given.items, container.children):
        if isinstance(label, StrV) and label.value == name:
            return child
    return None


#: Names by which a class's code can give its instances attributes its source does not spell out.
DYNAMIC_ATTRS = frozenset({"setattr", "__dict__", "__getattr__", "__getattribute__", "__setattr__", "vars"})


def lacks_attribute(inst: InstanceV, name: str) -> bool:
    """Does ``inst`` certainly have no attribute ``name`` (so ``getattr(inst, name, d)`` is ``d``)?

    Only when every class in its line is the project's, undecorated or a dataclass, assigns
    ``self.<name>`` nowhere, and sets no attributes dynamically (``setattr``, ``__dict__``).
    """
    if name in inst.attrs or inst.cls.lookup(name) is not None or inst.open_reason is not None:
        return False
    for c in inst.cls.lineage():
        if any(isinstance(b, ExternalV) and b.qualname not in ("object", "builtins.object") for b in c.bases):
            return False
        if any(not isinstance(b, (ClassV, ExternalV)) for b in c.bases):
            return False
        if c.dataclass_fields is None and c.node.decorators:
            return False
        if any(name in attrs for attrs in c.assigned_in.values()) or mentions(c.node, DYNAMIC_ATTRS):
            return False
    return True


def has_attribute(
    inst: InstanceV, name: str, attrs: dict[str, Value], building: bool, written: set[str], sealed: bool = False
) -> bool | None:
    """``hasattr(inst, name)`` when the classes of ``inst`` decide it (``attrs``: its attributes so
    far; ``written``: attribute names assigned so far on instances other than the one a frame
    builds, edits the instance's value here may not show), else ``None``.

    ``True`` when its class line defines ``name`` as a value or a plain method (a property's getter
    may raise ``AttributeError``: not decided), or ``name`` is a dataclass field the generated
    ``__init__`` set.  ``False`` when nothing may have set attributes the analysis did not see: no
    open reason, every class in its line analysed with ``object`` the only other base, not a
    module, no ``__getattr__``, ``name`` not in ``written``; and while ``inst`` is built
    (``building``) not among the attributes set so far, else (a callee given the instance, or a
    built one) assigned nowhere in the class line (``self.name = ...``, ``setattr(self, "name",
    ...)``, a dataclass field).  A ``__getattribute__`` decides only ``False``, and only when it
    looks the name up as usual (:func:`forwards_lookup`).  An ``nn.Module``'s: :func:`_module_lacks`
    (``sealed``: the instance may decide it)."""
    line = inst.cls.lineage()
    hooks = [c.members["__getattribute__"] for c in line if "__getattribute__" in c.members]
    if hooks and not all(isinstance(f, FunctionV) and forwards_lookup(f, inst.cls, name) for f in hooks):
        return None
    member = inst.cls.lookup(name)
    fields = inst.cls.dataclass_fields or ()
    if member is not None:
        if hooks or (
            isinstance(member, FunctionV)
            and any(_decorator_name(d) not in ("staticmethod", "classmethod") for d in member.node.decorators)
        ):
            return None
        return True
    if name in attrs:
        generated = not isinstance(inst.cls.members.get("__init__"), FunctionV)
        return True if generated and not hooks and any(n == name for n, _ in fields) else None
    if any("__getattr__" in c.members for c in line) or inst.open_reason is not None:
        return None
    if inst.cls.is_module:
        return False if sealed and _module_lacks(inst, name, building, written) else None
    if not building and lacks_attribute(inst, name):
        return False
    if name in written or any(
        not isinstance(b, ClassV) and not (isinstance(b, ExternalV) and b.qualname in ("object", "builtins.object"))
        for c in line
        for b in c.bases
    ):
        return None
    if not building and (
        any(n == name for n, _ in fields)
        or any(name in assigned for c in line for assigned in c.assigned_in.values())
        or any(name in literal_setattrs(c.node) for c in line)
    ):
        return None
    return False


#: The public names every ``nn.Module`` has from torch: its class's methods and attributes, and
#: ``training`` from its ``__init__`` (torch 2.13's ``dir(nn.Module())``; a test compares them).
NN_MODULE_NAMES = frozenset(
    """T_destination add_module apply bfloat16 buffers call_super_init children compile cpu cuda double
    dump_patches eval extra_repr float forward get_buffer get_extra_state get_parameter get_submodule half
    ipu load_state_dict modules mps mtia named_buffers named_children named_modules named_parameters
    parameters register_backward_hook register_buffer register_forward_hook register_forward_pre_hook
    register_full_backward_hook register_full_backward_pre_hook register_load_state_dict_post_hook
    register_load_state_dict_pre_hook register_module register_parameter register_state_dict_post_hook
    register_state_dict_pre_hook requires_grad_ set_extra_state set_submodule share_memory state_dict to
    to_empty train training type xpu zero_grad""".split()
)
#: The private names every ``nn.Module`` has from torch (torch 2.13's ``dir(nn.Module())``; a test
#: compares them).
NN_MODULE_PRIVATE_NAMES = frozenset(
    """_apply _backward_hooks _backward_pre_hooks _buffers _call_impl _compiled_call_impl _forward_hooks
    _forward_hooks_always_called _forward_hooks_with_kwargs _forward_pre_hooks _forward_pre_hooks_with_kwargs
    _get_backward_hooks _get_backward_pre_hooks _get_name _is_full_backward_hook _load_from_state_dict
    _load_state_dict_post_hooks _load_state_dict_pre_hooks _maybe_warn_non_full_backward_hook _modules
    _named_members _non_persistent_buffers_set _parameters _register_load_state_dict_pre_hook
    _register_state_dict_hook _replicate_for_data_parallel _save_to_state_dict _slow_forward _state_dict_hooks
    _state_dict_pre_hooks _version _wrapped_call_impl""".split()
)
#: The external bases a module's class line may have for ``hasattr`` to be decided on it.
MODULE_BASES = _MODULE_BASES = ("torch.nn.Module", "object", "builtins.object")


def _module_lacks(inst: InstanceV, name: str, building: bool, written: set[str]) -> bool:
    """Does ``inst``, an instance of a project ``nn.Module`` subclass (not an ``__getattr__`` of its
    own, no open reason), certainly lack ``name``?  torch's ``nn.Module.__getattr__`` looks only in
    the instance's parameters, buffers and submodules, which are set by the writes the analysis
    follows; so the answer is no unless something may have set it unseen: a name of torch's own
    (:data:`NN_MODULE_NAMES`, or one with ``_``), a class in the line whose only external base is not
    ``nn.Module``, that is decorated or has a metaclass, a write of a name not known or by other means
    in the class line's code (:func:`~tensorshape.infer.syntax.attribute_writes`), the name written
    or deleted there other than as ``self.<name> = ...``, written on some instance so far
    (``written``), or, when the instance is not the one being built, assigned by any method of the
    line (that may have run on it)."""
    if name.startswith("_") or name in NN_MODULE_NAMES or name in written:
        return False
    for c in inst.cls.lineage():
        if c.node.decorators or c.node.keywords or c.dataclass_fields is not None:
            return False
        if any(
            not isinstance(b, ClassV) and not (isinstance(b, ExternalV) and canonical(b.qualname) in _MODULE_BASES)
            for b in c.bases
        ):
            return False
        named = attribute_writes(c.node)
        if named is None or name in named:
            return False
        if not building and any(name in assigned for assigned in c.assigned_in.values()):
            return False
    return True


def forwards_lookup(f: FunctionV, cls: ClassV, name: str) -> bool:
    """Does ``f``, a ``__getattribute__(self, key)``, look ``name`` up as usual when it returns?

    Every ``return`` is ``super().__getattribute__(key)``, and ``key`` is rebound only under a test
    ``key in M`` where ``M`` is a class-level dict of ``cls`` (``attribute_map``, read as
    ``super().__getattribute__("attribute_map")`` or ``self.attribute_map``) that does not hold
    ``name``.  Other statements (logging, raising) may run."""
    params = f.node.params.params
    if len(params) != 2:
        return False
    key = params[1].name.value
    guarded: set[int] = set()
    for node in _walk(f.node.body):
        if type(node) is cst.If and _guards(node.test, key, cls, name):
            guarded.update(id(n) for n in _walk(node.body))
    for node in _walk(f.node.body):
        if type(node) is cst.Return:
            if not _super_lookup(node.value, key):
                return False
        targets: list[cst.CSTNode] = []
        if type(node) is cst.AssignTarget:
            targets = [node.target]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)):
            targets = [node.target]
        elif type(node) is cst.WithItem and node.asname is not None:
            targets = [node.asname.name]
        elif isinstance(node, (cst.Global, cst.Nonlocal, cst.Del, cst.FunctionDef, cst.Lambda)):
            return False
        if any(isinstance(n, cst.Name) and n.value == key for t in targets for n in _walk(t)):
            if id(node) not in guarded:
                return False
    return True


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    out: list[cst.CSTNode] = []
    stack = [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(code_children(n))
    return out


def _super_lookup(e: cst.BaseExpression | None, key: str | None) -> str | None:
    """``super().__getattribute__(arg)``: ``arg``'s literal (or ``key`` when it is that name)."""
    if not (
        type(e) is cst.Call
        and len(e.args) == 1
        and type(e.func) is cst.Attribute
        and e.func.attr.value == "__getattribute__"
        and type(e.func.value) is cst.Call
        and isinstance(e.func.value.func, cst.Name)
        and e.func.value.func.value == "super"
        and not e.func.value.args
    ):
        return None
    arg = e.args[0].value
    if isinstance(arg, cst.Name) and arg.value == key:
        return key
    if type(arg) is cst.SimpleString and key is None:
        return arg.value.strip("\"'")
    return None


def _guards(test: cst.BaseExpression, key: str, cls: ClassV, name: str) -> bool:
    """Is ``test`` false for ``key == name``: ``key in M`` (perhaps one of ``and``-ed tests) with
    ``M`` a class-level dict of ``cls`` without ``name``?"""
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
        return _guards(test.left, key, cls, name) or _guards(test.right, key, cls, name)
    if not (
        type(test) is cst.Comparison
        and len(test.comparisons) == 1
        and type(test.comparisons[0].operator) is cst.In
        and isinstance(test.left, cst.Name)
        and test.left.value == key
    ):
        return False
    where = test.comparisons[0].comparator
    attr = _super_lookup(where, None)
    if attr is None and type(where) is cst.Attribute and isinstance(where.value, cst.Name):
        attr = where.attr.value if where.value.value == "self" else None
    if attr is None:
        return False
    table = cls.lookup(attr)
    return type(table) is DictV and all(isinstance(k, str) and k != name for k, _ in table.items)


def _decorator_name(d: cst.Decorator) -> str:
    e = d.decorator.func if type(d.decorator) is cst.Call else d.decorator
    if type(e) is cst.Attribute:
        return e.attr.value
    return e.value if isinstance(e, cst.Name) else ""


def building_prefix(inst: InstanceV) -> str:
    return f"@{id(inst)}."


def building_attrs(inst: InstanceV, state: Any) -> dict[str, Value]:
    """The attributes of ``inst`` while it is built: those it had, updated by those pending in
    ``state`` (a :class:`~tensorshape.infer.state.State`)."""
    prefix = building_prefix(inst)
    pending = {k[len(prefix) :]: v for k, v in state.vars.items() if k.startswith(prefix)}
    return {k: v for k, v in {**inst.attrs, **pending}.items() if k != CONTAINER}


def to_core(v: Value, opaque_int: Any) -> Value:
    """Convert a front-end value for the rule engine (opaque paths become int symbols)."""
    if isinstance(v, OpaqueV):
        return MaybeIntV(opaque_int(v.path))
    return v


@dataclass(frozen=True, slots=True)
class ArrayV(Value):
    """A numpy array of a shape (``infer/arrays.py``): not a tensor, whose methods it does not have."""

    shape: Shape
    dtype: str | None = None


@dataclass(frozen=True, slots=True)
class ArrayMethodV(Value):
    """``a.astype`` of a numpy array before it is called."""

    array: ArrayV
    name: str


@dataclass(frozen=True, slots=True)
class TensorMethodV(Value):
    """``x.view`` before it is called."""

    receiver: Value
    name: str
    receiver_arg: Arg


@dataclass(eq=False, slots=True)
class ParserV(Value):
    """An ``argparse.ArgumentParser``: the options its ``add_argument`` calls declared.

    ``options`` maps each destination (``batch_size`` for ``--batch-size``) to the
    option's flag and its default value.
    """

    options: dict[str, tuple[str, Value]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ParserMethodV(Value):
    """``parser.add_argument`` (or another method of a parser) before it is called."""

    parser: ParserV
    name: str


@dataclass(eq=False, slots=True)
class NamespaceV(Value):
    """What ``parse_args()`` returns: an int option is a size whose usual value is its default."""

    parser: ParserV


#: ``nn.Module`` methods that return the module itself (``model = Net().to(device)``).
MODULE_SELF_METHODS = frozenset(
    {
        "to",
        "cuda",
        "cpu",
        "train",
        "eval",
        "float",
        "double",
        "half",
        "bfloat16",
        "requires_grad_",
        "apply",
        "to_empty",
        "share_memory",
        "type",
        "xpu",
        "mps",
    }
)


@dataclass(frozen=True, slots=True)
class ReturnsSelfV(Value):
    """``model.to`` before it is called: calling it gives ``receiver`` back, whatever the arguments
    (``model.apply(fn)`` calls ``fn`` on each submodule first, see ``Calls.apply_to_modules``;
    ``model.train``/``model.eval``, by ``method``, also set the mode ``self.training`` reads)."""

    receiver: Value
    method: str = ""


#: The attribute under which a project module keeps its mode where it is known: a module built by the
#: program is in training mode until ``.eval()``/``.train(False)`` is called on it or on a parent;
#: ``self.training`` reads it (unknown where it is not set: a module's own analysis).
TRAINING = "training"


def may_be_module(v: Value) -> bool:
    """A value that holds a module (or may: unknown, or optional), not a size, a flag or a tensor."""
    if isinstance(v, OptionalV):
        v = v.inner
    return isinstance(v, (ModuleV, UnknownV)) or (isinstance(v, InstanceV) and v.cls.is_module)


def submodules(v: Value) -> Iterator[Value]:
    """The modules registered on the module ``v``, as ``nn.Module.children()`` walks them (what
    ``.apply(fn)`` and ``.train(mode)``/``.eval()`` reach): a project module's attributes that hold a
    module (or may: unknown or optional ones too, for the caller to judge), the torch module its
    ``super().__init__`` built; a torch container's modules and a torch layer's module arguments.  A
    tuple, list or dict of modules held in a project module's attribute is not registered (torch
    reaches neither its modules' mode nor ``apply`` them); nothing for a value that is not a module."""
    if isinstance(v, InstanceV):
        if v.cls.is_module:
            yield from (a for k, a in v.attrs.items() if k != TRAINING and may_be_module(a))
    elif isinstance(v, ModuleV):
        yield from v.children
        for a in v.args.values():
            # A container's modules (``ModuleList([...])``, ``Sequential(*layers)``, ``ModuleDict({...})``).
            parts = (
                a.items
                if isinstance(a, TupleV)
                else (a.elem,)
                if isinstance(a, SeqV)
                else tuple(c for _, c in a.items)
                if isinstance(a, DictV)
                else (a,)
            )
            yield from (c for c in parts if not isinstance(c, UnknownV) and may_be_module(c))


#: The values :func:`with_mode` walks into (any other is itself under every mode).
_MODE_WALKED = (OptionalV, InstanceV, ModuleV, TupleV, SeqV, DictV)


def with_mode(v: Value, mode: BoolV, done: dict[int, Value] | None = None) -> Value:
    """``v`` with ``mode`` set on every project module it holds, as ``nn.Module.train(mode)`` sets it
    on a module and its :func:`submodules` (only those: not the modules of a tuple a module's
    attribute holds); a value that is not a module (a variable's tuple, a trainer's model) has it set
    on the modules it holds.  A copy where anything changes (instances other variables share keep
    theirs, and calls memoised on the old object are not reused), else ``v``."""
    if not isinstance(v, _MODE_WALKED):
        return v  # nothing in it to set a mode on (a function, a string, a size, a tensor)
    done = {} if done is None else done
    if id(v) in done:
        return done[id(v)]
    done[id(v)] = v  # a cycle through attributes meets the instance as it is
    out: Value = v
    if isinstance(v, OptionalV):
        inner = with_mode(v.inner, mode, done)
        if inner is not v.inner:
            out = OptionalV(inner)
    elif isinstance(v, InstanceV):
        if v.cls.is_module:
            registered = {id(a) for a in submodules(v)}
            attrs = {
                k: with_mode(a, mode, done) if id(a) in registered else a if mode.value is None else as_built(a)
                for k, a in v.attrs.items()
            }
            attrs[TRAINING] = mode
        else:
            attrs = {k: with_mode(a, mode, done) for k, a in v.attrs.items()}
        if attrs.keys() != v.attrs.keys() or any(attrs[k] is not v.attrs[k] and attrs[k] != v.attrs[k] for k in attrs):
            base = v.key.split("+training=")[0]
            key = f"{base}+training={mode.value}" if v.cls.is_module else f"{base}+moded"
            out = InstanceV(v.cls, attrs, key, set(v.setup), v.open_reason, v.origin or v, v.pinned, **v.copy_of())
    elif isinstance(v, ModuleV) and (v.children or v.args):
        children = tuple(with_mode(c, mode, done) for c in v.children)
        args = {k: with_mode(a, mode, done) for k, a in v.args.items()}
        if any(c is not o for c, o in zip(children, v.children)) or any(args[k] is not v.args[k] for k in args):
            out = replace(v, children=children, args=args)
    elif isinstance(v, TupleV):
        items = tuple(with_mode(c, mode, done) if isinstance(c, _MODE_WALKED) else c for c in v.items)
        if any(c is not o for c, o in zip(items, v.items)):
            out = TupleV(items, v.kind)
    elif isinstance(v, SeqV):
        elem = with_mode(v.elem, mode, done)
        if elem is not v.elem:
            out = replace(v, elem=elem)
    elif isinstance(v, DictV):
        pairs = tuple((k, with_mode(c, mode, done)) if isinstance(c, _MODE_WALKED) else (k, c) for k, c in v.items)
        if any(c is not o for (_, c), (_, o) in zip(pairs, v.items)):
            out = replace(v, items=pairs)
    done[id(v)] = out
    return out


def mode_inert(v: Value) -> bool:
    """Is ``v`` itself under every mode, whatever :func:`with_mode` met before it (a value it does
    not walk into)?"""
    return not isinstance(v, _MODE_WALKED)


def as_built(v: Value) -> Value:
    """``v``, a value a module holds but does not register (a tuple or dict of modules in an
    attribute), with every project module in it whose mode was never set in training mode, as torch
    builds every module: ``.train(mode)`` of its holder does not reach it, so it keeps that mode
    (a mode set on it directly is kept)."""
    if isinstance(v, InstanceV) and v.cls.is_module and TRAINING not in v.attrs:
        # A walk of its own: the analysis may share one instance between equal constructions
        # (``self.kept = Head()`` and ``self.pair = (Head(), Head())``) that torch keeps apart.
        return with_mode(v, BoolV(True))
    if isinstance(v, TupleV):
        items = tuple(as_built(c) for c in v.items)
        return TupleV(items, v.kind) if any(c is not o for c, o in zip(items, v.items)) else v
    if isinstance(v, DictV):
        pairs = tuple((k, as_built(c)) for k, c in v.items)
        return replace(v, items=pairs) if any(c is not o for (_, c), (_, o) in zip(pairs, v.items)) else v
    return v


def mode_of(v: Value) -> bool | None:
    """The mode a project module is known to be in (``None``: not known, or not such a module)."""
    if isinstance(v, InstanceV) and v.cls.is_module:
        m = v.attrs.get(TRAINING)
        return m.value if isinstance(m, BoolV) else None
    return None


#: The attribute under which a subclass of a torch module class keeps the module its ``super().__init__``
#: built: the container of an ``nn.Sequential``/``nn.ModuleList``/``nn.ModuleDict`` subclass, the layer of
#: a ``class CausalConv1d(nn.Conv1d)`` (not a Python identifier: no code can read it).
CONTAINER = "(modules)"

#: The attribute under which an instance of a subclass of ``dict``/``OrderedDict`` whose constructor is
#: the dict's keeps its items, a :class:`DictV` (``class ClassInstantier(OrderedDict)`` built from a
#: dict literal): ``super().__getitem__(key)`` in its methods and ``inst[key]`` read them.
ITEMS = "(items)"

#: The dict classes a project class may subclass and keep items of.
DICT_BASES = frozenset({"dict", "builtins.dict", "collections.OrderedDict"})


#: The abstract mappings whose mixin methods (``get``, ``keys``, ``__contains__``...) are defined
#: in terms of a subclass's own ``__getitem__`` and ``__iter__``.
MAPPING_ABCS = frozenset(
    f"{m}.{n}" for m in ("collections.abc", "_collections_abc", "typing") for n in ("Mapping", "MutableMapping")
)


def mapping_base(cls: ClassV) -> bool:
    """Does ``cls`` derive from an abstract ``Mapping``, with ``__getitem__`` and ``__iter__`` of the
    project's own (so the mixins read what those give)?"""
    if not any(canonical(q) in MAPPING_ABCS for q in cls.external_bases()):
        return False
    return isinstance(cls.lookup("__getitem__"), FunctionV) and isinstance(cls.lookup("__iter__"), FunctionV)


def dict_base(cls: ClassV) -> bool:
    """Does ``cls`` derive from ``dict``/``OrderedDict`` (its other bases the project's or ``object``)?"""
    found = False
    for c in cls.lineage():
        for b in c.bases:
            if isinstance(b, ExternalV):
                q = canonical(b.qualname)
                if q in DICT_BASES:
                    found = True
                elif q not in ("object", "builtins.object"):
                    return False
            elif not isinstance(b, ClassV):
                return False
    return found


def dict_items(cls: ClassV, args: Sequence[Value], kwargs: Mapping[str, Value]) -> DictV | None:
    """The items ``dict(*args, **kwargs)`` builds for an instance of ``cls`` whose constructor is the
    dict's (no ``__init__`` in its project classes), when they are known: no positional argument or one
    dict of string keys, and keywords.  A class that defines how items are stored or read
    (``__setitem__``, ``__missing__``, ``update``...) is not followed: ``None``."""
    if not dict_base(cls) or cls.lookup("__init__") is not None or len(args) > 1:
        return None
    if any(cls.lookup(name) is not None for name in _ITEM_HOOKS):
        return None
    first = args[0] if args else DictV(())
    if not isinstance(first, DictV) or isinstance(first, AttrsV):
        return None
    merged = dict(first.items)
    merged.update(kwargs)
    return DictV(tuple(merged.items()))


def is_accessor(fn: cst.FunctionDef) -> bool:
    """Is ``fn`` a property's setter or deleter (``@name.setter`` over ``def name``)?"""
    for d in fn.decorators:
        e = d.decorator
        if (
            type(e) is cst.Attribute
            and e.attr.value in ("setter", "deleter")
            and isinstance(e.value, cst.Name)
            and e.value.value == fn.name.value
        ):
            return True
    return False


def property_setter(cls: ClassV, name: str) -> FunctionV | None:
    """The setter of property ``name`` in the class line of ``cls`` (the first class defining ``name``),
    as a method of the class that defines it."""
    for c in cls.lineage():
        if name not in c.members:
            continue
        body = c.node.body.body if type(c.node.body) is cst.IndentedBlock else ()
        for stmt in body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name and is_accessor(stmt):
                if any(_setter_deco(d, name) for d in stmt.decorators):
                    return FunctionV(stmt, c.module, c, f"{c.qualname}.{name}")
        return None
    return None


def is_setter(fn: cst.FunctionDef) -> bool:
    """Is ``fn`` a property's setter (``@name.setter`` over ``def name``)?"""
    return any(_setter_deco(d, fn.name.value) for d in fn.decorators)


def _setter_deco(d: cst.Decorator, name: str) -> bool:
    e = d.decorator
    return (
        type(e) is cst.Attribute
        and e.attr.value == "setter"
        and isinstance(e.value, cst.Name)
        and e.value.value == name
    )


def held_dict(v: Value | None) -> DictV | None:
    """``v`` when it is a dict of known items, or the items of a dict subclass's instance that holds them."""
    if isinstance(v, InstanceV):
        v = v.attrs.get(ITEMS)
    return v if isinstance(v, DictV) else None


#: Methods of a dict subclass that change how its items are stored (``__getitem__`` may be the
#: class's own: it reads them through ``super().__getitem__``).
_ITEM_HOOKS = ("__new__", "__setitem__", "__missing__", "update", "setdefault", "__delitem__", "pop", "__iter__")

#: torch's container classes a project class may subclass and initialise through ``super().__init__``.
CONTAINER_CLASSES = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"})


def is_torch_module_base(qualname: str) -> bool:
    """Whether a project class deriving from ``qualname`` (canonical) builds that torch module in its
    ``super().__init__(...)``: a container, or a layer the rule table has (``torch.nn.Conv1d``), not the
    plain ``nn.Module``."""
    return qualname in CONTAINER_CLASSES or (qualname != "torch.nn.Module" and qualname in engine.table().classes)


@dataclass(frozen=True, slots=True)
class ContainerInitV(Value):
    """``super().__init__`` of a project class whose base is a torch module class (a container such as
    ``nn.Sequential``, or a layer such as ``nn.Conv1d``): calling it builds that module, kept on
    ``instance`` (see :data:`CONTAINER`)."""

    instance: Value
    qualname: str


@dataclass(frozen=True, slots=True)
class DataclassInitV(Value):
    """``super().__init__`` that reaches the ``__init__`` a dataclass base generated (``cls``):
    calling it sets each field of ``instance`` from the arguments, else the field's default."""

    instance: Value
    cls: ClassV


def generated_init(cls: ClassV) -> ClassV | None:
    """The dataclass whose generated ``__init__`` is the one ``cls`` runs: the first class of its line
    that defines ``__init__`` or is a dataclass, when that one is a dataclass that does not define its
    own (``None`` otherwise: the constructor is a function, or there is none in the project)."""
    for c in cls.lineage():
        init = c.members.get("__init__")
        if isinstance(init, FunctionV):
            return None
        if c.dataclass_fields is not None:
            return c
        if init is not None:
            return None  # set to a value not followed (a class hook)
    return None


@dataclass(frozen=True, slots=True)
class ChildrenV(Value):
    """``model.children`` before it is called: calling it gives the module's children in order."""

    receiver: Value


def as_container(v: Value) -> Value:
    """The torch container a ``Sequential`` subclass's instance is (indexing, iterating and calling it
    use the container), when its class does not define the operation itself; else ``v``."""
    if isinstance(v, InstanceV):
        c = v.attrs.get(CONTAINER)
        if isinstance(c, ModuleV):
            return c
    return v


#: Names by which a module's code can register children its attribute assignments do not show.
_DYNAMIC_CHILDREN = DYNAMIC_ATTRS | {"add_module", "register_module", "_modules"}


def module_children(v: Value) -> tuple[Value, ...] | None:
    """``tuple(v.children())`` of a module: a container's modules, then a project module's submodule
    attributes in the order ``__init__`` first assigned them (torch's registration order); ``None``
    when that is not certain (an attribute of unknown value, or an optional module, or a class that
    registers children dynamically or derives from a torch module other than ``nn.Module``)."""
    if isinstance(v, ModuleV):
        return v.children if v.children else None
    if not isinstance(v, InstanceV) or not v.cls.is_module:
        return None
    out: list[Value] = []
    for c in v.cls.lineage():
        for b in c.bases:
            if isinstance(b, ExternalV) and canonical(b.qualname) not in ("torch.nn.Module", *CONTAINER_CLASSES):
                return None
        if mentions(c.node, _DYNAMIC_CHILDREN):
            return None
    counts: dict[str, int] = {}
    for c in v.cls.lineage():
        _count_self_assignments(c.node, counts)
    held = v.attrs.get(CONTAINER)
    # A container subclass's module attributes are registered in its container (in order): once.
    in_container = {id(c) for c in held.children} if isinstance(held, ModuleV) else set()
    for name, a in v.attrs.items():
        if id(a) in in_container and name != CONTAINER:
            continue
        if counts.get(name, 0) > 1 and name != CONTAINER:
            # Assigned twice (``self.head = None`` then a module): torch registers a module when it is
            # first assigned one, which the order of ``attrs`` may not show.
            if isinstance(a, (ModuleV, InstanceV, UnknownV, OptionalV)):
                return None
        if name == CONTAINER:
            if not isinstance(a, ModuleV) or (not a.children and a.args):
                return None
            out.extend(a.children)
        elif isinstance(a, ModuleV) or (isinstance(a, InstanceV) and a.cls.is_module):
            if v.stale(name):
                return None
            out.append(a)
        elif not isinstance(
            a,
            (TensorV, IntV, FloatV, BoolV, StrV, NoneV, ExternalV, ClassV, FunctionV, PartialV, TupleV, SeqV, DictV),
        ) and not (isinstance(a, InstanceV) and not a.cls.is_module):
            return None
    return tuple(out)


def _count_self_assignments(node: cst.ClassDef, counts: dict[str, int]) -> None:
    """Add how many statements of the class assign each ``self.<name>``."""

    class _Visit(cst.CSTVisitor):
        def _target(self, t: cst.BaseExpression) -> None:
            if type(t) is cst.Attribute and isinstance(t.value, cst.Name) and t.value.value == "self":
                counts[t.attr.value] = counts.get(t.attr.value, 0) + 1
            elif isinstance(t, (cst.Tuple, cst.List)):
                for el in t.elements:
                    self._target(el.value)

        def visit_Assign(self, n: cst.Assign) -> None:
            for t in n.targets:
                self._target(t.target)

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            self._target(n.target)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            self._target(n.target)

    node.visit(_Visit())


def mentions(node: cst.CSTNode, names: frozenset[str]) -> bool:
    """Does the code under ``node`` use any of ``names`` (``setattr``, ``add_module``)?"""
    return not names.isdisjoint(names_under(node))


#: ``collections.abc`` classes a project class may derive from: none defines ``__init__``.
_ABSTRACT_COLLECTIONS = (
    "Mapping",
    "MutableMapping",
    "Sequence",
    "MutableSequence",
    "Set",
    "MutableSet",
    "Iterable",
    "Container",
    "Sized",
    "Collection",
)

#: Bases whose ``__init__`` sets no attributes from the constructor's arguments (a dict's sets
#: items, never attributes: ``class Output(OrderedDict)`` made a dataclass).
_PLAIN_BASES = frozenset(
    {
        "object",
        "builtins.object",
        "torch.nn.Module",
        "abc.ABC",
        "typing.Generic",
        "typing.Protocol",
        "dict",
        "builtins.dict",
        "collections.OrderedDict",
        # The abstract collections define no ``__init__``: ``object``'s runs (transformers'
        # ``GeneralInterface(MutableMapping)`` registries).
        *(f"collections.abc.{name}" for name in _ABSTRACT_COLLECTIONS),
        *CONTAINER_CLASSES,
    }
)


def unseen_constructor(cls: ClassV, init: Value | None, called_with_arguments: bool) -> str | None:
    """Why an instance of ``cls`` may get attributes its analysed ``__init__`` does not show (``None``:
    it cannot): no ``__init__`` in the project's classes although the call passes arguments (a
    dataclass made by ``__init_subclass__``, a class decorator's constructor), an external base
    that is not a plain ``object``/``nn.Module``, or a class decorator that is not ``@dataclass``."""
    for c in cls.lineage():
        if c.hook_reason is not None:
            return c.hook_reason
        if opaque_setattr(c, cls):
            return f"`{c.qualname}.__setattr__` is not analysed"
        for b in c.bases:
            if isinstance(b, ExternalV) and canonical(b.qualname) not in _PLAIN_BASES:
                return f"the constructor of base `{b.qualname}` is not analysed"
            if not isinstance(b, (ClassV, ExternalV)):
                return "a base class is not known"
    if init is None and dict_base(cls):
        return None  # the dict's constructor: it sets items, never attributes
    if not isinstance(init, FunctionV) and called_with_arguments:
        return f"the constructor of `{cls.qualname}` is not in its source"
    return None


def opaque_setattr(cls: ClassV, of: ClassV | None = None) -> bool:
    """Does ``cls`` itself define a ``__setattr__`` that may store something else than the value
    (so every attribute its instances are given is not known)?  One that renames through a class
    attribute (transformers' ``attribute_map``) is not when that attribute of ``of`` (the class of
    the instance; ``cls`` by default) is a known empty dict."""
    setter = cls.members.get("__setattr__")
    if setter is None:
        return False
    if not isinstance(setter, FunctionV):
        return True
    if _transparent(setter.node):
        return False
    renames = _renaming(setter.node)
    if renames is None:
        return True
    return _name_table((of or cls).lookup(renames)) is None


def _name_table(table: Value | None) -> dict[str, str] | None:
    """A class attribute that is a dict of known strings to known strings (``attribute_map``)."""
    if type(table) is not DictV:
        return None
    out: dict[str, str] = {}
    for k, v in table.items:
        if not isinstance(k, str) or not isinstance(v, StrV) or v.value is None:
            return None
        out[k] = v.value
    return out


def stored_name(cls: ClassV, name: str) -> str:
    """The attribute ``inst.name = value`` stores on an instance of ``cls``: ``name`` unless a
    ``__setattr__`` of its class line renames through a class-level dict of names
    (:func:`renaming_setattr`, transformers' ``attribute_map``: ``config.hidden_size = 64`` stores
    ``n_embd``).  Each such ``__setattr__`` in the line passes the name on to the next one through
    ``super()``; a ``__setattr__`` that is neither transparent nor renaming makes the instance open
    (:func:`opaque_setattr`), and so does a table that is not known."""
    for c in cls.lineage():
        setter = c.members.get("__setattr__")
        if isinstance(setter, FunctionV):
            table_name = _renaming(setter.node)
            table = _name_table(cls.lookup(table_name)) if table_name is not None else None
            if table is not None:
                name = table.get(name, name)
    return name


def looked_up_name(cls: ClassV, name: str) -> str:
    """The attribute ``inst.name`` looks up on an instance of ``cls``: ``name`` unless a
    ``__getattribute__`` of its class line renames through a class-level dict of names before it
    looks up as usual (:func:`renaming_getattribute`: ``config.hidden_size`` reads ``n_embd``)."""
    for c in cls.lineage():
        hook = c.members.get("__getattribute__")
        if isinstance(hook, FunctionV):
            how = _renaming_read(hook.node)
            table = _name_table(cls.lookup(how[0])) if how is not None else None
            if how is not None and table is not None and name not in how[1]:
                name = table.get(name, name)
    return name


@by_function_body
def _renaming_read(fn: cst.FunctionDef) -> tuple[str, frozenset[str]] | None:
    return renaming_getattribute(fn)


def renaming_getattribute(fn: cst.FunctionDef) -> tuple[str, frozenset[str]] | None:
    """``if key in M: key = M[key]`` (the test perhaps ``key != "x" and ...``: names left as they
    are) then ``return super().__getattribute__(key)``, ``M`` a class attribute read as in
    :func:`renaming_setattr`: the name of ``M`` and the names the test leaves out."""
    params = [p.name.value for p in fn.params.params]
    body = fn.body.body if type(fn.body) is cst.IndentedBlock else ()
    if len(params) != 2 or fn.params.star_arg is not cst.MaybeSentinel.DEFAULT:
        return None
    if len(body) != 2 or type(body[0]) is not cst.If or body[0].orelse is not None:
        return None
    last = body[1]
    if not (
        type(last) is cst.SimpleStatementLine
        and len(last.body) == 1
        and type(last.body[0]) is cst.Return
        and _super_lookup(last.body[0].value, params[1]) == params[1]
    ):
        return None
    parts: list[cst.BaseExpression] = []
    test: cst.BaseExpression = body[0].test
    while type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
        parts.append(test.right)
        test = test.left
    parts.append(test)
    table: str | None = None
    left_out: set[str] = set()
    for part in parts:
        if not (
            type(part) is cst.Comparison
            and len(part.comparisons) == 1
            and isinstance(part.left, cst.Name)
            and part.left.value == params[1]
        ):
            return None
        op, right = part.comparisons[0].operator, part.comparisons[0].comparator
        if type(op) is cst.In and table is None:
            table = _class_attribute_read(right, params[0])
            if table is None:
                return None
        elif type(op) is cst.NotEqual and type(right) is cst.SimpleString:
            literal = right.evaluated_value
            if not isinstance(literal, str):
                return None
            left_out.add(literal)
        else:
            return None
    if table is None or not _renames_key(body[0].body, params, table):
        return None
    return table, frozenset(left_out)


def _renames_key(then: cst.BaseSuite, params: list[str], table: str) -> bool:
    """Is ``then`` just ``key = M[key]`` (``key`` the second parameter, ``M`` the class attribute
    ``table`` read as in :func:`_class_attribute_read`)?"""
    stmts = then.body if type(then) is cst.IndentedBlock else ()
    if len(stmts) != 1 or type(stmts[0]) is not cst.SimpleStatementLine:
        return False
    line = stmts[0].body
    if not (len(line) == 1 and type(line[0]) is cst.Assign and len(line[0].targets) == 1):
        return False
    target, value = line[0].targets[0].target, line[0].value
    if not (
        isinstance(target, cst.Name)
        and target.value == params[1]
        and type(value) is cst.Subscript
        and _class_attribute_read(value.value, params[0]) == table
        and len(value.slice) == 1
        and type(value.slice[0].slice) is cst.Index
        and isinstance(value.slice[0].slice.value, cst.Name)
        and value.slice[0].slice.value.value == params[1]
    ):
        return False
    return True


@by_function_body
def _transparent(fn: cst.FunctionDef) -> bool:
    return transparent_setattr(fn)


@by_function_body
def _renaming(fn: cst.FunctionDef) -> str | None:
    return renaming_setattr(fn)


def renaming_setattr(fn: cst.FunctionDef) -> str | None:
    """``if key in M: key = M[key]`` then a transparent ``__setattr__`` (``M`` a class attribute
    read as ``super().__getattribute__("M")``, ``self.M`` or ``type(self).M``): the name of ``M``."""
    params = [p.name.value for p in fn.params.params]
    body = fn.body.body if type(fn.body) is cst.IndentedBlock else ()
    if len(params) != 3 or len(body) != 2 or type(body[0]) is not cst.If or body[0].orelse is not None:
        return None
    test, then = body[0].test, body[0].body
    if not (
        type(test) is cst.Comparison
        and len(test.comparisons) == 1
        and type(test.comparisons[0].operator) is cst.In
        and isinstance(test.left, cst.Name)
        and test.left.value == params[1]
    ):
        return None
    table = _class_attribute_read(test.comparisons[0].comparator, params[0])
    if table is None or not _renames_key(then, params, table):
        return None
    rest = fn.with_changes(body=fn.body.with_changes(body=[body[1]]))
    return table if transparent_setattr(rest) else None


def _class_attribute_read(e: cst.BaseExpression, me: str) -> str | None:
    """``super().__getattribute__("M")``, ``self.M``, ``type(self).M`` or ``self.__class__.M``: ``M``."""
    if type(e) is cst.Call and type(e.func) is cst.Attribute and e.func.attr.value == "__getattribute__":
        owner = e.func.value
        if (
            type(owner) is cst.Call
            and isinstance(owner.func, cst.Name)
            and owner.func.value == "super"
            and not owner.args
            and len(e.args) == 1
            and type(e.args[0].value) is cst.SimpleString
        ):
            key = e.args[0].value.evaluated_value
            return key if isinstance(key, str) else None
        return None
    if type(e) is cst.Attribute:
        v = e.value
        if isinstance(v, cst.Name) and v.value == me:
            return e.attr.value
        if type(v) is cst.Call and isinstance(v.func, cst.Name) and v.func.value == "type":
            return e.attr.value
        if type(v) is cst.Attribute and v.attr.value == "__class__":
            return e.attr.value
    return None


def transparent_setattr(fn: cst.FunctionDef) -> bool:
    """Does this ``__setattr__`` leave every attribute as a plain assignment would?  It must end in
    ``super().__setattr__(name, value)`` (or ``object.__setattr__(self, name, value)``) with its own
    parameters, rebound nowhere, and before that neither return nor set attributes another way (it may
    store items: ``super().__setitem__(name, value)`` of a dict base)."""
    params = [p.name.value for p in fn.params.params]
    body = fn.body.body if type(fn.body) is cst.IndentedBlock else ()
    if len(params) != 3 or fn.params.star_arg is not cst.MaybeSentinel.DEFAULT or not body:
        return False
    last = body[-1]
    if not (type(last) is cst.SimpleStatementLine and len(last.body) == 1 and type(last.body[0]) is cst.Expr):
        return False
    call = last.body[0].value
    if not (
        type(call) is cst.Call and type(call.func) is cst.Attribute and call.func.attr.value == "__setattr__"
    ):
        return False
    owner = call.func.value
    passed = [
        a.value.value if isinstance(a.value, cst.Name) and not a.keyword and not a.star else None for a in call.args
    ]
    via_super = (
        type(owner) is cst.Call
        and isinstance(owner.func, cst.Name)
        and owner.func.value == "super"
        and not owner.args
    )
    via_object = isinstance(owner, cst.Name) and owner.value == "object"
    if not ((via_super and passed == params[1:]) or (via_object and passed == params)):
        return False
    rest = cst.IndentedBlock(body=list(body[:-1]))
    if mentions(rest, DYNAMIC_ATTRS | {"__setattr__", "__dict__"}):
        return False
    return not (_stored_names(rest) & set(params)) and not _returns(rest)


#: Bases whose ``__setattr__`` is ``object``'s: it stores the attribute and does nothing else.
_OBJECT_SETATTR_BASES = frozenset({"object", "builtins.object", "dict", "builtins.dict", "collections.OrderedDict"})


def object_setattr(cls: ClassV) -> bool:
    """Is ``super().__setattr__`` in ``cls`` (no project base defining one) ``object.__setattr__``?"""
    for c in cls.lineage():
        for b in c.bases:
            if isinstance(b, ExternalV) and canonical(b.qualname) not in _OBJECT_SETATTR_BASES:
                return False
            if not isinstance(b, (ClassV, ExternalV)):
                return False
    return True


def reads_dict_only(node: cst.CSTNode) -> bool:
    """Is every ``x.__dict__`` under ``node`` read by ``x.__dict__.get(...)`` (never written)?"""
    seen = reads = 0
    todo = [node]
    while todo:
        n = todo.pop()
        if type(n) is cst.Attribute and n.attr.value == "__dict__":
            seen += 1
        if (
            type(n) is cst.Call
            and type(n.func) is cst.Attribute
            and n.func.attr.value == "get"
            and type(n.func.value) is cst.Attribute
            and n.func.value.attr.value == "__dict__"
        ):
            reads += 1
        todo.extend(n.children)
    return seen == reads


#: The part of each binding statement that it binds.
_BINDS: dict[type[cst.CSTNode], str] = {
    cst.AssignTarget: "target",
    cst.AugAssign: "target",
    cst.AnnAssign: "target",
    cst.For: "target",
    cst.NamedExpr: "target",
    cst.Del: "target",
    cst.AsName: "name",
}


def _stored_names(node: cst.CSTNode) -> set[str]:
    """Names bound under ``node`` (assignments, loop and ``with`` targets, walrus, ``del``)."""
    out: set[str] = set()
    todo = [node]
    while todo:
        n = todo.pop()
        part = _BINDS.get(type(n))
        if part is not None:
            out.update(names_under(getattr(n, part)))
        todo.extend(n.children)
    return out


def _returns(node: cst.CSTNode) -> bool:
    """Does the code under ``node`` return (outside nested functions)?"""
    todo = [node]
    while todo:
        n = todo.pop()
        if type(n) is cst.Return:
            return True
        if not isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            todo.extend(n.children)
    return False


def _is_dataclass_deco(e: cst.BaseExpression) -> bool:
    if type(e) is cst.Call:
        e = e.func
    name = e.attr.value if type(e) is cst.Attribute else e.value if isinstance(e, cst.Name) else ""
    return name == "dataclass"
