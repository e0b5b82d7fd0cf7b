"""What to draw for each op of the table: one strategy per rule family, applied to every op of the family.

``FAMILIES`` maps a family name to a function ``(data, qualname) -> Call``.
``family_of(qualname)`` says which family covers an op (from its stub's
``@rule`` or ``@kind``), or ``None``; ``EXCLUDED`` lists the ops no
differential case covers, each with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st
from tensorshape.rules.stubs import OpDef, load_table

from .harness import Call, P, T

Draw = Callable[[st.DataObject, str], Call]

SIDE = st.integers(1, 5)


def shape(data: st.DataObject, lo: int = 0, hi: int = 4, side: st.SearchStrategy[int] = SIDE) -> tuple[int, ...]:
    return tuple(data.draw(st.lists(side, min_size=lo, max_size=hi), label="shape"))


def broadcast_partner(data: st.DataObject, s: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that usually broadcasts with ``s`` (dropped leading dims, ones), sometimes not."""
    kind = data.draw(st.sampled_from(["same", "ones", "suffix", "random"]), label="partner")
    if kind == "same":
        return s
    if kind == "ones":
        return tuple(1 if data.draw(st.booleans()) else d for d in s)
    if kind == "suffix":
        return s[data.draw(st.integers(0, len(s))) :]
    return shape(data, 0, 4)


def dim(data: st.DataObject, rank: int, extra: int = 0) -> int:
    """A dim argument: usually valid (either sign), sometimes out of range."""
    n = max(rank + extra, 1)
    return data.draw(st.integers(-n - 1, n), label="dim")


def _kind(qualname: str) -> str:
    return "method" if qualname.startswith("torch.Tensor.") else "function"


def _call(qualname: str, *args: Any, **kwargs: Any) -> Call:
    return Call(_kind(qualname), qualname, tuple(args), kwargs)


# -- pointwise ----------------------------------------------------------------------------------------------
#: Extra arguments some pointwise ops require.
EXTRA: dict[str, dict[str, Any]] = {
    "clamp": {"min": 0.0},
    "clip": {"min": 0.0},
    "clamp_min": {"min": 0.0},
    "clamp_max": {"max": 1.0},
    "threshold": {"threshold": 0.1, "value": 0.0},
    "hardtanh": {},
    "pow": {},
    "float_power": {},
    "mvlgamma": {"p": 1},
    "polygamma": {},
    "lerp": {},
}


def _spec_params(op: OpDef) -> list[str]:
    return [p.name for p in op.params if p.spec is not None]


def pointwise(data: st.DataObject, qualname: str) -> Call:
    op = load_table().lookup(qualname)[0]
    params = _spec_params(op)
    base = shape(data)
    tensors = [T(base)] + [T(broadcast_partner(data, base)) for _ in params[1:]]
    name = qualname.rsplit(".", 1)[1]
    if name == "where":
        tensors[0] = T(tensors[0].shape, "bool")
    if name.startswith(("bitwise", "gcd", "lcm", "__and", "__or", "__xor", "__lshift", "__rshift")) or name in ("gcd", "lcm"):
        tensors = [T(x.shape, "int64") for x in tensors]
    kwargs = dict(EXTRA.get(name, {}))
    if name in ("clamp", "clip"):
        # min (and maybe max) as tensors that broadcast with the input.
        tensors = tensors[: data.draw(st.integers(2, 3), label="bounds")]
        kwargs = {}
    if qualname.startswith("torch.Tensor."):
        return Call("method", qualname, tuple(tensors), kwargs)
    return Call("function", qualname, tuple(tensors), kwargs)


# -- reductions, softmax-like ------------------------------------------------------------------------------
def reduce(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 4)
    name = qualname.rsplit(".", 1)[1]
    dtype = "bool" if name in ("all", "any") else "float32"
    kwargs: dict[str, Any] = {}
    form = data.draw(st.sampled_from(["none", "dim", "dims"]), label="form")
    if form == "dim" or name in ("logsumexp",):
        kwargs["dim"] = dim(data, len(s))
    elif form == "dims" and name not in ("argmax", "argmin", "count_nonzero", "all", "any", "norm"):
        kwargs["dim"] = tuple(sorted({dim(data, len(s)) for _ in range(data.draw(st.integers(1, 2)))}))
    if name not in ("count_nonzero",) and data.draw(st.booleans(), label="keepdim"):
        kwargs["keepdim"] = True
    return _call(qualname, T(s, dtype), **kwargs)


def same_shape(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 4)
    name = qualname.rsplit(".", 1)[1]
    if name == "flip":
        return _call(qualname, T(s), (dim(data, len(s)),))
    return _call(qualname, T(s), dim(data, len(s)))


def reduce_indices(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3)
    name = qualname.rsplit(".", 1)[1]
    keep = data.draw(st.booleans(), label="keepdim")
    if name == "kthvalue":
        return _call(qualname, T(s), data.draw(st.integers(1, 6)), dim(data, len(s)), keep)
    return _call(qualname, T(s), dim(data, len(s)), keep)


def sort(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3)
    return _call(qualname, T(s), dim(data, len(s)))


def topk(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3)
    return _call(qualname, T(s), data.draw(st.integers(0, 6)), dim(data, len(s)))


# -- shape ops -------------------------------------------------------------------------------------------
def _factor(data: st.DataObject, n: int) -> tuple[int, ...]:
    """A random shape with ``n`` elements, with at most one -1."""
    out: list[int] = []
    rest = n
    for _ in range(data.draw(st.integers(0, 3))):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0] or [1]
        d = data.draw(st.sampled_from(divisors))
        out.append(d)
        rest //= d
    out.append(rest)
    if data.draw(st.booleans(), label="hole"):
        out[data.draw(st.integers(0, len(out) - 1))] = -1
    if data.draw(st.integers(0, 9)) == 0:
        out.append(data.draw(st.integers(2, 3)))  # usually wrong
    return tuple(out)


def view(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 4)
    n = 1
    for d in s:
        n *= d
    target = _factor(data, n)
    if qualname == "torch.reshape":
        return _call(qualname, T(s), target)
    return _call(qualname, T(s), *target)


def view_as(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    n = 1
    for d in s:
        n *= d
    other = tuple(x if x != -1 else 1 for x in _factor(data, n))
    return _call(qualname, T(s), T(other))


def flatten(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 4)
    a, b = dim(data, len(s)), dim(data, len(s))
    return _call(qualname, T(s), a, b)


def unflatten(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3)
    i = dim(data, len(s))
    size = s[i] if -len(s) <= i < len(s) else 4
    return _call(qualname, T(s), i, _factor(data, size))


def squeeze(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 4, st.integers(1, 3))
    if data.draw(st.booleans(), label="all"):
        return _call(qualname, T(s))
    return _call(qualname, T(s), dim(data, len(s)))


def unsqueeze(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    return _call(qualname, T(s), dim(data, len(s), extra=1))


def permute(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 4)
    order = list(data.draw(st.permutations(list(range(len(s))))))
    if order and data.draw(st.integers(0, 5)) == 0:
        order[0] = order[-1]  # a repeated dim: an error
    if qualname == "torch.permute":
        return _call(qualname, T(s), tuple(order))
    return _call(qualname, T(s), *order)


def transpose(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 4)
    if qualname.endswith(("swapaxes", "swapdims")) or "transpose" in qualname:
        return _call(qualname, T(s), dim(data, len(s)), dim(data, len(s)))
    return _call(qualname, T(s))


def t(data: st.DataObject, qualname: str) -> Call:
    return _call(qualname, T(shape(data, 0, 3)))


def matrix_transpose(data: st.DataObject, qualname: str) -> Call:
    return Call("method", qualname, (T(shape(data, 0, 4)),))


def reverse_dims(data: st.DataObject, qualname: str) -> Call:
    return Call("method", qualname, (T(shape(data, 0, 2)),))


def expand(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3, st.integers(1, 3))
    target = list(broadcast_partner(data, s))
    target = [data.draw(st.integers(1, 4)) if d == 1 and data.draw(st.booleans()) else d for d in target]
    lead = [data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(0, 2)))]
    sizes = tuple(lead + target)
    if data.draw(st.booleans(), label="minus1") and sizes:
        sizes = (-1,) * 0 + sizes[:-1] + (-1,)
    name = qualname.rsplit(".", 1)[1]
    if name == "expand_as":
        return _call(qualname, T(s), T(tuple(abs(x) for x in sizes)))
    if qualname == "torch.broadcast_to":
        return _call(qualname, T(s), sizes)
    return _call(qualname, T(s), *sizes)


def repeat(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    reps = tuple(data.draw(st.integers(0, 3)) for _ in range(data.draw(st.integers(0, 4))))
    if qualname.startswith("torch.Tensor."):
        return _call(qualname, T(s), *reps) if reps else _call(qualname, T(s), ())
    return _call(qualname, T(s), reps)


def movedim(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 4)
    return _call(qualname, T(s), dim(data, len(s)), dim(data, len(s)))


def narrow(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3)
    i = dim(data, len(s))
    return _call(qualname, T(s), i, data.draw(st.integers(0, 5)), data.draw(st.integers(0, 5)))


def diff(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    kwargs: dict[str, object] = {}
    if data.draw(st.booleans(), label="n"):
        kwargs["n"] = data.draw(st.integers(-1, 5))
    if data.draw(st.booleans(), label="dim"):
        kwargs["dim"] = dim(data, max(len(s), 1))
    return _call(qualname, T(s), **kwargs)


def split(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3)
    i = dim(data, len(s))
    if data.draw(st.booleans(), label="sections"):
        size = s[i] if -len(s) <= i < len(s) else 3
        parts = [data.draw(st.integers(0, size)) for _ in range(data.draw(st.integers(1, 3)))]
        parts.append(size - sum(parts) if data.draw(st.integers(0, 4)) else 1)
        return _call(qualname, T(s), [p for p in parts if p >= 0], i)
    return _call(qualname, T(s), data.draw(st.integers(1, 4)), i)


def chunk(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3)
    return _call(qualname, T(s), data.draw(st.integers(1, 4)), dim(data, len(s)))


def unbind(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3)
    return _call(qualname, T(s), dim(data, len(s)))


def cat(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3)
    i = dim(data, len(s))
    parts = []
    for _ in range(data.draw(st.integers(1, 3))):
        p = list(s)
        if -len(s) <= i < len(s):
            p[i] = data.draw(st.integers(0, 4))
        if data.draw(st.integers(0, 6)) == 0:
            p = list(shape(data, 1, 3))
        parts.append(T(tuple(p)))
    return _call(qualname, parts, i)


def stack(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    parts = [T(s if data.draw(st.integers(0, 5)) else shape(data, 0, 3)) for _ in range(data.draw(st.integers(1, 3)))]
    return _call(qualname, parts, dim(data, len(s), extra=1))


def pad_sequence(data: st.DataObject, qualname: str) -> Call:
    """Sequences of lengths 1-4 that mostly share their trailing dims, sometimes broadcast into them or not."""
    trailing = shape(data, 0, 2)
    parts = []
    for _ in range(data.draw(st.integers(0, 3))):
        rest = trailing if data.draw(st.integers(0, 3)) else shape(data, 0, 2, st.integers(1, 3))
        parts.append(T((data.draw(st.integers(1, 4)), *rest)))
    return _call(qualname, parts, batch_first=data.draw(st.booleans()))


def gather(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3)
    idx = tuple(data.draw(st.integers(1, d + 1)) for d in s)
    if data.draw(st.integers(0, 5)) == 0:
        idx = shape(data, 1, 3)
    return _call(qualname, T(s), dim(data, len(s)), T(idx, "int64"))


def index_select(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3)
    idx = shape(data, 1, 1) if data.draw(st.integers(0, 5)) else shape(data, 0, 2)
    return _call(qualname, T(s), dim(data, len(s)), T(idx, "int64"))


def masked(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    mask = T(broadcast_partner(data, s), "bool")
    if qualname.endswith("masked_scatter"):
        return _call(qualname, T(s), mask, T(s))
    return _call(qualname, T(s), mask, 0.0)


def getitem(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    items: list[Any] = []
    for _ in range(data.draw(st.integers(0, len(s) + 1))):
        kind = data.draw(st.sampled_from(["int", "slice", "none", "ellipsis"]))
        if kind == "int":
            items.append(data.draw(st.integers(-5, 5)))
        elif kind == "slice":
            a = data.draw(st.none() | st.integers(-5, 5))
            b = data.draw(st.none() | st.integers(-5, 5))
            c = data.draw(st.none() | st.integers(1, 3))
            items.append(slice(a, b, c))
        elif kind == "none":
            items.append(None)
        elif Ellipsis not in items:
            items.append(Ellipsis)
    return Call("method", qualname, (T(s), tuple(items)))


def size(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    if data.draw(st.booleans()):
        return Call("method", qualname, (T(s),))
    return Call("method", qualname, (T(s), dim(data, len(s))))


def no_args(data: st.DataObject, qualname: str) -> Call:
    return Call("method" if qualname.startswith("torch.Tensor.") else "function", qualname, (T(shape(data, 0, 3)),))


def to(data: st.DataObject, qualname: str) -> Call:
    name = qualname.rsplit(".", 1)[1]
    s = shape(data, 0, 3)
    if name == "type_as":
        return Call("method", qualname, (T(s), T(shape(data, 0, 2))))
    if name == "to":
        import torch

        return Call("method", qualname, (T(s), torch.float64))
    if name == "fill_":
        return Call("method", qualname, (T(s), 1.0))
    if name == "geometric_":
        return Call("method", qualname, (T(s), 0.5))
    if name in ("cuda", "pin_memory", "share_memory_"):
        raise _Skip
    return Call("method", qualname, (T(s),))


class _Skip(Exception):
    """This op cannot run here (needs a GPU)."""


# -- matmul family ------------------------------------------------------------------------------------------
def _mat_pair(data: st.DataObject, lo: int, hi: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    a = shape(data, lo, hi)
    b = list(shape(data, lo, hi))
    if len(a) >= 1 and len(b) >= 2 and data.draw(st.integers(0, 3)):
        b[-2] = a[-1]
    elif len(a) >= 1 and len(b) == 1 and data.draw(st.integers(0, 3)):
        b[0] = a[-1]
    return a, tuple(b)


def matmul(data: st.DataObject, qualname: str) -> Call:
    a, b = _mat_pair(data, 1, 4)
    return _call(qualname, T(a), T(b))


def matmul_fixed(data: st.DataObject, qualname: str) -> Call:
    name = qualname.rsplit(".", 1)[1]
    rank = {"mm": (2, 2), "bmm": (3, 3), "mv": (2, 1), "dot": (1, 1), "vdot": (1, 1), "inner": (1, 1)}.get(name, (2, 2))
    a = shape(data, rank[0], rank[0])
    b = list(shape(data, rank[1], rank[1]))
    if data.draw(st.integers(0, 3)):
        if rank[1] == 1:
            b[0] = a[-1]
        else:
            b[-2] = a[-1]
        if rank == (3, 3) and data.draw(st.integers(0, 3)):
            b[0] = a[0]
    return _call(qualname, T(a), T(tuple(b)))


def addmm(data: st.DataObject, qualname: str) -> Call:
    name = qualname.rsplit(".", 1)[1]
    n, m, k, b = (data.draw(st.integers(1, 4)) for _ in range(4))
    bad = data.draw(st.integers(0, 5)) == 0
    if name == "addmm":
        return _call(qualname, T((n, m) if not bad else (m + 1, n)), T((n, k)), T((k, m)))
    if name == "addmv":
        return _call(qualname, T((n,)), T((n, k)), T((k + bad,)))
    if name == "addr":
        return _call(qualname, T((n, m)), T((n,)), T((m + bad,)))
    if name == "baddbmm":
        return _call(qualname, T((b, n, m)), T((b, n, k)), T((b, k + bad, m)))
    return _call(qualname, T((n, m)), T((b, n, k)), T((b, k + bad, m)))  # addbmm


def linear(data: st.DataObject, qualname: str) -> Call:
    x = shape(data, 1, 3)
    out = data.draw(st.integers(1, 4))
    inn = x[-1] if data.draw(st.integers(0, 4)) else data.draw(st.integers(1, 5))
    return _call(qualname, T(x), T((out, inn)), T((out,)) if data.draw(st.booleans()) else None)


# -- creation ------------------------------------------------------------------------------------------------
def create(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3, st.integers(0, 4))
    name = qualname.rsplit(".", 1)[1]
    if qualname.startswith("torch.Tensor."):
        if name == "new_full":
            return Call("method", qualname, (T((2,)), s, 1.0))
        return Call("method", qualname, (T((2,)), *s))
    if name == "full":
        return _call(qualname, s, 1.0)
    if name in ("randint",):
        return _call(qualname, 0, 5, s)
    if data.draw(st.booleans(), label="tuple"):
        return _call(qualname, s)
    return _call(qualname, *s)


def like(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    if qualname.endswith("full_like"):
        return _call(qualname, T(s), 1.0)
    if qualname.endswith("randint_like"):
        return _call(qualname, T(s), 5)
    return _call(qualname, T(s))


def arange(data: st.DataObject, qualname: str) -> Call:
    form = data.draw(st.integers(1, 3))
    a, b, c = data.draw(st.integers(-3, 6)), data.draw(st.integers(-3, 8)), data.draw(st.integers(1, 3))
    return _call(qualname, *(a, b, c)[:form]) if form > 1 else _call(qualname, abs(a))


def linspace(data: st.DataObject, qualname: str) -> Call:
    return _call(qualname, 0.0, 1.0, data.draw(st.integers(0, 6)))


def eye(data: st.DataObject, qualname: str) -> Call:
    n = data.draw(st.integers(0, 4))
    return _call(qualname, n, data.draw(st.integers(0, 4))) if data.draw(st.booleans()) else _call(qualname, n)


def tensor(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)

    # Leaves are numbers or tensors (torch reads a tensor in a list as one number, so only a
    # one-element tensor is accepted), and a row may be cut short (a ragged literal torch refuses,
    # unless it has no element: torch takes the shape from the first row, so a cut first row may
    # make the literal empty, and then no row is checked).
    leaf = data.draw(st.sampled_from([1.0, 1.0, T(()), T((1,)), T((1, 1)), T((2,)), T((0,))]))
    ragged = data.draw(st.integers(0, 4)) == 0
    cut = data.draw(st.sampled_from([-1, -1, 0]))

    def nest(dims: tuple[int, ...]) -> Any:
        if not dims:
            return leaf
        rows = [nest(dims[1:]) for _ in range(dims[0])]
        if ragged and len(dims) > 1 and rows and isinstance(rows[cut], list) and rows[cut]:
            rows[cut] = rows[cut][:-1]
        return rows

    if qualname.startswith("torch.Tensor."):
        return Call("method", qualname, (T((2,)), nest(s)))
    return _call(qualname, nest(s))


# -- nn.functional ----------------------------------------------------------------------------------------------
def conv(data: st.DataObject, qualname: str) -> Call:
    name = qualname.rsplit(".", 1)[1]
    nd = int(name[-2])
    transposed = "transpose" in name
    n, cin, cout, k = (data.draw(st.integers(1, 3)) for _ in range(4))
    groups = data.draw(st.sampled_from([1, 1, 2]))
    spatial = tuple(data.draw(st.integers(1, 7)) for _ in range(nd))
    x = (n, cin * groups, *spatial) if data.draw(st.integers(0, 5)) else (cin * groups, *spatial)
    if transposed:
        w = (cin * groups, cout, *([k] * nd))
    else:
        w = (cout * groups, cin if data.draw(st.integers(0, 5)) else cin + 1, *([k] * nd))
    kwargs = {
        "stride": data.draw(st.integers(1, 2)),
        "padding": data.draw(st.integers(0, 1)),
        "dilation": data.draw(st.integers(1, 2)),
        "groups": groups,
    }
    if transposed:
        # Empty outputs of transposed convolutions pass or fail depending on torch's kernel: not drawn.
        from hypothesis import assume

        st_, p_, d_ = kwargs["stride"], kwargs["padding"], kwargs["dilation"]
        assume(all((i - 1) * st_ - 2 * p_ + d_ * (k - 1) + 1 > 0 for i in spatial))
    return _call(qualname, T(x), T(w), None, **kwargs)


def pool(data: st.DataObject, qualname: str) -> Call:
    name = qualname.rsplit(".", 1)[1]
    nd = int(name[-2])
    x = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3)), *(data.draw(st.integers(1, 8)) for _ in range(nd)))
    k = data.draw(st.integers(1, 3))
    kwargs: dict[str, Any] = {"stride": data.draw(st.none() | st.integers(1, 2)), "padding": data.draw(st.integers(0, 1))}
    if data.draw(st.booleans()):
        kwargs["ceil_mode"] = True
    return _call(qualname, T(x), k, **kwargs)


def adaptive_pool(data: st.DataObject, qualname: str) -> Call:
    name = qualname.rsplit(".", 1)[1]
    nd = int(name[-2])
    x = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 3)), *(data.draw(st.integers(1, 6)) for _ in range(nd)))
    out = data.draw(st.integers(1, 4))
    return _call(qualname, T(x), out)


def interpolate(data: st.DataObject, qualname: str) -> Call:
    nd = data.draw(st.integers(1, 3))
    x = (1, 2, *(data.draw(st.integers(1, 5)) for _ in range(nd)))
    if data.draw(st.booleans()):
        return _call(qualname, T(x), size=tuple(data.draw(st.integers(1, 6)) for _ in range(nd)))
    return _call(qualname, T(x), scale_factor=data.draw(st.sampled_from([2, 0.5, 3])))


def pad(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3)
    n = data.draw(st.integers(1, len(s))) * 2
    return _call(qualname, T(s), tuple(data.draw(st.integers(-1, 2)) for _ in range(n)))


def embedding(data: st.DataObject, qualname: str) -> Call:
    return _call(qualname, T(shape(data, 0, 3), "int64"), T((data.draw(st.integers(1, 6)), data.draw(st.integers(1, 4)))))


def layer_norm(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3)
    k = data.draw(st.integers(1, len(s)))
    norm = s[-k:] if data.draw(st.integers(0, 4)) else tuple(d + 1 for d in s[-k:])
    if qualname.endswith("rms_norm"):
        return _call(qualname, T(s), norm)
    return _call(qualname, T(s), norm)


def group_norm(data: st.DataObject, qualname: str) -> Call:
    g = data.draw(st.integers(1, 3))
    c = g * data.draw(st.integers(1, 2)) + (0 if data.draw(st.integers(0, 4)) else 1)
    return _call(qualname, T((2, c, 3)), g)


def one_hot(data: st.DataObject, qualname: str) -> Call:
    return _call(qualname, T(shape(data, 0, 2), "int64"), data.draw(st.integers(1, 5)))


def glu(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3, st.integers(1, 4))
    return _call(qualname, T(s), dim(data, len(s)))


def sdpa(data: st.DataObject, qualname: str) -> Call:
    b, h, L, S, e, ev = (data.draw(st.integers(1, 3)) for _ in range(6))
    k_e = e if data.draw(st.integers(0, 4)) else e + 1
    return _call(qualname, T((b, h, L, e)), T((b, h, S, k_e)), T((b, h, S, ev)))


def pointwise_loss(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    other = s if data.draw(st.integers(0, 3)) else broadcast_partner(data, s)
    kwargs: dict[str, Any] = {"reduction": data.draw(st.sampled_from(["mean", "sum", "none"]))}
    if qualname.endswith("gaussian_nll_loss"):
        return _call(qualname, T(s), T(other), T(s), **kwargs)
    return _call(qualname, T(s), T(other), **kwargs)


def class_loss(data: st.DataObject, qualname: str) -> Call:
    n, c = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4))
    extra = tuple(data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(0, 2))))
    target = (n, *extra) if data.draw(st.integers(0, 4)) else (n + 1, *extra)
    red = data.draw(st.sampled_from(["mean", "sum", "none"]))
    return _call(qualname, T((n, c, *extra)), T(target, "int64"), reduction=red)


def batch_norm_f(data: st.DataObject, qualname: str) -> Call:
    c = data.draw(st.integers(1, 3))
    x = (2, c, *shape(data, 0, 2))
    stat = c if data.draw(st.integers(0, 4)) else c + 1
    if qualname.endswith("instance_norm"):
        return _call(qualname, T(x))
    return _call(qualname, T(x), T((stat,)), T((stat,)))


def bilinear(data: st.DataObject, qualname: str) -> Call:
    n, a, b, o = (data.draw(st.integers(1, 3)) for _ in range(4))
    return _call(qualname, T((n, a)), T((n, b)), T((o, a, b if data.draw(st.integers(0, 4)) else b + 1)))


def embedding_bag(data: st.DataObject, qualname: str) -> Call:
    return _call(qualname, T((data.draw(st.integers(1, 3)), 2), "int64"), T((5, data.draw(st.integers(1, 4)))))


FAMILIES: dict[str, Draw] = {
    "pointwise": pointwise,
    "reduce": reduce,
    "same_shape": same_shape,
    "reduce_indices": reduce_indices,
    "sort": sort,
    "topk": topk,
    "view": view,
    "view_as": view_as,
    "flatten": flatten,
    "unflatten": unflatten,
    "squeeze": squeeze,
    "unsqueeze": unsqueeze,
    "permute": permute,
    "transpose": transpose,
    "t": t,
    "matrix_transpose": matrix_transpose,
    "reverse_dims": reverse_dims,
    "expand": expand,
    "repeat": repeat,
    "movedim": movedim,
    "narrow": narrow,
    "diff": diff,
    "split": split,
    "chunk": chunk,
    "unbind": unbind,
    "cat": cat,
    "stack": stack,
    "pad_sequence": pad_sequence,
    "gather": gather,
    "index_select": index_select,
    "masked": masked,
    "getitem": getitem,
    "size": size,
    "shape": no_args,
    "ndim": no_args,
    "numel": no_args,
    "to": to,
    "matmul": matmul,
    "matmul_fixed": matmul_fixed,
    "addmm": addmm,
    "linear": linear,
    "create": create,
    "like": like,
    "arange": arange,
    "linspace": linspace,
    "eye": eye,
    "tensor": tensor,
    "conv": conv,
    "pool": pool,
    "adaptive_pool": adaptive_pool,
    "interpolate": interpolate,
    "pad": pad,
    "embedding": embedding,
    "layer_norm": layer_norm,
    "group_norm": group_norm,
    "one_hot": one_hot,
    "glu": glu,
    "sdpa": sdpa,
    "pointwise_loss": pointwise_loss,
    "class_loss": class_loss,
    "batch_norm_f": batch_norm_f,
    "bilinear": bilinear,
    "embedding_bag": embedding_bag,
}

#: Families whose rule may leave a dim unknown where torch knows it (data-dependent sizes).
PARTIAL_OK: frozenset[str] = frozenset()


def dropout(data: st.DataObject, qualname: str) -> Call:
    return _call(qualname, T(shape(data, 0, 5)), 0.5, True)


def prelu(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 4)
    c = s[1] if len(s) > 1 else 1
    weight = data.draw(st.sampled_from([1, c, c + 1]), label="weight")
    return _call(qualname, T(s), T((weight,)))


def renorm(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 1, 3)
    return _call(qualname, T(s), 2.0, dim(data, len(s)), 1.0)


def grad_norm(data: st.DataObject, qualname: str) -> Call:
    """``clip_grad_norm_(parameters, max_norm)`` / ``get_total_norm(tensors)``: tensors of any shapes
    (none too): the norm over all of them is one 0-d tensor."""
    parts = [T(shape(data, 0, 3)) for _ in range(data.draw(st.integers(0, 3)))]
    if qualname.endswith("clip_grad_norm_"):
        return _call(qualname, parts, 1.0)
    return _call(qualname, parts)


def _lengths(data: st.DataObject, batch: int, longest: int) -> list[int]:
    """Sequence lengths, mostly valid (1 to ``longest``, decreasing), sometimes unsorted or with a 0."""
    lengths = sorted((data.draw(st.integers(1, longest)) for _ in range(batch)), reverse=True)
    kind = data.draw(st.sampled_from(["sorted", "sorted", "shuffled", "zero"]), label="lengths")
    if kind == "shuffled":
        lengths = data.draw(st.permutations(lengths))
    elif kind == "zero" and lengths:
        lengths[-1] = 0
    return lengths


def pack_padded_sequence(data: st.DataObject, qualname: str) -> Call:
    """A padded batch of 1-2 dims of features, its lengths usually one per sequence."""
    batch_first = data.draw(st.booleans())
    batch, longest = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4))
    lead = (batch, longest) if batch_first else (longest, batch)
    x = T((*lead, *shape(data, 0, 2, st.integers(1, 3))))
    count = batch if data.draw(st.integers(0, 3)) else data.draw(st.integers(1, 4))
    kwargs: dict[str, Any] = {"batch_first": batch_first, "enforce_sorted": data.draw(st.booleans())}
    return _call(qualname, x, _lengths(data, count, longest), **kwargs)


def pack_sequence(data: st.DataObject, qualname: str) -> Call:
    """0-3 sequences of lengths 1-4 sharing trailing dims (sometimes not), in any order."""
    trailing = shape(data, 0, 2, st.integers(1, 3))
    parts = []
    for _ in range(data.draw(st.integers(0, 3))):
        rest = trailing if data.draw(st.integers(0, 3)) else shape(data, 0, 2, st.integers(1, 3))
        parts.append(T((data.draw(st.integers(1, 4)), *rest)))
    return _call(qualname, parts, enforce_sorted=data.draw(st.booleans()))


def pad_packed_sequence(data: st.DataObject, qualname: str) -> Call:
    """A packed batch, padded with or without ``batch_first`` and a ``total_length`` (sometimes short)."""
    lengths = sorted((data.draw(st.integers(1, 4)) for _ in range(data.draw(st.integers(1, 3)))), reverse=True)
    packed = P(tuple(lengths), shape(data, 0, 2, st.integers(1, 3)))
    kwargs: dict[str, Any] = {"batch_first": data.draw(st.booleans())}
    if data.draw(st.booleans()):
        kwargs["total_length"] = data.draw(st.integers(1, 6))
    return _call(qualname, packed, **kwargs)


FAMILIES["pack_padded_sequence"] = pack_padded_sequence
FAMILIES["pack_sequence"] = pack_sequence
FAMILIES["pad_packed_sequence"] = pad_packed_sequence
FAMILIES["grad_norm"] = grad_norm
FAMILIES["dropout"] = dropout
FAMILIES["prelu"] = prelu
FAMILIES["renorm"] = renorm

#: Ops whose arguments need a family other than their rule's.
OVERRIDE = {
    "torch.nn.utils.clip_grad_norm_": "grad_norm",
    "torch.nn.utils.get_total_norm": "grad_norm",
    "torch.dropout": "dropout",
    "torch.nn.functional.prelu": "prelu",
    "torch.renorm": "renorm",
    "torch.nn.functional.dropout1d": "dropout",
    "torch.nn.functional.dropout2d": "dropout",
    "torch.nn.functional.dropout3d": "dropout",
}


def family_of(qualname: str) -> str | None:
    if qualname in OVERRIDE:
        return OVERRIDE[qualname]
    defs = load_table().lookup(qualname)
    if not defs:
        return None
    op = defs[0]
    if "pointwise" in op.kinds and op.rule is None:
        return "pointwise"
    if op.rule in FAMILIES:
        return op.rule
    if op.rule is None and any(p.spec is not None for p in op.params):
        return "declarative"
    return None


#: Ops no differential case covers, and why.
EXCLUDED: dict[str, str] = {}


# -- declarative signatures: shapes drawn from the spec itself ------------------------------------------------
def _spec_shape(data: st.DataObject, spec: Any, sizes: dict[str, int]) -> tuple[int, ...]:
    """A shape for ``spec``: named dims mostly reuse their bound size, variadics get 0-2 dims."""
    from tensorshape.model.spec import DimKind

    out: list[int] = []
    for d in spec.dims:
        if d.kind in (DimKind.VARIADIC, DimKind.ANON_VARIADIC):
            key = "*" + (d.name or "")
            if key not in sizes or not d.name:
                run = tuple(data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(0, 2))))
                if d.name:
                    sizes[key] = run  # type: ignore[assignment]
            else:
                run = sizes[key]  # type: ignore[assignment]
                if d.broadcastable and data.draw(st.booleans()):
                    run = tuple(1 if data.draw(st.booleans()) else x for x in run)
            out.extend(run)
        elif d.kind is DimKind.FIXED:
            out.append(d.size if data.draw(st.integers(0, 6)) else d.size + 1)
        elif d.kind is DimKind.NAMED and d.name in sizes and data.draw(st.integers(0, 6)):
            out.append(sizes[d.name])
        else:
            v = data.draw(st.integers(1, 4))
            if d.kind is DimKind.NAMED and d.name is not None:
                sizes.setdefault(d.name, v)
            out.append(v)
    return tuple(out)


def declarative(data: st.DataObject, qualname: str) -> Call:
    op = load_table().lookup(qualname)[0]
    sizes: dict[str, int] = {}
    args: list[Any] = []
    for p in op.params:
        if p.spec is not None:
            if p.kind.name == "KEYWORD_ONLY":
                continue
            if p.default is not None and data.draw(st.booleans()):
                continue
            if p.spec.dims and all(d.kind.name == "EXPR" or d.kind.name == "NAMED" for d in p.spec.dims) and any(
                d.kind.name == "EXPR" for d in p.spec.dims
            ):
                raise _Skip  # expression specs need their ints: see the dedicated families
            args.append(T(_spec_shape(data, p.spec, sizes)))
        elif p.default is None and p.kind.name in ("POSITIONAL", "POSITIONAL_ONLY"):
            if p.type == "int":
                args.append(data.draw(st.integers(1, 4)))
            else:
                raise _Skip
    return _call(qualname, *args)


def pixel_shuffle(data: st.DataObject, qualname: str) -> Call:
    r = data.draw(st.integers(1, 3))
    if qualname.endswith("unshuffle"):
        h = r * data.draw(st.integers(1, 2)) + (0 if data.draw(st.integers(0, 4)) else 1)
        return _call(qualname, T((1, 2, h, 2 * r)), r)
    c = data.draw(st.integers(1, 2)) * r * r + (0 if data.draw(st.integers(0, 4)) else 1)
    return _call(qualname, T((1, c, 2, 3)), r)


def scatter(data: st.DataObject, qualname: str) -> Call:
    name = qualname.rsplit(".", 1)[1]
    s = shape(data, 1, 3)
    i = dim(data, len(s))
    if name in ("index_add", "index_copy", "index_fill"):
        n = data.draw(st.integers(1, 3))
        src = list(s)
        if -len(s) <= i < len(s):
            src[i] = n
        idx = T((n,), "int64")
        if name == "index_fill":
            return _call(qualname, T(s), i, idx, 0.0)
        return _call(qualname, T(s), i, idx, T(tuple(src) if data.draw(st.integers(0, 4)) else shape(data, 1, 3)))
    if name == "index_put":
        raise _Skip
    idx = tuple(data.draw(st.integers(1, d)) for d in s)
    if name == "scatter_reduce":
        return _call(qualname, T(s), i, T(idx, "int64"), T(s), "sum")
    return _call(qualname, T(s), i, T(idx, "int64"), T(s))


def data_dependent(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    if qualname.endswith("masked_select"):
        return _call(qualname, T(s), T(broadcast_partner(data, s), "bool"))
    if qualname.endswith("bincount"):
        n = data.draw(st.integers(0, 4))
        x = (n,) if data.draw(st.integers(0, 4)) else shape(data, 0, 3)
        if data.draw(st.booleans()):
            return _call(qualname, T(x, "int64"), T(data.draw(st.sampled_from([(n,), (n + 1,), (n, 1)]))))
        return _call(qualname, T(x, "int64"))
    return _call(qualname, T(s))


def randperm(data: st.DataObject, qualname: str) -> Call:
    return _call(qualname, data.draw(st.integers(0, 6)))


def tensor_property(data: st.DataObject, qualname: str) -> Call:
    name = qualname.rsplit(".", 1)[1]
    if name in ("grad", "item", "tolist"):
        raise _Skip
    dtype = "complex64" if name in ("imag", "real") else "float32"
    return Call("method", qualname, (T(shape(data, 0, 3), dtype),))


def take(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    if qualname.endswith("take_along_dim"):
        idx = tuple(x if data.draw(st.integers(0, 3)) else data.draw(st.integers(1, 3)) for x in s)
        if data.draw(st.booleans()):
            return _call(qualname, T(s), T(idx, "int64"))
        return _call(qualname, T(s), T(idx, "int64"), dim(data, len(s)))
    return _call(qualname, T(s), T(shape(data, 0, 3), "int64"))


def pair(data: st.DataObject, qualname: str) -> Call:
    name = qualname.rsplit(".", 1)[1]
    side = st.integers(1, 4) if name != "cross" else st.sampled_from([1, 2, 3, 3])
    a = shape(data, 0, 3, side)
    b = broadcast_partner(data, a)
    if name == "inner":
        b = (*shape(data, 0, 2), a[-1] if a and data.draw(st.integers(0, 3)) else data.draw(st.integers(1, 3)))
        if data.draw(st.integers(0, 5)) == 0:
            b = ()
        return _call(qualname, T(a), T(b))
    if data.draw(st.booleans(), label="dim"):
        return _call(qualname, T(a), T(b), dim(data, max(len(a), len(b))))
    return _call(qualname, T(a), T(b))


def einsum(data: st.DataObject, qualname: str) -> Call:
    sizes = {c: data.draw(st.integers(1, 4)) for c in "abcde"}
    n_ops = data.draw(st.integers(1, 3))
    ell = data.draw(st.booleans(), label="ellipsis")
    batch = shape(data, 0, 2)
    terms, tensors = [], []
    for _ in range(n_ops):
        labels = data.draw(st.lists(st.sampled_from("abcde"), min_size=0, max_size=3))
        dims = [sizes[c] if data.draw(st.integers(0, 6)) else data.draw(st.integers(1, 4)) for c in labels]
        term = "".join(labels)
        if ell and data.draw(st.booleans()):
            term = "..." + term
            dims = list(batch[len(batch) - data.draw(st.integers(0, len(batch))) :]) + dims
        terms.append(term)
        tensors.append(T(tuple(dims)))
    eq = ",".join(terms)
    if data.draw(st.booleans(), label="explicit"):
        used = sorted({c for t in terms for c in t if c.isalpha()})
        out = data.draw(st.permutations(used))[: data.draw(st.integers(0, len(used)))]
        if data.draw(st.integers(0, 8)) == 0:
            out = [*out, "e" if "e" not in used else "a"]
        eq += "->" + ("..." if ell and data.draw(st.booleans()) else "") + "".join(out)
    if data.draw(st.integers(0, 5)) == 0:
        return _call(qualname, eq, list(tensors))
    return _call(qualname, eq, *tensors)


def _einops_case(data: st.DataObject) -> tuple[tuple[int, ...], str, str, dict[str, int]]:
    """An input shape and a pattern: axes with sizes, some grouped, some sizes given as keywords."""
    sizes = {a: data.draw(st.integers(1, 4)) for a in "abcdef"}
    names = data.draw(st.lists(st.sampled_from("abcdef"), min_size=1, max_size=5, unique=True))
    groups: list[list[str]] = []
    for n in names:
        if groups and data.draw(st.integers(0, 2)) == 0:
            groups[-1].append(n)
        else:
            groups.append([n])
    shape_ = tuple(
        int(__import__("math").prod(sizes[a] for a in g)) if data.draw(st.integers(0, 8)) else data.draw(st.integers(1, 9))
        for g in groups
    )
    left = " ".join(f"({' '.join(g)})" if len(g) > 1 else g[0] for g in groups)
    kw = {a: sizes[a] for g in groups if len(g) > 1 for a in g[1:] if data.draw(st.integers(0, 5))}
    order = data.draw(st.permutations(names))
    return shape_, left, " ".join(order), kw


def einops_rearrange(data: st.DataObject, qualname: str) -> Call:
    shape_, left, order, kw = _einops_case(data)
    right = order.split()
    if len(right) > 1 and data.draw(st.booleans()):
        right = [f"({right[0]} {right[1]})", *right[2:]]
    return _call(qualname, T(shape_), f"{left} -> {' '.join(right)}", **kw)


def einops_reduce(data: st.DataObject, qualname: str) -> Call:
    shape_, left, order, kw = _einops_case(data)
    keep = order.split()[: data.draw(st.integers(0, len(order.split())))]
    return _call(qualname, T(shape_), f"{left} -> {' '.join(keep)}", "sum", **kw)


def einops_repeat(data: st.DataObject, qualname: str) -> Call:
    shape_, left, order, kw = _einops_case(data)
    new = "z" if data.draw(st.booleans()) else "(z y)"
    if data.draw(st.integers(0, 5)):
        kw = {**kw, "z": data.draw(st.integers(1, 3)), "y": 2}
    right = f"{order} {new}" if "(" not in new else f"{new} {order}"
    return _call(qualname, T(shape_), f"{left} -> {right}", **kw)


def einops_pack(data: st.DataObject, qualname: str) -> Call:
    b = data.draw(st.integers(1, 3))
    ts = [T((b if data.draw(st.integers(0, 6)) else b + 1, *shape(data, 0, 2))) for _ in range(data.draw(st.integers(1, 3)))]
    return _call(qualname, ts, "b *")


def einops_einsum(data: st.DataObject, qualname: str) -> Call:
    i, j, k = (data.draw(st.integers(1, 4)) for _ in range(3))
    j2 = j if data.draw(st.integers(0, 4)) else j + 1
    return _call(qualname, T((i, j)), T((j2, k)), "row inner, inner col -> row col")


# -- issue 15: initialisers, eager predicates, value kinds, copy_, unique, repeat_interleave ------------------
def init(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 6, st.integers(0, 3))
    name = qualname.rsplit(".", 1)[1]
    if name == "constant_":
        return _call(qualname, T(s), 0.5)
    if name == "sparse_":
        return _call(qualname, T(s), 0.5)
    if name == "dirac_" and data.draw(st.booleans(), label="groups"):
        return _call(qualname, T(s), data.draw(st.integers(1, 3)))
    return _call(qualname, T(s))


def no_tensor(data: st.DataObject, qualname: str) -> Call:
    """Calls without tensor arguments: their value (a bool, ``None``, a 0-d tensor) is compared."""
    name = qualname.rsplit(".", 1)[1]
    if name == "_log_api_usage_once":
        return _call(qualname, "python.nn_module")
    if name == "scalar_tensor":
        return _call(qualname, data.draw(st.sampled_from([0, 2, 1.5])))
    return _call(qualname)


def value_kind(data: st.DataObject, qualname: str) -> Call:
    v = data.draw(st.sampled_from(["tensor", "int", "float", "none", "list", "str"]))
    arg = {"tensor": T(shape(data, 0, 2)), "int": 3, "float": 0.5, "none": None, "list": [1, 2], "str": "x"}[v]
    return _call(qualname, arg)


def dtype_is(data: st.DataObject, qualname: str) -> Call:
    dtype = data.draw(st.sampled_from(["float32", "int64", "bool", "complex64"]))
    return _call(qualname, T(shape(data, 0, 2), dtype))


def view_as_real(data: st.DataObject, qualname: str) -> Call:
    dtype = "complex64" if data.draw(st.integers(0, 4)) else "float32"
    return _call(qualname, T(shape(data, 0, 3), dtype))


def copy_into(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    return _call(qualname, T(s), T(broadcast_partner(data, s)))


def unique(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    kwargs: dict[str, Any] = {}
    if data.draw(st.booleans(), label="dim"):
        kwargs["dim"] = dim(data, len(s))
    for flag in ("return_inverse", "return_counts"):
        if data.draw(st.booleans(), label=flag):
            kwargs[flag] = True
    return _call(qualname, T(s), **kwargs)


def repeat_interleave(data: st.DataObject, qualname: str) -> Call:
    s = shape(data, 0, 3)
    if qualname == "torch.repeat_interleave" and data.draw(st.integers(0, 4)) == 0:
        return _call(qualname, T(shape(data, 0, 2), "int64"))  # the one-argument form
    kwargs: dict[str, Any] = {}
    if data.draw(st.booleans(), label="dim"):
        kwargs["dim"] = dim(data, len(s))
    form = data.draw(st.sampled_from(["int", "int", "tensor"]), label="repeats")
    if form == "int":
        repeats: Any = data.draw(st.integers(-1, 3))
    else:
        repeats = T(data.draw(st.sampled_from([(), (1,), (2,), (3,), (1, 2)])), "int64")
    return _call(qualname, T(s), repeats, **kwargs)


def fan_in_and_fan_out(data: st.DataObject, qualname: str) -> Call:
    return _call(qualname, T(shape(data, 0, 5, st.integers(0, 4))))


def bucketize(data: st.DataObject, qualname: str) -> Call:
    x: Any = data.draw(st.sampled_from([0.5, 2])) if data.draw(st.integers(0, 4)) == 0 else T(shape(data, 0, 3))
    b = T(data.draw(st.sampled_from([(3,), (1,), (0,), (), (2, 2)])))
    kwargs = {"out_int32": True} if data.draw(st.booleans(), label="out_int32") else {}
    return _call(qualname, x, b, **kwargs)


def foreach(data: st.DataObject, qualname: str) -> Call:
    """A list of 0-3 tensors and operands of each kind the op takes: numbers, lists of numbers, 0-d
    tensors, lists of tensors (usually as long and broadcasting, sometimes not)."""
    name = qualname.rsplit(".", 1)[1].removeprefix("_foreach_")
    base = name.rstrip("_")
    shapes = [shape(data, 0, 3) for _ in range(data.draw(st.integers(0, 3), label="length"))]
    xs = [T(s) for s in shapes]

    def tensors() -> list[T]:
        n = len(shapes) if data.draw(st.integers(0, 6)) else data.draw(st.integers(0, 3))
        out = []
        for i in range(n):
            s = shapes[i] if i < len(shapes) else shape(data, 0, 2)
            out.append(T(s if data.draw(st.integers(0, 2)) else broadcast_partner(data, s)))
        return out

    def operand(tensor_ok: bool) -> Any:
        kind = data.draw(st.sampled_from(["number", "numbers", "tensor", "tensors", "tensors"]), label="operand")
        if kind == "number" or (kind == "tensor" and not tensor_ok):
            return 0.5
        if kind == "numbers":
            return [0.5] * (len(shapes) if data.draw(st.integers(0, 4)) else len(shapes) + 1)
        if kind == "tensor":
            return T(() if data.draw(st.integers(0, 3)) else (2,))
        return tensors()

    if base in _FOREACH_UNARY:
        return _call(qualname, xs)
    if base in ("addcdiv", "addcmul"):
        value = operand(False)
        if isinstance(value, list) and value and isinstance(value[0], T):
            value = T((len(shapes) if data.draw(st.integers(0, 3)) else len(shapes) + 1,))
        return _call(qualname, xs, tensors(), tensors(), value)
    if base == "lerp":
        return _call(qualname, xs, tensors(), operand(True))
    if base == "copy":
        return _call(qualname, xs, tensors())
    if base == "norm":
        return _call(qualname, xs, *([data.draw(st.sampled_from([1, 2]))] if data.draw(st.booleans()) else []))
    other = operand(base in ("mul", "div", "maximum", "minimum", "pow", "add", "sub"))
    if base in ("add", "sub") and isinstance(other, list) and other and isinstance(other[0], T):
        if data.draw(st.booleans(), label="alpha"):
            return _call(qualname, xs, other, alpha=2)
    return _call(qualname, xs, other)


_FOREACH_UNARY = frozenset({"sqrt", "exp", "log", "abs", "neg", "reciprocal", "sign", "zero"})


FAMILIES.update(
    {
        "init": init,
        "eager_constant": no_tensor,
        "is_tensor": value_kind,
        "dtype_is": dtype_is,
        "view_as_real": view_as_real,
        "copy_into": copy_into,
        "unique": unique,
        "repeat_interleave": repeat_interleave,
        "fan_in_and_fan_out": fan_in_and_fan_out,
        "bucketize": bucketize,
        "foreach": foreach,
    }
)
OVERRIDE.update(
    {
        "torch._C._log_api_usage_once": "eager_constant",
        "torch._C._get_tracing_state": "eager_constant",
        "torch.scalar_tensor": "eager_constant",
    }
)
PARTIAL_OK = PARTIAL_OK | {"unique", "repeat_interleave"}


FAMILIES.update(
    {
        "einops_rearrange": einops_rearrange,
        "einops_reduce": einops_reduce,
        "einops_repeat": einops_repeat,
        "einops_pack": einops_pack,
        "einops_einsum": einops_einsum,
        "einsum": einsum,
        "cross": pair,
        "inner": pair,
        "cosine_similarity": pair,
        "declarative": declarative,
        "pixel_shuffle": pixel_shuffle,
        "scatter": scatter,
        "data_dependent": data_dependent,
        "randperm": randperm,
        "tensor_property": tensor_property,
        "take": take,
    }
)
OVERRIDE.update(
    {
        "torch.nn.functional.pixel_shuffle": "pixel_shuffle",
        "torch.nn.functional.pixel_unshuffle": "pixel_shuffle",
        "torch.masked_select": "data_dependent",
        "torch.nonzero": "data_dependent",
        "torch.bincount": "data_dependent",
        "torch.randperm": "randperm",
        "torch.take": "take",
        "torch.take_along_dim": "take",
        **{f"torch.Tensor.{n}": "tensor_property" for n in ("data", "dtype", "imag", "real")},
    }
)
PARTIAL_OK = PARTIAL_OK | {"data_dependent"}
#: Ops (by qualname) whose family may leave dims unknown.
PARTIAL_OK_OPS = frozenset(q for q, f in OVERRIDE.items() if f in PARTIAL_OK)

#: Ops no differential case covers, and why.
EXCLUDED.update(
    {
        "torch.Tensor.grad": "None until a backward pass: no shape rule to compare",
        "torch.Tensor.item": "returns a Python number, not a tensor",
        "torch.Tensor.tolist": "returns Python lists, not a tensor",
        "torch.Tensor.int_repr": "needs a quantized tensor (torch raises NotImplementedError for the harness's "
        "float tensors): its shape rule is the declared `*s -> *s`",
        "torch.get_default_dtype": "the process's default dtype, which torch.set_default_dtype changes at run time: "
        "the rule returns a dtype of unknown name (tests/infer/test_eager_ops.py)",
        "torch.index_put": "takes a tuple of index tensors (advanced indexing): covered by __getitem__'s cases",
        "torch.broadcast_tensors": "variadic tensors returned as a tuple: covered by the broadcasting families",
        "torch.meshgrid": "variadic tensors returned as a tuple: compared with torch in tests/infer/test_reach_exact.py",
        "functorch.dim.dims": "makes dim objects, not tensors: compared with torch in tests/infer/test_first_class_dims.py",
        "torch.utils.data.random_split": "makes datasets, not tensors: compared with torch in "
        "tests/infer/test_data_pipelines.py",
        "torch.multinomial": "samples from a distribution, and the harness's all-zero inputs are no distribution "
        "(torch refuses them before any shape check): its three shape checks are compared with torch in "
        "tests/differential/checks.py and its result shapes in tests/infer/test_data_pipelines.py",
        **{
            q: "jagged (ragged) dims are symbols, not sizes: compared with torch in tests/infer/test_jagged.py"
            for q in (
                "torch.nested.nested_tensor",
                "torch.nested.as_nested_tensor",
                "torch.nested.nested_tensor_from_jagged",
                "torch.nested.to_padded_tensor",
                "torch.Tensor.values",
                "torch.Tensor.offsets",
                "torch.Tensor.to_padded_tensor",
            )
        },
        **{
            f"torch.ops.fbgemm.{n}": "fbgemm-gpu-cpu 1.9.0 does not load with torch 2.13 (undefined symbol): "
            "compared with a torch reference implementation in tests/infer/test_fbgemm.py"
            for n in (
                "jagged_to_padded_dense",
                "jagged_2d_to_dense",
                "jagged_1d_to_dense",
                "dense_to_jagged",
                "jagged_dense_elementwise_add",
                "jagged_dense_elementwise_mul",
                "jagged_dense_elementwise_add_jagged_output",
                "jagged_dense_dense_elementwise_add_jagged_output",
                "stacked_jagged_2d_to_dense",
                "stacked_jagged_1d_to_dense",
                "jagged_jagged_bmm",
                "jagged_dense_bmm",
                "jagged_softmax",
            )
        },
        **{
            f"torch.Tensor.{n}": "named tensors: gone from torch 2.13 (the rule warns removed-api)"
            for n in ("refine_names", "align_to", "align_as", "rename", "rename_", "names")
        },
    }
)


def kron(data: st.DataObject, qualname: str) -> Call:
    """Any two ranks (torch pads the shorter with leading 1s)."""
    return _call(qualname, T(shape(data, 0, 3)), T(shape(data, 0, 3)))


FAMILIES["kron"] = kron
