"""What an op requires of one tensor argument whose shape is not known yet.

An unannotated parameter learns its shape from its first use (``infer/learn.py``): the
front end asks the op table what shape the op accepts for that argument, given the other
arguments (a module's constructor arguments, ints, other tensors).  The answer must be
implied by torch accepting the call, never more: a shape torch may refuse is fine to
learn (the call raises otherwise), a shape torch accepts must never be excluded.

* A declarative stub answers with its parameter's spec, names bound by the module's
  constructor arguments, the call's ints and the other tensors (``nn.Linear(784, 10)``:
  ``*b 784``).  Other names get fresh opaque symbols.
* A Python rule answers through a function registered here under the rule's name (one
  short function each, next to nothing else: the rules stay as they are).  Rules with no
  entry learn nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..model.dims import Dim, Star, Unknown
from ..model.shape import Item, Shape
from ..model.values import ModuleV, TensorV
from ..unify.match import Bindings, Operand, instantiate, match
from .call import Call, as_dim
from .context import Arg, RuleContext
from .stubs import OpDef, ParamKind

__all__ = ["RequireFn", "at_least", "requires", "required_shape"]

#: ``(call, parameter name) -> a tensor of the shape (and dtype) the rule accepts for it``
#: (``None``: nothing to learn).
RequireFn = Callable[[Call, str], "TensorV | None"]

_REQUIRES: dict[str, RequireFn] = {}

#: The run of leading dims an op does not constrain (renamed per parameter by the front end).
BATCH = "batch"


def requires(*names: str) -> Callable[[RequireFn], RequireFn]:
    """Register what the Python rule(s) ``names`` require of their input."""

    def deco(fn: RequireFn) -> RequireFn:
        for name in names:
            _REQUIRES[name] = fn
        return fn

    return deco


def required_shape(
    op: OpDef,
    bound: dict[str, Arg],
    probe: Arg,
    ctx: RuleContext,
    module: ModuleV | None = None,
    follow: Callable[[ModuleV, Sequence[Arg], Mapping[str, Arg]], TensorV | None] | None = None,
) -> TensorV | None:
    """The shape ``op`` accepts for the argument ``probe`` (bound in ``bound``), or ``None``."""
    pname = next((k for k, a in bound.items() if a is probe), None)
    param = op.param(pname) if pname is not None else None
    if pname is None or param is None or param.kind in (ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD):
        return None
    call = Call(op, bound, ctx, None, module)
    if op.rule is None:
        return _from_spec(call, pname) if param.spec is not None else None
    if op.rule == "sequential" and follow is not None and module is not None and pname == "input":
        first = module.children[0] if module.children else None
        return follow(first, [probe], {}) if isinstance(first, ModuleV) else None
    fn = _REQUIRES.get(op.rule)
    return fn(call, pname) if fn is not None else None


def _from_spec(call: Call, pname: str) -> TensorV | None:
    op = call.op
    b = Bindings(call.ctx.facts)
    if call.module is not None:
        for k, v in call.module.args.items():
            d = as_dim(v)
            if d is not None and not isinstance(d, Unknown):
                b.bind(k, d)  # a size not known stays a name of the spec: a fresh symbol
    operands: list[Operand] = []
    for p in op.params:
        if p.name == pname or p.name not in call.bound:
            continue
        v = call.value(p.name)
        if p.spec is None:
            d = as_dim(v) if p.kind is not ParamKind.VAR_POSITIONAL else None
            if d is not None and not isinstance(d, Unknown):
                b.bind(p.name, d)
        elif isinstance(v, TensorV):
            operands.append(Operand(p.spec, v.shape, p.name))
    if operands:
        # The other tensors bind names the probe shares (``F.linear(x, w)``: ``in`` from ``w``).
        # Their own problems are the call's to report, not ours.
        match(operands, b)
    spec = next(p.spec for p in op.params if p.name == pname)
    assert spec is not None
    shape = instantiate(spec, b, call.ctx.fresh)
    if any(isinstance(d, Unknown) for d in shape.items):
        return None  # an anonymous dim (``_``, ``...``) says nothing a user would write
    return TensorV(shape)


def _size(call: Call, name: str, base: str) -> Dim:
    """The module's size ``name``; a fresh symbol named ``base`` when it is not known (a layer sized by
    a constructor argument of the generic analysis): the input has that dim, whatever its size."""
    d = call.int(name)
    return call.ctx.fresh(base) if d is None or isinstance(d, Unknown) else d


def _lead(*dims: Dim, dtype: str | None = None) -> TensorV:
    items: tuple[Item, ...] = (Star(BATCH), *dims)
    return TensorV(Shape(items), dtype)


_SPATIAL = {1: ("l",), 2: ("h", "w"), 3: ("d", "h", "w")}


@requires("conv")
def _conv(call: Call, pname: str) -> TensorV | None:
    """``nn.Conv2d(3, 64, 3)``: ``[*batch 3 h w]`` (a batch dim or none: torch takes both)."""
    if pname != "input" or call.module is None:
        return None
    n = call.params["nd"]
    cin = _size(call, "in_channels", "c")
    return _lead(cin, *(call.ctx.fresh(s) for s in _SPATIAL[n]))


@requires("channel_norm")
def _channel_norm(call: Call, pname: str) -> TensorV | None:
    """``nn.BatchNorm2d(64)``: exactly ``[b 64 h w]`` (the rank is the only one torch takes)."""
    ranks = call.params.get("ranks")
    if pname != "input" or not ranks or len(ranks) != 1:
        return None
    num = _size(call, "num_features", "c")
    (rank,) = ranks
    fresh = call.ctx.fresh
    return TensorV(Shape((fresh("b"), num, *(fresh(s) for s in _SPATIAL.get(rank - 2, ())))))


@requires("layer_norm")
def _layer_norm(call: Call, pname: str) -> TensorV | None:
    """``nn.LayerNorm(d)``: ``[*batch d]``; ``normalized_shape`` fixes the trailing dims."""
    ns = call.ints("normalized_shape")
    if pname != "input" or ns is None or any(isinstance(d, Unknown) for d in ns):
        return None
    return _lead(*ns)


@requires("embedding")
def _embedding(call: Call, pname: str) -> TensorV | None:
    """``nn.Embedding(n, d)`` looks up indices of any shape: ``[*batch]``."""
    if pname != "input" or call.module is None:
        return None
    return _lead(dtype="int64")


def _seq_then(call: Call, last: Dim) -> TensorV:
    """``[*batch l last]`` when ``batch_first`` puts the sequence right before the features (a batch
    dim or none: torch takes both), else ``[*batch last]`` (``[l n last]`` or ``[l last]``)."""
    if call.bool("batch_first"):
        return _lead(call.ctx.fresh("l"), last)
    return _lead(last)


@requires("rnn")
def _rnn(call: Call, pname: str) -> TensorV | None:
    """``nn.LSTM(32, 64, batch_first=True)``: ``[*batch l 32]`` (unbatched ``[l 32]`` too)."""
    if pname != "input" or call.module is None:
        return None
    return _seq_then(call, _size(call, "input_size", "d"))


@requires("rnn_cell")
def _rnn_cell(call: Call, pname: str) -> TensorV | None:
    """``nn.GRUCell(32, 64)``: ``[*batch 32]`` (a batch dim or none)."""
    if pname != "input" or call.module is None:
        return None
    return _lead(_size(call, "input_size", "d"))


@requires("mha")
def _mha(call: Call, pname: str) -> TensorV | None:
    """``nn.MultiheadAttention(64, 4)``: the query's features are ``embed_dim``, the key's ``kdim``
    and the value's ``vdim`` (both ``embed_dim`` unless given)."""
    if call.module is None or pname not in ("query", "key", "value"):
        return None
    e = call.int("embed_dim")
    own = {"query": "embed_dim", "key": "kdim", "value": "vdim"}[pname]
    size = call.int(own) if own == "embed_dim" or not call.is_none(own) else e
    if size is None or isinstance(size, Unknown):
        return None
    return _seq_then(call, size)


@requires("pool", "adaptive_pool")
def _pool(call: Call, pname: str) -> TensorV | None:
    """``nn.MaxPool2d(2)``: ``[*batch c h w]`` (a batch dim or none: torch takes both)."""
    if pname != "input":
        return None
    n = call.params["nd"]
    fresh = call.ctx.fresh
    return _lead(fresh("c"), *(fresh(s) for s in _SPATIAL[n]))


def at_least(fresh: Callable[[str], Dim], dims: Sequence[Dim | None], scalar_ok: bool) -> TensorV | None:
    """A tensor with the dims ``dims`` index (all ints): ``[d0 d1 d2 *batch]`` for ``1, 2``, ``[*batch
    d0 d1]`` for ``-2`` (``None`` when one is not an int, or when a 0-d tensor passes and these say
    no more: ``scalar_ok``, an op that takes dim 0 and -1 of a 0-d tensor as of a 1-d one)."""
    if not dims or any(type(d) is not int for d in dims):
        return None
    ints = [d for d in dims if type(d) is int]
    lead = max((d + 1 for d in ints if d >= 0), default=0)
    trail = max((-d for d in ints if d < 0), default=0)
    if max(lead, trail) < (2 if scalar_ok else 1):
        return None
    if lead >= trail:
        return TensorV(Shape((*(fresh(f"d{i}") for i in range(lead)), Star(BATCH))))
    return _lead(*(fresh(f"d{i}") for i in range(trail)))


@requires("size")
def _size_of(call: Call, pname: str) -> TensorV | None:
    """``x.size(1)``: ``[d0 d1 *batch]`` (``x.size()`` requires nothing; a 0-d tensor has no dim 0)."""
    if pname != "self" or call.is_none("dim"):
        return None
    return at_least(call.ctx.fresh, [call.int("dim")], scalar_ok=False)


@requires("transpose")
def _transpose(call: Call, pname: str) -> TensorV | None:
    """``x.transpose(1, 2)``: ``[d0 d1 d2 *batch]``."""
    if pname not in ("self", "input"):
        return None
    return at_least(call.ctx.fresh, [call.int("dim0"), call.int("dim1")], scalar_ok=True)


@requires("flatten")
def _flatten(call: Call, pname: str) -> TensorV | None:
    """``x.flatten(1)`` / ``nn.Flatten()``: ``[d0 d1 *batch]``."""
    if pname not in ("self", "input"):
        return None
    return at_least(call.ctx.fresh, [call.int("start_dim"), call.int("end_dim")], scalar_ok=True)


@requires("permute")
def _permute(call: Call, pname: str) -> TensorV | None:
    """``x.permute(0, 2, 1)``: exactly as many dims as it lists (torch raises otherwise)."""
    dims = call.ints("dims")
    if pname not in ("self", "input") or not dims:
        return None
    return TensorV(Shape(tuple(call.ctx.fresh(f"d{i}") for i in range(len(dims)))))
