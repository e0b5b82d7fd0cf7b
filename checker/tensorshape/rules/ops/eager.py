"""Calls that model code makes around its tensor ops (issue 15): ``torch.nn.init``'s in-place
initialisers, the eager-mode predicates (``torch.jit.is_scripting()`` is ``False`` when the code
runs as Python), value-kind and dtype predicates, ``copy_``, ``view_as_real``, ``unique`` and
``repeat_interleave``.

The initialisers keep their tensor's shape; some need ranks (the fan of a weight needs two dims),
and report torch's own message when the rank is known and wrong.
"""

from __future__ import annotations

from ...lang.render import render_dim, render_shape
from ...model import codes
from ...model.dims import Dim, Star, Unknown, UnknownSource
from ...model.shape import Shape
from ...model.values import (
    BoolV,
    DictV,
    DTypeV,
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
    unknown_tensor,
)
from ...unify import arith
from ...unify.broadcast import broadcast_shapes
from ...unify.compare import Truth, Verdict, eq3
from ..call import Call
from ..registry import rule
from .util import run_most, run_rank_among, run_rank_at_least, run_rank_shared, shapes_equal, wrap_dim

_ERR = unknown_tensor(UnknownSource.ERROR)


def _the_tensor(call: Call, name: str) -> Value:
    """The tensor an in-place call returns: the argument itself (same shape, dtype and strides)."""
    v = call.value(name)
    if isinstance(v, TensorV):
        return v
    return unknown_tensor(v.source if isinstance(v, UnknownV) else UnknownSource.UNSUPPORTED)


@rule("init")
def init(call: Call) -> Value:
    """``torch.nn.init.*_(tensor, ...)``: fills ``tensor`` in place and returns it.

    ``ranks=(lo, hi)``: the ranks torch accepts (``message`` is its error); ``fan=True``: the rank
    check is the fan computation, which kaiming's initialisers skip for a tensor with no elements.
    """
    t = call.tensor("tensor")
    if t is not None and t.shape.rank is None and "ranks" in call.params:
        lo, hi = call.params["ranks"]
        if call.params.get("fan") and any(type(d) is int and d == 0 for d in t.shape.items):
            return _the_tensor(call, "tensor")  # no elements: kaiming's initialisers do nothing
        if hi >= 64:
            run_rank_at_least(call, t.shape, lo, call.name, "tensor")
        elif not run_rank_among(call, t.shape, range(lo, hi + 1), call.name, "tensor"):
            return _ERR
    if t is None or t.shape.rank is None or "ranks" not in call.params:
        return _the_tensor(call, "tensor")
    lo, hi = call.params["ranks"]
    r = t.shape.rank
    if lo <= r <= hi:
        check = _INIT_CHECKS.get(call.params.get("check", ""))
        if check is not None and not check(call, t.shape):
            return _ERR
        return _the_tensor(call, "tensor")
    message = f"{call.params['message']}, got {render_shape(t.shape)}"
    if call.params.get("fan"):
        zero = [eq3(d, 0, call.facts) for d in t.shape.dims]
        if any(z is Truth.TRUE for z in zero):
            return _the_tensor(call, "tensor")  # "Initializing zero-element tensors is a no-op"
        if any(z is not Truth.FALSE for z in zero):
            call.oblige(message + " (unless it has no elements)", [])
            return _the_tensor(call, "tensor")
    call.error(codes.RANK_MISMATCH, message, "tensor", call.params.get("hint"))
    return _ERR


def _known_dims(shape: Shape) -> list[int] | None:
    dims = shape.dims
    return [d for d in dims if type(d) is int] if all(type(d) is int for d in dims) else None


def _dirac(call: Call, shape: Shape) -> bool:
    """dirac_: ``out_channels`` divisible by ``groups``; the centre of an empty kernel is no element."""
    groups = call.int("groups")
    dims = _known_dims(shape)
    if dims is None or type(groups) is not int or groups <= 0:
        return True
    if dims[0] % groups:
        call.error(codes.INVALID_ARG, f"dim 0 must be divisible by groups, got {dims[0]} and groups={groups}", "groups")
        return False
    if min(dims[0] // groups, dims[1]) > 0 and 0 in dims[2:]:
        i = dims.index(0, 2)
        call.error(
            codes.INDEX_RANGE,
            f"index 0 is out of bounds for dimension {i} with size 0 (the kernel centre of {render_shape(shape)})",
            "tensor",
        )
        return False
    return True


def _xavier(call: Call, shape: Shape) -> bool:
    """xavier_: the std divides by ``fan_in + fan_out``, which is 0 for a tensor with no elements."""
    dims = _known_dims(shape)
    if dims is None:
        return True
    receptive = 1
    for d in dims[2:]:
        receptive *= d
    if (dims[0] + dims[1]) * receptive == 0:
        call.error(
            codes.INVALID_ARG,
            f"float division by zero: fan_in + fan_out is 0 for {render_shape(shape)}",
            "tensor",
            "a tensor with no elements has no fan: skip its initialisation",
        )
        return False
    return True


_INIT_CHECKS = {"dirac": _dirac, "xavier": _xavier}


@rule("eager_constant")
def eager_constant(call: Call) -> Value:
    """``torch.jit.is_scripting()``, ``is_tracing()``, ``torch.compiler.is_compiling()``: what they
    return when the code runs as Python (the only way the analysis reads it)."""
    return BoolV(bool(call.params["value"]))


#: Values that are known not to be tensors.
_NOT_TENSORS = (FloatV, BoolV, StrV, NoneV, TupleV, SeqV, DictV, ModuleV, DTypeV)


@rule("is_tensor")
def is_tensor(call: Call) -> Value:
    """``torch.is_tensor(obj)``: by the kind of the argument's value."""
    v = call.value("obj")
    if isinstance(v, TensorV):
        return BoolV(True)
    if isinstance(v, _NOT_TENSORS) or (isinstance(v, IntV) and not isinstance(v, MaybeIntV)):
        return BoolV(False)
    return BoolV(None)


_FLOATING = frozenset({"float16", "bfloat16", "float32", "float64"})
_COMPLEX = frozenset({"complex32", "complex64", "complex128"})


def _dtype_in(call: Call, name: str, kinds: frozenset[str]) -> bool | None:
    t = call.value(name)
    if isinstance(t, TensorV) and t.dtype is not None:
        return t.dtype in kinds
    return None


@rule("dtype_is")
def dtype_is(call: Call) -> Value:
    """``torch.is_complex(x)``, ``x.is_floating_point()``: from the tensor's dtype, when known."""
    name = "self" if call.has("self") else "input"
    return BoolV(_dtype_in(call, name, _COMPLEX if call.params["kind"] == "complex" else _FLOATING))


_INTEGRAL = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"})


@rule("tolist")
def tolist(call: Call) -> Value:
    """``t.tolist()``: a number for a 0-d tensor, else a list of the first dim's length of what each
    row gives (ints for an integral dtype, floats for a floating one, bools for ``bool``); the
    numbers' values are not known."""
    t = call.value("self")
    dims = t.shape.dims if isinstance(t, TensorV) and t.shape.rank is not None else None
    if not isinstance(t, TensorV) or dims is None or t.dtype is None:
        return UnknownV()
    data = Unknown(UnknownSource.DATA_DEPENDENT)
    out: Value
    if t.dtype in _INTEGRAL:
        out = IntV(data)
    elif t.dtype in _FLOATING:
        out = FloatV(None)
    elif t.dtype == "bool":
        out = BoolV(None)
    else:
        return UnknownV()
    for d in reversed(dims):
        out = SeqV(out, SeqKind.LIST, None if isinstance(d, Unknown) else d)
    return out


@rule("default_dtype")
def default_dtype(call: Call) -> Value:
    """``torch.get_default_dtype()``: a dtype; which one ``torch.set_default_dtype`` decides at run time."""
    return DTypeV(None)


@rule("copy_into")
def copy_into(call: Call) -> Value:
    """``x.copy_(src)``: ``src`` broadcasts to ``x``'s shape (one way: ``x`` keeps its shape)."""
    got = call.match({"self": "*#s", "src": "*#s"}, "*s")
    t = call.tensor("self")
    if got is not None and t is not None and shapes_equal(got, t.shape, call.facts) is Verdict.ERROR:
        src = call.shape("src")
        call.error(
            codes.BROADCAST,
            f"output with shape {render_shape(t.shape)} doesn't match the broadcast shape "
            f"{render_shape(got)} of {call.label('src')} {render_shape(src or Shape.unknown())}",
            "src",
            "copy_ writes into the tensor: src must broadcast to its shape",
        )
        return _ERR
    return _the_tensor(call, "self")


@rule("view_as_real")
def view_as_real(call: Call) -> Value:
    """``torch.view_as_real(x)``: a complex ``[*s]`` as a real ``[*s 2]``."""
    t = call.tensor("input")
    if t is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    if _dtype_in(call, "input", _COMPLEX) is False:
        call.error(
            codes.INVALID_ARG,
            f"only supported for complex tensors, got {t.dtype}",
            "input",
            "view_as_real reads a complex tensor's real and imaginary parts",
        )
        return _ERR
    if t.shape.rank is None:
        return TensorV(Shape.unknown())
    real = {"complex32": "float16", "complex64": "float32", "complex128": "float64"}.get(t.dtype or "")
    return TensorV(Shape((*t.shape.items, 2)), real)


@rule("unique")
def unique(call: Call) -> Value:
    """``torch.unique(x, sorted, return_inverse, return_counts, dim)``: how many distinct values (or
    slices along ``dim``) the data holds is a size of its own, a fresh name (never a guess)."""
    t = call.tensor("input")
    if t is None:
        return UnknownV(UnknownSource.UNSUPPORTED)
    flags = [call.bool("return_inverse"), call.bool("return_counts")]
    if any(f is None for f in flags):
        return UnknownV(UnknownSource.UNSUPPORTED)
    shape = t.shape
    d = call.int("dim")
    inverse: Shape
    if d is None:
        n = call.fresh("unique")
        out = Shape((n,))
        inverse = shape
    elif shape.rank == 0:
        call.error(codes.DIM_RANGE, f"dim {render_dim(d)} given but the tensor has no dims", "dim")
        return UnknownV(UnknownSource.ERROR)
    else:
        i = wrap_dim(call, d, shape, "dim")
        if i is None:
            return UnknownV(
                UnknownSource.ERROR if type(d) is int and shape.rank is not None else UnknownSource.UNSUPPORTED
            )
        n = call.fresh("unique")
        items = list(shape.items)
        inverse = Shape((items[i],))
        items[i] = n
        out = Shape(tuple(items))
    counts = Shape((n,))
    result: Value = TensorV(out, t.dtype)
    parts = [result]
    if flags[0]:
        parts.append(TensorV(inverse, "int64"))
    if flags[1]:
        parts.append(TensorV(counts, "int64"))
    return result if len(parts) == 1 else TupleV(tuple(parts), SeqKind.TUPLE)


@rule("repeat_interleave")
def repeat_interleave(call: Call) -> Value:
    """``x.repeat_interleave(repeats, dim=None, *, output_size=None)``: each element (or slice along
    ``dim``) repeated; without ``dim`` the input is flattened first.  ``repeats`` is an int, or a
    0-d/1-element tensor (the same count for every slice), or a 1-D tensor of one count per slice
    (the total is data: ``output_size``, else a fresh name)."""
    name = "self" if call.has("self") else "input"
    t = call.tensor(name)
    if t is None:
        return unknown_tensor(UnknownSource.UNSUPPORTED)
    shape = t.shape
    rv = call.value("repeats") if call.has("repeats") else NoneV()
    if isinstance(rv, NoneV):
        # ``torch.repeat_interleave(repeats)``: index i repeated repeats[i] times.
        if shape.rank is not None and shape.rank != 1:
            call.error(
                codes.RANK_MISMATCH,
                f"repeat_interleave only accept 1D vector as repeat, got {render_shape(shape)}",
                name,
            )
            return _ERR
        return TensorV(Shape((_total(call),)), "int64")
    # The counts first: their requirements hold whatever the input, a run in it too.
    if isinstance(rv, IntV) and not isinstance(rv, MaybeIntV) and type(rv.value) is int and rv.value < 0:
        call.error(codes.INVALID_ARG, f"Repeats must be non-negative, got {rv.value}", "repeats")
        return _ERR
    if isinstance(rv, TensorV):
        rs = rv.shape
        if rs.rank is not None and rs.rank > 1:
            call.error(codes.RANK_MISMATCH, f"repeats must be 0-dim or 1-dim tensor, got {render_shape(rs)}", "repeats")
            return _ERR
        # A run in the counts is at most one dim long, and so is the input's where it is the same run.
        fixed = run_rank_shared(call, rs, (0, 1), "repeat_interleave's repeats", "repeats", (shape,))
        if fixed is None:
            return _ERR
        rs, shape = fixed
    d = call.int("dim")
    i: int | None = None
    if d is not None:
        if shape.rank == 0:
            call.error(codes.DIM_RANGE, f"dim {render_dim(d)} given but the tensor has no dims", "dim")
            return _ERR
        i = wrap_dim(call, d, shape, "dim", most=run_most(rv.shape, 1, shape) if isinstance(rv, TensorV) else None)
        if i is None:
            return _ERR if type(d) is int and shape.rank is not None else unknown_tensor(UnknownSource.UNSUPPORTED)
        along: Dim = shape.items[i]
    else:
        along = arith.prod(shape.dims) if shape.rank is not None else Unknown(UnknownSource.UNANNOTATED)
    new: Dim
    if isinstance(rv, IntV) and not isinstance(rv, MaybeIntV):
        new = arith.mul(along, rv.value)
    elif isinstance(rv, TensorV):
        if rs.rank == 1 and not isinstance(along, Unknown):
            n = rs.dims[0]
            if eq3(n, 1, call.facts) is not Truth.TRUE:
                call.check(
                    eq3(n, along, call.facts),
                    (n, along),
                    lambda: (
                        f"repeats must have the same size as input along dim, got {render_dim(n)} and {render_dim(along)}"
                    ),
                    at="repeats",
                )
        new = _total(call)
    else:
        new = Unknown(UnknownSource.UNSUPPORTED)
    if d is None or i is None:
        return TensorV(Shape((new,)), t.dtype)
    items = list(shape.items)
    items[i] = new
    return TensorV(Shape(tuple(items)), t.dtype)


def _total(call: Call) -> Dim:
    """The output length a tensor of repeats gives: ``output_size`` when given, else a fresh name."""
    size = call.int("output_size") if call.has("output_size") else None
    return size if size is not None and not isinstance(size, Unknown) else call.fresh("repeated")


@rule("fan_in_and_fan_out")
def fan_in_and_fan_out(call: Call) -> Value:
    """``torch.nn.init._calculate_fan_in_and_fan_out(w)``: ``(w.size(1) * r, w.size(0) * r)`` where
    ``r`` is the product of the kernel dims (``w.shape[2:]``); a tensor of fewer than 2 dims raises."""
    t = call.tensor("tensor")
    if t is None or t.shape.rank is None:
        return TupleV((IntV(Unknown(UnknownSource.UNSUPPORTED)),) * 2, SeqKind.TUPLE)
    dims = t.shape.dims
    if len(dims) < 2:
        call.error(
            codes.RANK_MISMATCH,
            f"Fan in and fan out can not be computed for tensor with fewer than 2 dimensions, got {render_shape(t.shape)}",
            "tensor",
            "a weight's fan needs at least two dims (out, in)",
        )
        return UnknownV(UnknownSource.ERROR)
    receptive = arith.prod(dims[2:])
    return TupleV((IntV(arith.mul(dims[1], receptive)), IntV(arith.mul(dims[0], receptive))), SeqKind.TUPLE)


@rule("bucketize")
def bucketize(call: Call) -> Value:
    """``torch.bucketize(input, boundaries, *, out_int32=False, right=False)``: the index of each
    element's bucket, shaped as ``input`` (a Python number gives a 0-d tensor); ``boundaries`` is 1-D."""
    b = call.tensor("boundaries")
    if b is not None and b.shape.rank is not None and b.shape.rank != 1:
        call.error(
            codes.RANK_MISMATCH,
            f"boundaries tensor must be 1 dimension, but got dim({b.shape.rank}) {render_shape(b.shape)}",
            "boundaries",
            "bucketize searches one sorted 1-D tensor of boundaries",
        )
        return _ERR
    flag = call.bool("out_int32")
    dtype = None if flag is None else "int32" if flag else "int64"
    v = call.value("input")
    if isinstance(v, TensorV):
        return TensorV(v.shape, dtype)
    if isinstance(v, FloatV) or (isinstance(v, IntV) and not isinstance(v, MaybeIntV)):
        return TensorV(Shape(()), dtype)
    return unknown_tensor(UnknownSource.UNSUPPORTED, dtype)


def _numbers(v: Value) -> bool:
    return isinstance(v, (FloatV, BoolV)) or (isinstance(v, IntV) and not isinstance(v, MaybeIntV))


@rule("foreach")
def foreach(call: Call) -> Value:
    """``torch._foreach_add(xs, other)`` and the rest of the family (``params["operands"]``: the names
    of the operands after the list ``self``): each operand is a number, a 0-d tensor (binary ops), a
    list of numbers, or a list of tensors as long as ``self`` whose items broadcast with ``self``'s
    pairwise.  The in-place ops (``inplace=True``) write into ``self``'s tensors, so each result must
    keep its tensor's shape; both return the list of results.  ``norm=True``: one 0-d norm per item."""
    xs = call.value("self")
    if not isinstance(xs, TupleV) or not all(isinstance(x, TensorV) for x in xs.items):
        return UnknownV(xs.source if isinstance(xs, UnknownV) else UnknownSource.UNSUPPORTED)
    if not xs.items:
        call.error(codes.INVALID_ARG, "Tensor list must have at least one tensor.", "self")
        return UnknownV(UnknownSource.ERROR)
    n = len(xs.items)
    columns: list[list[Shape | None]] = []  # per operand: each item's shape (None: a number)
    for name in call.params["operands"]:
        if not call.has(name) or call.is_none(name):
            continue
        col = _operand(call, name, n)
        if isinstance(col, bool):
            return UnknownV(UnknownSource.ERROR)
        if col is None:
            return TupleV(tuple(unknown_tensor(UnknownSource.UNSUPPORTED) for _ in xs.items), SeqKind.LIST)
        columns.append(col)
    out: list[Value] = []
    for i, x in enumerate(xs.items):
        assert isinstance(x, TensorV)
        shapes = [x.shape, *(s for col in columns if (s := col[i]) is not None)]
        got, issues = broadcast_shapes(shapes, call.facts)
        for iss in issues:
            if iss.verdict is Verdict.ERROR:
                sizes = ", ".join(render_dim(d) for d in iss.dims if d is not None)
                call.error(
                    codes.BROADCAST,
                    f"item {i}: the sizes ({sizes}) at dim {iss.position} do not broadcast "
                    f"({' with '.join(render_shape(s) for s in shapes)})",
                    "self",
                    "the lists are combined item by item: each pair must broadcast",
                )
                return UnknownV(UnknownSource.ERROR)
            if iss.verdict is Verdict.OBLIGATION:
                call.broadcast_undecided(iss.dims, f"item {i} of the lists must broadcast (dim {iss.position})", "self")
        if call.params.get("inplace") and shapes_equal(got, x.shape, call.facts) is Verdict.ERROR:
            call.error(
                codes.BROADCAST,
                f"output with shape {render_shape(x.shape)} doesn't match the broadcast shape {render_shape(got)} (item {i})",
                "self",
                "an in-place foreach op writes into self's tensors: the others must broadcast to their shapes",
            )
            return UnknownV(UnknownSource.ERROR)
        kept = x.shape if call.params.get("inplace") else got
        out.append(TensorV(Shape(()) if call.params.get("norm") else kept, x.dtype if x.dtype in _FLOATING else None))
    return TupleV(tuple(out), SeqKind.LIST)


def _operand(call: Call, name: str, n: int) -> list[Shape | None] | None | bool:
    """One operand of a foreach op, as a shape (or ``None`` for a number) per item of the list;
    ``None`` when it is not known; ``False`` after an error (never ``True``)."""
    v = call.value(name)
    tensor_lists = name != "value" and name != "scalars"
    if _numbers(v):
        return [None] * n
    if isinstance(v, TensorV):
        r = v.shape.rank
        # (A run's shape has at least its dims besides the run, for every length of it.)
        least = r if r is not None else sum(1 for i in v.shape.items if not isinstance(i, Star))
        if name == "value" or name == "scalars":  # a 1-D tensor of one number per item
            if least > 1 or (r is not None and r != 1):
                call.error(codes.RANK_MISMATCH, f"the scalars must be a 1-D tensor, got {render_shape(v.shape)}", name)
                return False
            k = v.shape.dims[0] if r == 1 else None
            if type(k) is int and k != n:
                call.error(
                    codes.INVALID_ARG,
                    f"Expected length of scalars to match input of length {n} but got {k} instead.",
                    name,
                )
                return False
            return [None] * n
        if least != 0:
            call.error(
                codes.RANK_MISMATCH,
                f"scalar tensor expected to be 0 dim but it has {r if r is not None else f'at least {least}'} dimensions, "
                f"got {render_shape(v.shape)}",
                name,
                "a tensor operand of a foreach op is one number (0-d) for every item; pass a list for one per item",
            )
            return False
        return [None] * n if r == 0 else None
    if not isinstance(v, TupleV):
        return None
    if all(_numbers(x) for x in v.items) and v.items:
        if len(v.items) != n:
            call.error(codes.INVALID_ARG, "Tensor list must have same number of elements as scalar list.", name)
            return False
        return [None] * n
    if not tensor_lists or not all(isinstance(x, TensorV) for x in v.items):
        return None
    if len(v.items) != n:
        call.error(
            codes.INVALID_ARG,
            f"Tensor lists must have the same number of tensors, got {n} and {len(v.items)}",
            name,
        )
        return False
    return [x.shape if isinstance(x, TensorV) else None for x in v.items]
