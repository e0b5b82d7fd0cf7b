"""What the functions that transform a class do to it: a base's ``__init_subclass__`` and class
decorators (issue 22).

transformers builds its configuration classes this way: ``PreTrainedConfig.__init_subclass__`` makes
every subclass a ``dataclass(cls, kw_only=True)`` and replaces its ``__init__`` by one that takes any
keyword (the fields from the keywords or their defaults, the other keywords passed on to
``__post_init__(**rest)``); huggingface_hub's ``@strict`` wraps ``__setattr__`` with validators that
end in the original setter and ``__init__`` with one that calls the original and then validates;
``@auto_docstring`` writes ``cls.__doc__`` and returns the class.

The summary is read from the source, never by running it: every use of the class parameter in the
function body is classified (a read; ``cls.X = ...``/``setattr(cls, "X", ...)``; ``dataclass(cls)``;
the class passed to another function, whose summary is taken in turn; returned), and a method the
function installs (``cls.__init__ = __init__``) is classified by its shape.  Anything else is a
reason, and the class's constructor is then not known (its instances' attributes are unknown).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

import libcst as cst

#: How deep the summary follows the class passed from one function to another.
MAX_DEPTH = 6

#: Callables that read the class they are given and change nothing on it.
READERS = frozenset(
    {
        "isinstance",
        "issubclass",
        "hasattr",
        "getattr",
        "type",
        "id",
        "str",
        "repr",
        "len",
        "dir",
        "callable",
        "print",
        "fields",
        "is_dataclass",
        "signature",
        "getmro",
        "get_type_hints",
        "getsource",
        "getfile",
        "getdoc",
        "isclass",
        "get_annotations",
        "register_pytree_node",
        "partial",
        "add",
        "append",
        "isfunction",
    }
)

#: Modules whose functions read a class they are given and change nothing on it (torch's API is
#: modelled by stubs: ``register_pytree_node(cls, ...)`` registers it).
READING_MODULES = frozenset(
    {"inspect", "typing", "typing_extensions", "dataclasses", "textwrap", "re", "os", "logging", "warnings", "torch"}
)

#: Members whose replacement changes what constructing an instance does.
CONSTRUCTION = frozenset(
    {"__init__", "__new__", "__setattr__", "__getattribute__", "__getattr__", "__post_init__", "__call__", "__class__"}
)


@dataclass(frozen=True, slots=True)
class Effect:
    """What a class transformer does to the class it is given."""

    #: ``dataclass(cls, ...)`` applied (``kw_only``: with ``kw_only=True``).
    dataclass: bool = False
    kw_only: bool = False
    #: ``__init__`` replaced by one that sets every dataclass field from the keywords passed (the
    #: default otherwise) and passes the other keywords to ``__post_init__(**rest)``.
    kwargs_init: bool = False
    #: ``__init__`` wrapped: the original runs, then code that may call the class's methods on the
    #: instance (validators).
    validated: bool = False
    #: Class attributes set to values not followed (their reads are unknown).
    members: frozenset[str] = frozenset()
    #: Class attributes set to a function the transformer defines, in order: the attribute, the
    #: function, where it is defined (the transformer's ``where``) and what each name it reads from the
    #: transformer's body holds: a member of the class as it was (``forward = cls.forward``),
    #: :data:`THE_CLASS` or :data:`ITSELF`.
    wrappers: tuple[tuple[str, cst.FunctionDef, object, tuple[tuple[str, str], ...]], ...] = ()
    #: Why the class is not known after the transformer (``None``: it is).
    reason: str | None = None
    #: The function may return something other than the class (a decorator that replaces it).
    replaces: bool = False
    #: The summary asked about the class (``hasattr(cls, ...)``): it holds for that class only.
    particular: bool = False

    def then(self, other: Effect) -> Effect:
        """This effect followed by ``other``."""
        return Effect(
            self.dataclass or other.dataclass,
            self.kw_only or other.kw_only,
            self.kwargs_init or other.kwargs_init,
            self.validated or other.validated,
            self.members | other.members,
            self.wrappers + other.wrappers,
            self.reason or other.reason,
            self.replaces or other.replaces,
            self.particular or other.particular,
        )


#: Resolve a callee named in a function (``where``: opaque to this module, handed back for the names
#: inside the callee) to the callee's node and its ``where``, to the qualified name of an external
#: function (a str), or ``None``.
Resolver = Callable[[object, cst.BaseExpression], "tuple[cst.FunctionDef, object] | str | None"]


@dataclass(slots=True)
class ClassFacts:
    """What the summary may ask of the class being transformed."""

    #: Names the class itself defines (``"__init__" in cls.__dict__``).
    own: frozenset[str]
    #: Names the class has, defined by it or by a base; ``None`` when a base is not known.
    has: Callable[[str], bool | None]


def summarise(
    fn: cst.FunctionDef, where: object, param: str, resolve: Resolver, facts: ClassFacts, depth: int = 0
) -> Effect:
    """What ``fn`` does to the class passed as its parameter ``param``."""
    if depth > MAX_DEPTH:
        return Effect(reason=f"`{fn.name.value}` is nested too deep to follow")
    key = (id(fn), id(where), param, depth)
    known = _MEMO.get(key)
    if known is not None and known[0] is fn and known[1] is where:
        return known[2]
    walk = _Walk(fn, where, param, resolve, facts, depth)
    walk.block(_suite(fn.body), conditional=False)
    if not walk.effect.particular:
        # The same decorator over every class of a library (``@auto_docstring``): summarised once.
        _MEMO[key] = (fn, where, walk.effect)
    return walk.effect


#: Summaries that asked nothing about the class, by function, context, parameter and depth (the
#: function and context are kept, so an id is never reused while its entry lives).
_MEMO: dict[tuple[int, int, str, int], tuple[cst.FunctionDef, object, Effect]] = {}


def _suite(body: cst.BaseSuite) -> list[cst.BaseStatement]:
    if type(body) is cst.IndentedBlock:
        return list(body.body)
    return [cst.SimpleStatementLine(body=body.body)] if type(body) is cst.SimpleStatementSuite else []


def _name(e: cst.BaseExpression) -> str:
    if isinstance(e, cst.Name):
        return e.value
    if type(e) is cst.Attribute:
        return e.attr.value
    return ""


def _str(e: cst.BaseExpression) -> str | None:
    if type(e) is cst.SimpleString:
        v = e.evaluated_value
        return v if isinstance(v, str) else None
    return None


@dataclass(slots=True)
class _Walk:
    fn: cst.FunctionDef
    where: object
    param: str
    resolve: Resolver
    facts: ClassFacts
    depth: int
    effect: Effect = field(default_factory=Effect)
    #: Local names bound to an attribute of the class (``original_init = cls.__init__``).
    aliases: dict[str, str] = field(default_factory=dict)
    #: Local names bound to a truth about the class (``has_init = "__init__" in cls.__dict__``).
    truths: dict[str, bool] = field(default_factory=dict)

    def fail(self, why: str) -> None:
        if self.effect.reason is None:
            self.effect = replace(self.effect, reason=why)

    def add(self, other: Effect, conditional: bool) -> None:
        if conditional and other.kwargs_init:
            self.effect = replace(self.effect, particular=True)
        if conditional and other.kwargs_init and "__init__" in self.facts.own:
            self.fail(f"`{self.fn.name.value}` may replace the class's own `__init__`")
            return
        self.effect = self.effect.then(other)

    # -- statements ----------------------------------------------------------------------------------
    def block(self, stmts: list[cst.BaseStatement], conditional: bool) -> None:
        for st in stmts:
            self.stmt(st, conditional)
            if type(st) is cst.If and self.truth(st.test) is True and _ends_in_return(st.body):
                return  # ``if obj: return deco(obj)``: what follows does not run

    def stmt(self, st: cst.BaseStatement, conditional: bool) -> None:
        if type(st) is cst.SimpleStatementLine:
            for small in st.body:
                self.small(small, conditional)
            return
        if isinstance(st, cst.FunctionDef):
            return  # a nested function: looked at when installed or called
        if type(st) is cst.If:
            known = self.truth(st.test)
            if known is not False and not self.is_param(st.test):
                self.uses(st.test)
                self.block(_suite(st.body), conditional or known is None)
            orelse = st.orelse
            if known is not True and orelse is not None:
                if type(orelse) is cst.If:
                    self.stmt(orelse, True if known is None else conditional)
                else:
                    self.block(_suite(orelse.body), conditional or known is None)
            return
        if isinstance(st, (cst.For, cst.While, cst.With, cst.Try)):
            for child in st.children:
                if isinstance(child, cst.BaseSuite):
                    self.block(_suite(child), True)
                elif isinstance(child, (cst.ExceptHandler, cst.Else, cst.Finally)):
                    self.block(_suite(child.body), True)
                elif isinstance(child, cst.BaseExpression):
                    self.uses(child)
            return
        if isinstance(st, cst.ClassDef):
            self.uses(st)
            return
        self.uses(st)

    def small(self, small: cst.BaseSmallStatement, conditional: bool) -> None:
        if type(small) is cst.Assign:
            value = small.value
            for t in small.targets:
                target = t.target
                if type(target) is cst.Attribute and self.is_param(target.value):
                    self.set_member(target.attr.value, value, conditional)
                    self.uses(value)
                    return
                if isinstance(target, cst.Name) and target.value == self.param:
                    self.transform(value, conditional)  # ``cls = dataclass(cls, ...)``
                    return
                if isinstance(target, cst.Name):
                    if type(value) is cst.Attribute and self.is_param(value.value):
                        self.aliases[target.value] = value.attr.value
                    known = self.truth(value)
                    if known is not None:
                        self.truths[target.value] = known
                elif type(target) is cst.Subscript and self.is_param(value):
                    self.uses(target)  # ``registry[name] = cls``: the class stays itself
                    return
            self.uses(value)
            for t in small.targets:
                self.uses(t.target)
            return
        if type(small) is cst.Return:
            if small.value is not None:
                self.returned(small.value, conditional)
            return
        if type(small) is cst.Expr:
            call = small.value
            if (
                type(call) is cst.Call
                and _name(call.func) == "setattr"
                and call.args
                and self.is_param(call.args[0].value)
            ):
                key = _str(call.args[1].value) if len(call.args) == 3 else None
                if key is None:
                    self.fail("an attribute of the class is set by a name not known")
                    return
                self.set_member(key, call.args[2].value, conditional)
                self.uses(call.args[2].value)
                return
            if type(call) is cst.Call and self.passes_param(call):
                self.transform(call, conditional)
                return
        self.uses(small)

    def returned(self, value: cst.BaseExpression, conditional: bool) -> None:
        if self.is_param(value):
            return
        if type(value) is cst.IfExp:
            known = self.truth(value.test)
            if known is not False:
                self.returned(value.body, conditional or known is None)
            if known is not True:
                self.returned(value.orelse, conditional or known is None)
            return
        if type(value) is cst.Call and self.passes_param(value):
            self.transform(value, conditional, returned=True)
            return
        # Something else (made from the class, or ``return wrap`` when called without it): not the
        # class, which matters only where the result is used as the class.
        self.effect = replace(self.effect, replaces=True)

    # -- the class passed on ---------------------------------------------------------------------------
    def transform(self, value: cst.BaseExpression, conditional: bool, returned: bool = False) -> None:
        """``dataclass(cls, ...)`` or ``g(cls, ...)``: the effect of that call (``returned``: its
        result is returned, so it must be the class for this function to return the class)."""
        if type(value) is not cst.Call:
            if not self.is_param(value):
                self.fail(f"`{self.fn.name.value}` rebinds the class")
            return
        name = _name(value.func)
        if name == "dataclass":
            kw = any(
                a.keyword is not None and a.keyword.value == "kw_only" and _name(a.value) == "True" for a in value.args
            )
            self.add(Effect(dataclass=True, kw_only=kw), conditional)
            return
        if name in READERS:
            return
        found = self.nested(name) if isinstance(value.func, cst.Name) else None
        if found is None:
            resolved = self.resolve(self.where, value.func)
            if isinstance(resolved, str):
                if resolved.partition(".")[0] in READING_MODULES:
                    return  # ``inspect.getsourcefile(cls)``
                self.fail(f"`{resolved}` is given the class and is not followed")
                return
            found = resolved
        if found is None:
            self.fail(f"`{name or 'a call'}` is given the class and is not followed")
            return
        callee, where = found
        inner = _param_of(callee, value, self.param)
        if inner is None:
            self.fail(f"`{name}` is given the class by a parameter not known")
            return
        inner_effect = summarise(callee, where, inner, self.resolve, self.facts, self.depth + 1)
        if not returned and inner_effect.replaces:
            inner_effect = replace(inner_effect, replaces=False)  # what it returns is not used as the class
        self.add(inner_effect, conditional)

    def nested(self, name: str) -> tuple[cst.FunctionDef, object] | None:
        """A function of that name defined in this one's body (under ``if``/``try`` too)."""
        for _, st in _parented(self.fn.body):
            if isinstance(st, cst.FunctionDef) and st.name.value == name:
                return st, self.where
        return None

    def set_member(self, name: str, value: cst.BaseExpression, conditional: bool) -> None:
        """``cls.<name> = value``."""
        if name == "__doc__":
            return
        nested = self.nested(_name(value)) if isinstance(value, cst.Name) else None
        if name == "__init__" and nested is not None:
            kind = self.init_kind(nested[0])
            if kind is None:
                self.fail(f"`{self.fn.name.value}` replaces `__init__` by one not followed")
            else:
                self.add(Effect(kwargs_init=kind == "kwargs", validated=kind == "validated"), conditional)
            return
        if name == "__setattr__" and nested is not None and self.wraps_setattr(nested[0]):
            return
        if name in CONSTRUCTION:
            self.fail(f"`{self.fn.name.value}` replaces `{name}`")
            return
        spec = self.closure_of(nested[0]) if nested is not None and not conditional else None
        if spec is not None and nested is not None:
            self.effect = replace(self.effect, wrappers=(*self.effect.wrappers, (name, nested[0], self.where, spec)))
            return
        self.effect = replace(self.effect, members=self.effect.members | {name})

    # -- the methods installed ---------------------------------------------------------------------------
    def init_kind(self, init: cst.FunctionDef) -> str | None:
        """``"kwargs"``: it sets each field (``for f in fields(cls): setattr(self, f.name, ...)``),
        sets nothing else on ``self`` and ends in ``self.__post_init__(**rest)``; ``"validated"``: it
        calls the original (``original(self, *args, **kwargs)``) and assigns nothing on ``self``."""
        params = init.params.params
        if not params:
            return None
        me = params[0].name.value
        star = init.params.star_arg
        stores = _self_stores(init, me)
        if stores:
            return None
        calls = list(_calls(init))
        post = any(
            type(c.func) is cst.Attribute
            and _name(c.func.value) == me
            and c.func.attr.value == "__post_init__"
            and len(c.args) == 1
            and c.args[0].star == "**"
            for c in calls
        )
        field_loop = any(
            type(st) is cst.For
            and type(st.iter) is cst.Call
            and _name(st.iter.func) == "fields"
            and len(st.iter.args) == 1
            and self.is_param(st.iter.args[0].value)
            and isinstance(st.target, cst.Name)
            and _sets_field(st, me, st.target.value)
            for st in _suite(init.body)
        )
        if post and field_loop and type(star) is cst.Param:
            return "kwargs"
        original = {a for a, member in self.aliases.items() if member == "__init__"}
        forwards = any(
            _name(c.func) in original
            and isinstance(c.func, cst.Name)
            and c.args
            and _name(c.args[0].value) == me
            and all(a.star for a in c.args[1:])
            for c in calls
        )
        return "validated" if forwards and not post else None

    def closure_of(self, inner: cst.FunctionDef) -> tuple[tuple[str, str], ...] | None:
        """What each name ``inner`` reads from this function's body holds when it is installed on
        the class: a member of the class read before (``forward = cls.forward``, bound once), the
        class (never rebound) or ``inner`` itself; ``None`` when it reads any other local, or has a
        decorator other than ``functools.wraps`` (which returns the function itself)."""
        if any(
            _name(d.decorator.func if type(d.decorator) is cst.Call else d.decorator) != "wraps"
            for d in inner.decorators
        ):
            return None
        here = _bound(self.fn)
        read = {n.value for n in _all_names(inner.body)} - _bound(inner)
        out: list[tuple[str, str]] = []
        for name in sorted(read & here):
            once = sum(1 for n in _binding_names(self.fn) if n == name) == 1
            if name == inner.name.value and once:
                out.append((name, ITSELF))
            elif name == self.param and not _rebinds(self.fn, {name}):
                out.append((name, THE_CLASS))
            elif name in self.aliases and once:
                out.append((name, self.aliases[name]))
            else:
                return None
        return tuple(out)

    def wraps_setattr(self, setter: cst.FunctionDef) -> bool:
        """A ``__setattr__`` that ends in ``original(self, name, value)`` (``original =
        cls.__setattr__``) with its own parameters, rebound nowhere, and returns nowhere before."""
        names = [p.name.value for p in setter.params.params]
        body = _suite(setter.body)
        if len(names) != 3 or not body:
            return False
        last = body[-1]
        if not (type(last) is cst.SimpleStatementLine and type(last.body[0]) is cst.Expr):
            return False
        call = last.body[0].value
        original = {a for a, member in self.aliases.items() if member == "__setattr__"}
        if not (type(call) is cst.Call and isinstance(call.func, cst.Name) and call.func.value in original):
            return False
        if [_name(a.value) if not a.keyword and not a.star else "" for a in call.args] != names:
            return False
        return not _rebinds(setter, set(names[1:])) and not _returns(body[:-1]) and not _self_stores(setter, names[0])

    # -- expressions -------------------------------------------------------------------------------------
    def is_param(self, e: cst.BaseExpression) -> bool:
        return isinstance(e, cst.Name) and e.value == self.param

    def passes_param(self, call: cst.Call) -> bool:
        return any(self.is_param(a.value) for a in call.args)

    def mentions_param(self, node: cst.CSTNode) -> bool:
        return any(self.is_param(n) for n in _names(node))

    def truth(self, e: cst.BaseExpression) -> bool | None:
        """A condition about the class known from its definition (``hasattr(cls, "x")``, ``"x" in
        cls.__dict__``, ``not`` of one, a name bound to one), else ``None``."""
        if type(e) is cst.UnaryOperation and type(e.operator) is cst.Not:
            inner = self.truth(e.expression)
            return None if inner is None else not inner
        if self.is_param(e):
            return True  # a class is true
        if isinstance(e, cst.Name):
            return self.truths.get(e.value)
        if (
            type(e) is cst.Comparison
            and len(e.comparisons) == 1
            and _name(e.comparisons[0].comparator) == "None"
            and isinstance(e.comparisons[0].operator, (cst.Is, cst.IsNot))
        ):
            is_not = type(e.comparisons[0].operator) is cst.IsNot
            if self.is_param(e.left):
                return is_not  # ``cls is not None``: a class transformer is given a class
            own = self.own_entry(e.left.value if type(e.left) is cst.NamedExpr else e.left)
            if own is not None:  # ``(x := cls.__dict__.get("x")) is not None``
                return own if is_not else not own
        if (
            type(e) is cst.Call
            and _name(e.func) == "hasattr"
            and len(e.args) == 2
            and self.is_param(e.args[0].value)
        ):
            key = _str(e.args[1].value)
            self.effect = replace(self.effect, particular=True)
            return self.facts.has(key) if key is not None else None
        if (
            type(e) is cst.Comparison
            and len(e.comparisons) == 1
            and isinstance(e.comparisons[0].operator, (cst.In, cst.NotIn))
        ):
            key = _str(e.left)
            where = e.comparisons[0].comparator
            if key is not None and type(where) is cst.Attribute and where.attr.value == "__dict__":
                if self.is_param(where.value):
                    self.effect = replace(self.effect, particular=True)
                    inside = key in self.facts.own
                    return inside if type(e.comparisons[0].operator) is cst.In else not inside
        return None

    def own_entry(self, e: cst.BaseExpression) -> bool | None:
        """``cls.__dict__.get("x")`` (no default): is it not ``None``, that is, does the class itself
        define ``x`` (as something other than ``None``)?"""
        if not (
            type(e) is cst.Call
            and type(e.func) is cst.Attribute
            and e.func.attr.value == "get"
            and type(e.func.value) is cst.Attribute
            and e.func.value.attr.value == "__dict__"
            and self.is_param(e.func.value.value)
            and len(e.args) in (1, 2)
            and (len(e.args) == 1 or _name(e.args[1].value) == "None")
        ):
            return None
        key = _str(e.args[0].value)
        self.effect = replace(self.effect, particular=True)
        if key is None or key in self.facts.own:
            return None  # defined, but perhaps as ``None``
        return False

    def uses(self, node: cst.CSTNode) -> None:
        """Uses of the class under ``node`` that are not classified above: a read (``cls.x``, an
        argument of a reader, a compared value) is fine; a call given it is followed; anything else
        (stored in a container, given to a lambda) is a reason."""
        pairs: list[tuple[cst.CSTNode | None, cst.CSTNode]] = [(None, node), *_parented(node)]
        for parent, child in pairs:
            if type(child) is cst.Call and self.passes_param(child):
                if _name(child.func) not in READERS:
                    self.transform(child, True)
                continue
            if not (isinstance(child, cst.Name) and self.is_param(child)):
                continue
            if type(parent) is cst.Attribute and parent.value is child:
                continue  # ``cls.x`` read
            if isinstance(
                parent,
                (
                    cst.Arg,
                    cst.Comparison,
                    cst.ComparisonTarget,
                    cst.FormattedStringExpression,
                    cst.If,
                    cst.IfExp,
                    cst.BooleanOperation,
                    cst.UnaryOperation,
                ),
            ):
                continue  # an argument (the call is followed above), a comparison, a test, a message
            shown = cst.Module([]).code_for_node(parent) if parent is not None else self.param
            self.fail(f"`{self.fn.name.value}` uses the class in `{shown[:60]}`, not followed")


def returned_functions(fn: cst.FunctionDef) -> list[cst.FunctionDef]:
    """The functions defined in ``fn`` that it returns by name (a decorator factory's decorator)."""
    nested = {c.name.value: c for _, c in _parented(fn.body) if isinstance(c, cst.FunctionDef)}
    out: list[cst.FunctionDef] = []
    for _, c in _parented(fn.body):
        if type(c) is cst.Return and isinstance(c.value, cst.Name) and c.value.value in nested:
            out.append(nested[c.value.value])
    return out


def _param_of(callee: cst.FunctionDef, call: cst.Call, param: str) -> str | None:
    """The parameter of ``callee`` that receives ``param`` in ``call``."""
    positional = [p.name.value for p in (*callee.params.posonly_params, *callee.params.params)]
    for i, a in enumerate(call.args):
        if isinstance(a.value, cst.Name) and a.value.value == param:
            if a.keyword is not None:
                return a.keyword.value
            if a.star:
                return None
            return positional[i] if i < len(positional) else None
    return None


def _names(node: cst.CSTNode) -> Iterator[cst.Name]:
    for _, child in _parented(node):
        if isinstance(child, cst.Name):
            yield child


def _parented(node: cst.CSTNode) -> Iterator[tuple[cst.CSTNode, cst.CSTNode]]:
    """Every (parent, child) pair under ``node``; the bodies of nested functions and lambdas are
    left out (a nested function itself is yielded)."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        n = stack.pop()
        for c in n.children:
            yield n, c
            if not isinstance(c, (cst.FunctionDef, cst.Lambda)):
                stack.append(c)


def _calls(fn: cst.FunctionDef) -> Iterator[cst.Call]:
    for _, c in _parented(fn.body):
        if type(c) is cst.Call:
            yield c


def _self_stores(fn: cst.FunctionDef, me: str) -> bool:
    """Does ``fn`` assign an attribute of ``me`` (``self.x = ...``, ``del self.x``)?"""
    for parent, c in _parented(fn.body):
        if isinstance(c, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del)):
            target = c.target
            if type(target) is cst.Attribute and _name(target.value) == me:
                return True
        del parent
    return False


def _sets_field(loop: cst.For, me: str, var: str) -> bool:
    """Does the loop over the fields call ``setattr(self, f.name, ...)``?"""
    for _, c in _parented(loop.body):
        if type(c) is cst.Call and _name(c.func) == "setattr" and len(c.args) == 3:
            obj, key = c.args[0].value, c.args[1].value
            if (
                _name(obj) == me
                and type(key) is cst.Attribute
                and _name(key.value) == var
                and key.attr.value == "name"
            ):
                return True
    return False


def _rebinds(fn: cst.FunctionDef, names: set[str]) -> bool:
    for _, c in _parented(fn.body):
        if isinstance(c, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)) and _name(c.target) in names:
            if isinstance(c.target, cst.Name):
                return True
    return False


#: In :attr:`Effect.wrappers`: the name holds the class, or the installed function itself.
THE_CLASS, ITSELF = "<class>", "<itself>"


def _all_names(node: cst.CSTNode) -> Iterator[cst.Name]:
    """Every name under ``node``, nested functions and lambdas included."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            yield n
        stack.extend(n.children)


def _binding_names(fn: cst.FunctionDef) -> Iterator[str]:
    """Each binding of a name in ``fn``'s own scope (parameters, assignments, loop and ``with``
    targets, imports, ``except ... as``, nested ``def`` and ``class``), once per binding."""
    p = fn.params
    for param in (*p.posonly_params, *p.params, *p.kwonly_params):
        yield param.name.value
    for star in (p.star_arg, p.star_kwarg):
        if type(star) is cst.Param:
            yield star.name.value
    for _, c in _parented(fn.body):
        targets: list[cst.CSTNode] = []
        if isinstance(c, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor)):
            targets.append(c.target)
        elif type(c) is cst.NamedExpr:
            targets.append(c.target)
        elif isinstance(c, (cst.AsName,)):
            targets.append(c.name)
        elif isinstance(c, (cst.FunctionDef, cst.ClassDef)):
            yield c.name.value
        elif type(c) is cst.ImportAlias and c.asname is None:
            yield _name(c.name).partition(".")[0] if isinstance(c.name, cst.Name) else _import_root(c.name)
        for t in targets:
            yield from _target_names(t)


def _target_names(t: cst.CSTNode) -> Iterator[str]:
    """The names an assignment target binds (not those of ``cls.x`` or ``d[k]``)."""
    if isinstance(t, cst.Name):
        yield t.value
    elif isinstance(t, (cst.Tuple, cst.List)):
        for e in t.elements:
            yield from _target_names(e.value)
    elif type(t) is cst.StarredElement:
        yield from _target_names(t.value)


def _import_root(e: cst.BaseExpression) -> str:
    while type(e) is cst.Attribute:
        e = e.value
    return _name(e)


def _bound(fn: cst.FunctionDef) -> set[str]:
    return set(_binding_names(fn))


def _ends_in_return(body: cst.BaseSuite) -> bool:
    stmts = _suite(body)
    last = stmts[-1] if stmts else None
    return type(last) is cst.SimpleStatementLine and type(last.body[-1]) is cst.Return


def _returns(stmts: list[cst.BaseStatement]) -> bool:
    return any(type(c) is cst.Return for st in stmts for _, c in _parented(st))
