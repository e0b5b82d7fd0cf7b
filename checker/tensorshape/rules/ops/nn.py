"""``torch.nn`` modules and ``torch.nn.functional``: conv and pooling arithmetic,
norms, embeddings, recurrent layers, attention, losses, containers."""

from __future__ import annotations

from collections.abc import Sequence

from ...lang.render import render_dim, render_shape
from ...model import codes
from ...model.constraints import Rel
from ...model.dims import Dim, Star, Unknown, UnknownSource
from ...model.shape import Item, Shape
from ...model.text import plural
from ...model.values import (
    NONE,
    DictV,
    IntV,
    ModuleV,
    PackedV,
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
from ..call import Call, as_dim, as_dims
from ..context import Arg
from ..registry import rule
from .util import (
    replace,
    run_exact_rank,
    run_fails_for_every_rank,
    run_fixed,
    run_rank_among,
    run_rank_at_least,
    spec_text,
    wrap_dim,
)

_ERR = unknown_tensor(UnknownSource.ERROR)


def _tuple(call: Call, name: str, n: int, default: int) -> tuple[Dim, ...] | None:
    """An int-or-tuple conv parameter, expanded to ``n`` values."""
    if not call.has(name) or call.is_none(name):
        return (default,) * n
    v = as_dims(call.value(name))
    if v is None:
        return None
    if len(v) == 1:
        return v * n
    if len(v) != n:
        call.error(codes.INVALID_ARG, f"`{name}` needs {plural(n, 'value')}, got {len(v)}", name)
        return None
    return v


def _spatial(call: Call, input_name: str, n: int) -> tuple[Shape, bool, tuple[Item, ...]] | None:
    """The input shape, whether it is batched (``N C *spatial`` vs ``C *spatial``), and a named run
    of leading dims set aside (``*batch C *spatial``, as a parameter learns it: a batch dim or none;
    the rest is handled as an unbatched input, and the run leads the result)."""
    s = call.shape(input_name)
    if s is None:
        return None
    if s.star_index == 0 and len(s.items) == n + 2 and isinstance(s.items[0], Star) and s.items[0].name:
        return Shape(s.items[1:]), False, s.items[:1]
    if s.rank is None:
        if run_fails_for_every_rank(call, input_name, (n + 1, n + 2)) or not run_rank_among(
            call, s, (n + 1, n + 2), f"a {n}-d layer", input_name
        ):
            return None
        fixed = run_fixed(s, (n + 1, n + 2), call)
        if fixed is None:
            return s, True, ()
        s = fixed  # one rank is left: torch raises for every other length of the run
    if s.rank not in (n + 1, n + 2):
        call.error(
            codes.RANK_MISMATCH,
            f"expected a {n + 1}-D (unbatched) or {n + 2}-D (batched) input, got {render_shape(s)}",
            input_name,
            f"a {n}-d layer takes [N C{' L' if n == 1 else ' H W' if n == 2 else ' D H W'}]",
        )
        return None
    return s, s.rank == n + 2, ()


def _conv_out(size: Dim, k: Dim, s: Dim, p: Dim, d: Dim) -> Dim:
    # floor((size + 2p - d(k-1) - 1) / s) + 1
    num = arith.sub(arith.sub(arith.add(size, arith.mul(2, p)), arith.mul(d, arith.sub(k, 1))), 1)
    return arith.add(arith.floordiv(num, s), 1)


def _convt_out(size: Dim, k: Dim, s: Dim, p: Dim, d: Dim, op: Dim) -> Dim:
    # (size-1)*s - 2p + d(k-1) + op + 1
    return arith.add(
        arith.add(arith.sub(arith.mul(arith.sub(size, 1), s), arith.mul(2, p)), arith.mul(d, arith.sub(k, 1))),
        arith.add(op, 1),
    )


def _check_positive_out(
    call: Call, outs: Sequence[Dim], shape: Shape, at: str, what: str, allow_zero: bool = False
) -> bool:
    for o in outs:
        if type(o) is int and (o < 0 if allow_zero else o <= 0):
            call.error(
                codes.INVALID_ARG,
                f"{what} output size would be {o} for input {render_shape(shape)}: the input is smaller than the kernel",
                at,
                "use a larger input, a smaller kernel, or more padding",
            )
            return False
    return True


def _conv_args(
    call: Call,
    n: int,
    transposed: bool,
    same: bool,
    stride: tuple[Dim, ...],
    padding: tuple[Dim, ...],
    dilation: tuple[Dim, ...],
    groups: Dim | None,
    module: bool,
) -> bool:
    """The argument checks of torch's convolution (aten ``check_shape_forward``), beyond the channels."""
    for name, vals, least in (("stride", stride, 1), ("dilation", dilation, 1), ("padding", padding, 0)):
        if any(type(v) is int and v < least for v in vals):
            what = "negative padding" if name == "padding" else f"non-positive {name}"
            call.error(codes.INVALID_ARG, f"{what} is not supported, got {name}={tuple(vals)}", name)
            return False
    if same and any(type(v) is int and v != 1 for v in stride):
        call.error(
            codes.INVALID_ARG,
            "padding='same' is not supported for strided convolutions",
            "padding",
            "use stride=1, or compute the padding: (kernel_size - 1) // 2 for odd kernels",
        )
        return False
    if transposed:
        op = _tuple(call, "output_padding", n, 0) or (0,) * n
        for o, s_, d in zip(op, stride, dilation):
            if type(o) is int and type(s_) is int and type(d) is int and o >= s_ and o >= d:
                call.error(
                    codes.INVALID_ARG,
                    f"output padding must be smaller than either stride or dilation, got output_padding={tuple(op)}, "
                    f"stride={tuple(stride)}, dilation={tuple(dilation)}",
                    "output_padding" if call.has("output_padding") else None,
                )
                return False
    if module:
        return True
    w = call.shape("weight")
    if w is None or w.rank is None:
        return True
    # weight [out, in/groups, *k] (conv) or [in, out/groups, *k] (transposed): dim 0 splits into the groups.
    if groups is not None and type(groups) is int and groups > 0 and call.facts.divisible(w.dims[0], groups) is False:
        call.error(
            codes.SHAPE_MISMATCH,
            f"weight {render_shape(w)} dim 0 ({render_dim(w.dims[0])}) must be divisible by groups={groups}",
            "weight",
        )
        return False
    if call.has("bias") and not call.is_none("bias"):
        b = call.shape("bias")
        c_out = arith.mul(w.dims[1], groups) if transposed and groups is not None else w.dims[0]
        if b is not None and b.rank is not None:
            if b.rank != 1:
                call.error(
                    codes.RANK_MISMATCH,
                    f"bias must be 1-D with {render_dim(c_out)} elements, got {render_shape(b)}",
                    "bias",
                )
                return False
            v = call.check(
                eq3(b.dims[0], c_out, call.facts),
                (b.dims[0], c_out),
                f"bias {render_shape(b)} must have {render_dim(c_out)} elements (the output channels of weight {render_shape(w)})",
                at="bias",
                rel=Rel.EQ,
            )
            if v is Verdict.ERROR:
                return False
    return True


def _requested_size(
    call: Call,
    n: int,
    batched: bool,
    shape: Shape,
    spatial: Sequence[Dim],
    k: Sequence[Dim],
    stride: Sequence[Dim],
    padding: Sequence[Dim],
    dilation: Sequence[Dim],
) -> Sequence[Dim] | None:
    """ConvTranspose*d(x, output_size=...): the spatial sizes asked for (the whole shape may be given),
    each between the smallest output and that plus stride - 1."""
    asked = call.ints("output_size")
    if asked is None:
        return [Unknown() for _ in range(n)]
    lead = 2 if batched else 1
    if len(asked) == lead + n:
        asked = asked[lead:]
    if len(asked) != n:
        call.error(
            codes.INVALID_ARG,
            f"for a {shape.rank}-D input, output_size must have {n} or {lead + n} elements, got {len(asked)}",
            "output_size",
        )
        return None
    for a, sz, kk, st, pp, dd in zip(asked, spatial, k, stride, padding, dilation):
        low = _convt_out(sz, kk, st, pp, dd, 0)
        high = arith.add(low, arith.sub(st, 1))
        if type(a) is int and type(low) is int and type(high) is int and not low <= a <= high:
            call.error(
                codes.INVALID_ARG,
                f"requested an output size of {tuple(asked)}, but the valid sizes of this dim range from {low} "
                f"to {high} for input {render_shape(shape)}",
                "output_size",
            )
            return None
    return asked


def _mode_padding_fits(call: Call, spatial: Sequence[Dim], padding: Sequence[Dim], shape: Shape) -> bool:
    """``padding_mode="reflect"``/``"circular"``: torch pads with F.pad first, which needs padding < the dim
    (reflect) or <= the dim (circular)."""
    mode = call.str("padding_mode")
    for size, p in zip(spatial, padding):
        if type(size) is int and type(p) is int:
            bad = p >= size if mode == "reflect" else p > size if mode == "circular" else False
            if bad:
                call.error(
                    codes.INVALID_ARG,
                    f"padding {p} with padding_mode={mode!r} must be {'less than' if mode == 'reflect' else 'at most'} "
                    f"the input's spatial size, got {render_shape(shape)}",
                    "input",
                )
                return False
    return True


@rule("conv")
def conv(call: Call) -> Value:
    """F.conv{1,2,3}d / F.conv_transpose{1,2,3}d and nn.Conv*/ConvTranspose* modules."""
    n = call.params["nd"]
    transposed = call.params.get("transposed", False)
    got = _spatial(call, "input", n)
    if got is None:
        return _ERR
    shape, batched, run = got
    module = call.module is not None
    groups = call.int("groups") if call.has("groups") else 1
    if module:
        cin, cout = call.int("in_channels"), call.int("out_channels")
        k = _tuple(call, "kernel_size", n, 1)
    else:
        w = call.shape("weight")
        if w is None or w.rank is None:
            return TensorV(Shape.unknown())
        if w.rank != n + 2:
            call.error(codes.RANK_MISMATCH, f"weight must have {plural(n + 2, 'dim')}, got {render_shape(w)}", "weight")
            return _ERR
        if transposed:
            cin, cout = w.dims[0], arith.mul(w.dims[1], groups or 1)
        else:
            cout, cin = w.dims[0], arith.mul(w.dims[1], groups or 1)
        k = tuple(w.dims[2:])
    stride = _tuple(call, "stride", n, 1)
    dilation = _tuple(call, "dilation", n, 1)
    if cin is None or k is None or stride is None or dilation is None:
        return TensorV(Shape.unknown())
    pad_v = call.value("padding") if call.has("padding") else IntV(0)
    same = isinstance(pad_v, StrV) and pad_v.value == "same"
    valid = isinstance(pad_v, StrV) and pad_v.value == "valid"
    padding = (0,) * n if valid or same else _tuple(call, "padding", n, 0)
    if padding is None:
        return TensorV(Shape.unknown())
    if not _conv_args(call, n, transposed, same, stride, padding, dilation, groups, module):
        return _ERR
    if shape.rank is None:
        return TensorV(Shape.unknown(), (call.tensor("input") or unknown_tensor()).dtype)
    c_axis = 1 if batched else 0
    c = shape.dims[c_axis]
    in_label = "in_channels" if module else "weight"
    # With a leading run set aside, the channel dim is counted from the end.
    c_at = c_axis - len(shape.items) if run else c_axis
    v = call.check(
        eq3(c, cin, call.facts),
        (c, cin),
        f"expected input with {plural(render_dim(cin), 'channel')}, got {render_shape(Shape(run + shape.items))} ({plural(render_dim(c), 'channel')} at dim {c_at})",
        rel=Rel.EQ,
        at="input",
        hint=f"the channel dim ({c_at}) must equal {in_label}; check the previous layer's out_channels",
        checks=[("input", spec_text(run + shape.items[:c_axis] + (cin,) + shape.items[c_axis + 1 :]))],
    )
    if v is Verdict.ERROR:
        return _ERR
    spatial = shape.dims[c_axis + 1 :]
    if transposed and module and call.has("output_size") and not call.is_none("output_size"):
        asked = _requested_size(call, n, batched, shape, spatial, k, stride, padding, dilation)
        if asked is None:
            return _ERR
        outs = list(asked)
    elif transposed:
        op = _tuple(call, "output_padding", n, 0) or (0,) * n
        outs = [
            _convt_out(sz, kk, st, pp, dd, o)
            for sz, kk, st, pp, dd, o in zip(spatial, k, stride, padding, dilation, op)
        ]
    elif same:
        outs = list(spatial)
    else:
        outs = [_conv_out(sz, kk, st, pp, dd) for sz, kk, st, pp, dd in zip(spatial, k, stride, padding, dilation)]
    outs = [call.facts.simplify(o) for o in outs]
    # A transposed convolution with an empty output is accepted by some torch kernels and
    # rejected by others (it depends on the dims and the stride): it is not reported.
    empty_ok = bool(transposed)
    if not _check_positive_out(call, outs, shape, "input", f"conv{n}d", allow_zero=empty_ok):
        return _ERR
    if (
        module
        and (call.str("padding_mode") or "zeros") != "zeros"
        and not _mode_padding_fits(call, spatial, padding, shape)
    ):
        return _ERR
    empty = [
        (name, d)
        for name, d in (("out_channels", cout), ("in_channels", cin if transposed else None))
        if d is not None and call.facts.simplify(d) == 0
    ]
    if empty:
        # torch's kernels reject an empty weight: "expected weight to be at least 1 at dimension 0"
        # (and "non-empty ... weight tensor expected" for a transposed one, whose dims are in, out).
        name = empty[0][0] if module else "weight"
        call.error(
            codes.INVALID_ARG,
            f"conv{'_transpose' if transposed else ''}{n}d with {name + ' = 0' if module else 'an empty weight'}: torch needs at least one "
            f"{'input and ' if transposed else ''}output channel",
            "input" if module else "weight",
            "a layer needs at least one output channel; check the width it is built with",
        )
        return _ERR
    if not transposed and cout is not None:
        # torch raises for a weight with no output channels ("expected weight to be at least 1 at
        # dimension 0"): the code after this conv runs only with at least one.
        call.ctx.at_least_one(cout)
    lead = run + tuple(shape.dims[:c_axis])
    if not transposed and call.facts.simplify(cin) == 0:
        # An input with no channels (and a weight with none per group) takes torch's empty-input
        # path, which keeps the input's 0 channels: ``Conv2d(0, 4, 3)`` on ``[2 0 8 8]`` is ``[2 0 6 6]``.
        cout = 0
    return TensorV(
        Shape(lead + (cout if cout is not None else Unknown(),) + tuple(outs)),
        (call.tensor("input") or unknown_tensor()).dtype,
    )


@rule("pool")
def pool(call: Call) -> Value:
    """max/avg pooling (functional and modules)."""
    n = call.params["nd"]
    avg = call.params.get("avg", False)
    got = _spatial(call, "input", n)
    if got is None:
        return _ERR
    shape, batched, run = got
    k = _tuple(call, "kernel_size", n, 1)
    stride = k if (not call.has("stride") or call.is_none("stride")) else _tuple(call, "stride", n, 1)
    padding = _tuple(call, "padding", n, 0)
    dilation = (1,) * n if avg else _tuple(call, "dilation", n, 1)
    ceil = bool(call.bool("ceil_mode"))
    if k is None or stride is None or padding is None or dilation is None:
        return TensorV(Shape.unknown())
    for name, vals in (("stride", stride), ("dilation", dilation), ("kernel_size", k)):
        if any(type(v) is int and v <= 0 for v in vals):
            call.error(codes.INVALID_ARG, f"{name} must be greater than zero, got {tuple(vals)}", name)
            return _ERR
    if any(type(p) is int and p < 0 for p in padding):
        call.error(codes.INVALID_ARG, f"padding must be non-negative, got {tuple(padding)}", "padding")
        return _ERR
    for p, kk in zip(padding, k):
        if type(p) is int and type(kk) is int and p > kk // 2:
            call.error(codes.INVALID_ARG, f"padding {p} should be at most half of kernel size {kk}", "padding")
            return _ERR
    if shape.rank is None:  # the arguments are checked whatever the input's rank
        return TensorV(Shape.unknown())
    c_axis = 1 if batched else 0
    spatial = shape.dims[c_axis + 1 :]
    if call.params.get("unpadded_kernel"):
        # avg_pool3d compares the kernel with the input before padding.
        for sz, kk in zip(spatial, k):
            if type(sz) is int and type(kk) is int and sz < kk:
                call.error(
                    codes.INVALID_ARG,
                    f"input {render_shape(shape)} is smaller than the kernel {tuple(k)}",
                    "input",
                    "avg_pool3d needs every spatial dim (before padding) at least the kernel size",
                )
                return _ERR
    outs: list[Dim] = []
    for sz, kk, st, pp, dd in zip(spatial, k, stride, padding, dilation):
        num = arith.sub(arith.sub(arith.add(sz, arith.mul(2, pp)), arith.mul(dd, arith.sub(kk, 1))), 1)
        if ceil:
            o = arith.add(arith.ceildiv(num, st), 1)
            # The last window must start inside the input or left padding.
            if type(o) is int and type(sz) is int and type(st) is int and type(pp) is int and (o - 1) * st >= sz + pp:
                o -= 1
        else:
            o = arith.add(arith.floordiv(num, st), 1)
        outs.append(call.facts.simplify(o))
    if not _check_positive_out(call, outs, shape, "input", "pooling"):
        return _ERR
    out = Shape(run + tuple(shape.dims[: c_axis + 1]) + tuple(outs))
    t = call.tensor("input")
    if call.params.get("indices") and (call.bool("return_indices") or False):
        return TupleV((TensorV(out, t.dtype if t else None), TensorV(out, "int64")))
    return TensorV(out, t.dtype if t else None)


@rule("adaptive_pool")
def adaptive_pool(call: Call) -> Value:
    n = call.params["nd"]
    if n in (2, 3) and not call.params.get("indices") and _all_ones(call.value("output_size"), n):
        return _global_mean(call, n)
    got = _spatial(call, "input", n)
    if got is None:
        return _ERR
    shape, batched, run = got
    v = call.value("output_size")
    if isinstance(v, TupleV):
        sizes: list[Dim | None] = [None if x is NONE or type(x).__name__ == "NoneV" else as_dim(x) for x in v.items]
    else:
        d = as_dim(v)
        sizes = [d] * n
    if len(sizes) != n or shape.rank is None:
        return TensorV(Shape.unknown())
    c_axis = 1 if batched else 0
    spatial = shape.dims[c_axis + 1 :]
    if any(type(s) is int and s < 0 for s in sizes):
        call.error(codes.INVALID_ARG, f"elements of output_size must be >= 0, got {render_value(v)}", "output_size")
        return _ERR
    # A zero channel dim passes or fails depending on the kernel; a zero spatial dim always fails.
    if any(type(d) is int and d == 0 for d in spatial):
        call.error(
            codes.INVALID_ARG,
            f"expected input to have non-zero size for non-batch dims, got {render_shape(shape)}",
            "input",
        )
        return _ERR
    outs = [s if s is not None else sp for s, sp in zip(sizes, spatial)]
    out = Shape(run + tuple(shape.dims[: c_axis + 1]) + tuple(outs))
    t = call.tensor("input")
    if call.params.get("indices") and (call.bool("return_indices") or False):
        return TupleV((TensorV(out, t.dtype if t else None), TensorV(out, "int64")))
    return TensorV(out, t.dtype if t else None)


def _all_ones(v: Value, n: int) -> bool:
    if isinstance(v, TupleV):
        return len(v.items) == n and all(as_dim(x) == 1 for x in v.items)
    return as_dim(v) == 1


def _global_mean(call: Call, n: int) -> Value:
    """``adaptive_avg_pool2d/3d`` to an output of ones: torch takes the mean of the last ``n`` dims
    of an input of any rank from ``n`` on (``[2 3 4 5 6]`` to ``[2 3 4 1 1]``), empty dims too."""
    t = call.tensor("input")
    if t is None:
        return _ERR
    s = t.shape
    if s.rank is not None and s.rank < n:
        call.error(codes.RANK_MISMATCH, f"the mean over the last {n} dims needs {n} dims, got {render_shape(s)}", "input")
        return _ERR
    run_rank_at_least(call, s, n, call.name, "input")
    if s.rank is None and len(s.suffix) < n:
        return TensorV(Shape.unknown(), t.dtype)
    return TensorV(Shape((*s.items[: len(s.items) - n], *(1,) * n)), t.dtype)


@rule("channel_norm")
def channel_norm(call: Call) -> Value:
    """BatchNorm/InstanceNorm modules: ``[N C *]`` with ``C == num_features``; same shape out."""
    s = call.shape("input")
    if s is None:
        return _ERR
    ranks = call.params.get("ranks")
    if ranks and s.rank is not None and s.rank not in ranks:
        call.error(
            codes.RANK_MISMATCH,
            f"expected a {' or '.join(f'{r}-D' for r in ranks)} input, got {render_shape(s)}",
            "input",
        )
        return _ERR
    if ranks:
        if run_fails_for_every_rank(call, "input", ranks) or not run_rank_among(call, s, ranks, call.name, "input"):
            return _ERR
        s = run_fixed(s, ranks, call) or s
    if s.rank is not None and s.rank >= 1:
        c_axis = _channel_axis(call, s.rank)
        num = call.int("num_features")
        if num is not None and _uses_num_features(call):
            c = s.dims[c_axis]
            call.check(
                eq3(c, num, call.facts),
                (c, num),
                f"expected {plural(render_dim(num), 'channel')} (num_features), got {render_dim(c)} in {render_shape(s)} at dim {c_axis}",
                rel=Rel.EQ,
                at="input",
                checks=[("input", spec_text(s.items[:c_axis] + (num,) + s.items[c_axis + 1 :]))],
            )
        if not _enough_values(call, s, c_axis):
            return _ERR
    t = call.tensor("input")
    return TensorV(s, t.dtype if t else None)


def _channel_axis(call: Call, rank: int) -> int:
    """Where a norm layer's channel is in an input of ``rank`` dims: first when unbatched."""
    return 0 if rank == 1 or call.params.get("unbatched_rank") == rank else 1


def _uses_num_features(call: Call) -> bool:
    """InstanceNorm uses ``num_features`` only for its affine parameters and running stats."""
    return not (call.params.get("instance") and not (call.bool("affine") or call.bool("track_running_stats")))


def _enough_values(call: Call, s: Shape, c_axis: int) -> bool:
    """Batch statistics need more than one value per channel: BatchNorm in training mode (which the
    analysis does not know: an obligation), InstanceNorm whenever it uses input statistics (always,
    unless it tracks running stats: then in training mode only)."""
    instance = bool(call.params.get("instance"))
    values = arith.prod(s.dims[c_axis + 1 :]) if instance else arith.prod((s.dims[0], *s.dims[2:]))
    if type(values) is not int or values != 1:
        return True
    what = "spatial element" if instance else "value per channel"
    message = f"expected more than 1 {what} when training, got {render_shape(s)}"
    if instance and call.bool("track_running_stats") is False:
        call.error(codes.INVALID_ARG, message, "input", "instance statistics are computed over the spatial dims")
        return False
    call.oblige(message + " (holds only in eval mode)", [])
    return True


@rule("batch_norm_f")
def batch_norm_f(call: Call) -> Value:
    s = call.shape("input")
    if s is None:
        return _ERR
    if call.params.get("instance") and s.rank is not None and s.rank >= 2:
        spatial = arith.prod(s.dims[2:])
        use_stats = call.bool("use_input_stats")
        if type(spatial) is int and spatial <= 1 and use_stats is not False:
            call.error(
                codes.INVALID_ARG,
                f"instance norm of {render_shape(s)} needs more than 1 spatial element",
                "input",
                "instance statistics are computed over the spatial dims (dims 2 and on)",
            )
            return _ERR
    if s.rank is not None and s.rank >= 2 and not call.params.get("instance") and call.bool("training"):
        values = arith.prod((s.dims[0], *s.dims[2:]))
        if type(values) is int and values == 1:
            call.error(
                codes.INVALID_ARG,
                f"expected more than 1 value per channel when training, got {render_shape(s)}",
                "input",
                "batch statistics need a batch of more than one (or a spatial size above 1)",
            )
            return _ERR
    if len(s.prefix) >= 2:
        # The channel is dim 1 whatever the length of a run after it (``[2 1 3 3 *b]``).
        for name in ("running_mean", "running_var", "weight", "bias"):
            if call.has(name) and not call.is_none(name):
                call.match({"input": "n c *rest", name: "c"})
    return TensorV(s, (call.tensor("input") or unknown_tensor()).dtype)


@rule("layer_norm")
def layer_norm(call: Call) -> Value:
    """LayerNorm / RMSNorm: the trailing dims must equal ``normalized_shape``."""
    s = call.shape("input")
    ns = call.ints("normalized_shape")
    if s is None:
        return _ERR
    if ns is not None:
        spec = "*b " + " ".join(f"n{i}" for i in range(len(ns)))
        call.match({"input": spec}, None, {f"n{i}": d for i, d in enumerate(ns)})
        for name in ("weight", "bias"):
            if call.has(name) and not call.is_none(name) and call.module is None:
                call.match(
                    {name: " ".join(f"n{i}" for i in range(len(ns)))}, None, {f"n{i}": d for i, d in enumerate(ns)}
                )
    t = call.tensor("input")
    return TensorV(s, t.dtype if t else None)


@rule("group_norm")
def group_norm(call: Call) -> Value:
    s = call.shape("input")
    g = call.int("num_groups")
    if s is None:
        return _ERR
    if call.module is not None:
        c = call.int("num_channels")
        if c is not None:
            call.match({"input": "n c *rest"}, None, {"c": c})
    elif len(s.prefix) >= 2 and g is not None:
        c = s.prefix[1]  # dim 1 whatever the length of a run after it (``[2 5 *b]``)
        if call.facts.divisible(c, g) is False:
            call.error(
                codes.INVALID_ARG,
                f"{plural(render_dim(c), 'channel')} {'is' if render_dim(c) == '1' else 'are'} not divisible into {plural(render_dim(g), 'group')}",
                "num_groups",
            )
            return _ERR
        for name in ("weight", "bias"):
            if call.has(name) and not call.is_none(name):
                call.match({"input": "n c *rest", name: "c"})
    if s.rank is not None and s.rank < 2:
        call.error(codes.RANK_MISMATCH, f"expected at least 2 dims, got {render_shape(s)}", "input")
        return _ERR
    if s.rank is not None and g is not None:
        # torch normalises [N*G, C/G, *spatial] and needs more than one value per group, even in eval mode.
        values = arith.prod((s.dims[0], *s.dims[2:]))
        c = s.dims[1]
        per = arith.mul(values, arith.floordiv(c, g)) if type(g) is int and g > 0 else None
        if type(per) is int and per == 1:
            call.error(
                codes.INVALID_ARG,
                f"expected more than 1 value per group, got {render_shape(s)} in {render_dim(g)} groups",
                "input",
            )
            return _ERR
    return TensorV(s, (call.tensor("input") or unknown_tensor()).dtype)


@rule("embedding")
def embedding(call: Call) -> Value:
    """nn.Embedding / F.embedding: ``[*s] -> [*s d]``."""
    idx = call.tensor("input")
    if idx is None:
        return _ERR
    if call.module is not None:
        d = call.int("embedding_dim")
    else:
        w = call.shape("weight")
        if w is None or w.rank is None:
            return TensorV(Shape.unknown())
        if w.rank != 2:
            call.error(codes.RANK_MISMATCH, f"weight must be 2-D, got {render_shape(w)}", "weight")
            return _ERR
        d = w.dims[1]
        p = call.int("padding_idx") if not call.is_none("padding_idx") else None
        n = w.dims[0]
        if type(p) is int and type(n) is int and not -n <= p < n:
            call.error(
                codes.INVALID_ARG,
                f"padding_idx={p} must be within num_embeddings={n} (weight {render_shape(w)})",
                "padding_idx",
            )
            return _ERR
    if idx.dtype is not None and idx.dtype.startswith("float"):
        call.error(
            codes.INVALID_ARG,
            f"indices must be integers, got a {idx.dtype} tensor",
            "input",
            "convert with `.long()`; embeddings look up rows by index",
        )
    items: tuple[Item, ...] = idx.shape.items + ((d if d is not None else Unknown()),)
    return TensorV(Shape(items), "float32")


@rule("embedding_bag")
def embedding_bag(call: Call) -> Value:
    idx = call.shape("input")
    d = call.int("embedding_dim") if call.module is not None else None
    if call.module is None:
        w = call.shape("weight")
        if w is not None and w.rank == 2:
            d = w.dims[1]
        elif w is not None and w.rank is not None:
            call.error(codes.RANK_MISMATCH, f"weight must be 2-D, got {render_shape(w)}", "weight")
            return _ERR
    if idx is None or not run_rank_among(call, idx, (1, 2), call.name, "input"):
        return _ERR
    idx = run_fixed(idx, (1, 2), call) or idx
    dd: Dim = d if d is not None else Unknown()
    psw = (
        call.shape("per_sample_weights")
        if call.has("per_sample_weights") and not call.is_none("per_sample_weights")
        else None
    )
    if psw is not None and idx.rank is not None:
        call.match({"input": "*s", "per_sample_weights": "*s"})
    if idx.rank == 2:
        if call.given("offsets") is True:
            call.error(
                codes.INVALID_ARG,
                "a 2-D input is a batch of fixed-length bags: offsets must be None",
                "offsets",
            )
            return _ERR
        return TensorV(Shape((idx.dims[0], dd)))
    if idx.rank == 1:
        offs = call.shape("offsets")
        if offs is None or call.is_none("offsets"):
            call.error(codes.INVALID_ARG, "a 1-D input needs `offsets`", "input")
            return _ERR
        if offs.rank is not None and offs.rank != 1:
            call.error(codes.RANK_MISMATCH, f"offsets must be 1-D, got {render_shape(offs)}", "offsets")
            return _ERR
        n = offs.items[0] if offs.rank == 1 else Unknown()
        if call.bool("include_last_offset"):
            n = arith.sub(n, 1)
        return TensorV(Shape((n, dd)))
    if idx.rank is not None:
        call.error(codes.RANK_MISMATCH, f"input must be 1-D or 2-D, got {render_shape(idx)}", "input")
        return _ERR
    return TensorV(Shape((Unknown(), dd)))


@rule("rnn")
def rnn(call: Call) -> Value:
    """RNN / LSTM / GRU modules: ``(output, h_n)`` or ``(output, (h_n, c_n))``."""
    lstm = call.params.get("lstm", False)
    hin, hid = call.int("input_size"), call.int("hidden_size")
    layers = call.int("num_layers") or 1
    bi = 2 if call.bool("bidirectional") else 1
    proj = call.int("proj_size") if call.has("proj_size") else 0
    hout = hid if not proj else proj
    if hid is not None:
        # torch's constructor refuses a hidden_size of 0 ("hidden_size must be greater than zero"):
        # a module that runs has at least one, from here on and in this call's own checks.
        call.ctx.at_least_one(hid)
        call.ctx.facts = call.facts.assume_positive(hid)
    packed = call.value("input")
    if isinstance(packed, PackedV):
        return _rnn_packed(call, packed, lstm, hin, hid, hout, arith.mul(bi, layers), bi)
    x = call.shape("input")
    if x is None:
        return UnknownV()
    batch_first = bool(call.bool("batch_first"))
    if x.rank is not None and x.rank not in (2, 3):
        call.error(codes.RANK_MISMATCH, f"expected a 2-D (unbatched) or 3-D input, got {render_shape(x)}", "input")
        return UnknownV()
    if not run_rank_among(call, x, (2, 3), call.name, "input"):
        return UnknownV()
    if x.rank is None:
        return _rnn_any_rank(call, x, lstm, hin, hid, hout, arith.mul(bi, layers), bi)
    batched = x.rank == 3
    if batched:
        spec = "n l h" if batch_first else "l n h"
    else:
        spec = "l h"
    call.match({"input": spec.replace(" h", " input_size")}, None, {"input_size": hin} if hin is not None else None)
    d = x.dims
    if batched:
        n, L = (d[0], d[1]) if batch_first else (d[1], d[0])
        out = (n, L, arith.mul(bi, hout)) if batch_first else (L, n, arith.mul(bi, hout))
        h = (arith.mul(bi, layers), n, hout)
        c = (arith.mul(bi, layers), n, hid)
    else:
        L = d[0]
        out = (L, arith.mul(bi, hout))  # type: ignore[assignment]
        h = (arith.mul(bi, layers), hout)  # type: ignore[assignment]
        c = (arith.mul(bi, layers), hid)  # type: ignore[assignment]
    if (not batched or call.bool("batch_first") is not None) and not _rnn_states(call, lstm, batched, h, c):
        return TupleV((_ERR, _ERR))
    output = TensorV(Shape(out))
    if lstm:
        return TupleV((output, TupleV((TensorV(Shape(h)), TensorV(Shape(c))))))
    return TupleV((output, TensorV(Shape(h))))


def _rnn_any_rank(
    call: Call, x: Shape, lstm: bool, hin: Dim | None, hid: Dim | None, hout: Dim | None, states: Dim, bi: int
) -> Value:
    """An input of unknown rank is 2-D or 3-D (torch raises otherwise): either way its last dim is
    ``input_size``, the output's is ``num_directions * hidden``, and the states are ``[D*num_layers
    ... hidden]`` with a batch dim or none between (an ``hx`` is not checked: its rank is not known)."""
    if x.items and not isinstance(x.items[-1], Star):
        call.match({"input": "... input_size"}, None, {"input_size": hin} if hin is not None else None)
        out = TensorV(Shape((*x.items[:-1], arith.mul(bi, hout) if hout is not None else Unknown())))
    else:
        out = TensorV(Shape.unknown())
    batch = Star(None, UnknownSource.UNANNOTATED, most=1)
    h = TensorV(Shape((states, batch, hout if hout is not None else Unknown())))
    if not lstm:
        return TupleV((out, h))
    return TupleV((out, TupleV((h, TensorV(Shape((states, batch, hid if hid is not None else Unknown())))))))


def _rnn_packed(
    call: Call, p: PackedV, lstm: bool, hin: Dim | None, hid: Dim | None, hout: Dim | None, states: Dim, bi: int
) -> Value:
    """Over a ``PackedSequence`` of ``B`` sequences with steps ``[T input_size]``: the output is packed
    alike with steps ``[T num_directions*hidden]``, the states ``[D*num_layers B hidden]`` (``batch_first``
    does not apply)."""
    x = p.data.shape
    if x.rank is not None and x.rank != 2:
        call.error(
            codes.RANK_MISMATCH,
            f"a packed input's steps must be 2-D [steps, input_size], got {render_shape(x)}",
            "input",
            "pack a [batch, length, features] (or [length, batch, features]) tensor",
        )
        return TupleV((UnknownV(UnknownSource.ERROR), _ERR))
    width: Dim = arith.mul(bi, hout) if hout is not None else Unknown()
    if x.rank is None:
        out = PackedV(TensorV(Shape.unknown()), p.batch, p.longest)
    else:
        steps, features = x.dims
        if hin is not None:
            verdict = call.check(
                eq3(features, hin, call.facts),
                (features, hin),
                lambda: (
                    f"input.size(-1) must be equal to input_size: expected {render_dim(hin)}, got"
                    f" {render_dim(features)} (a packed sequence of {render_shape(x)})"
                ),
                at="input",
                rel=Rel.EQ,
            )
            if verdict is Verdict.ERROR:
                return TupleV((UnknownV(UnknownSource.ERROR), _ERR))
        out = PackedV(TensorV(Shape((steps, width)), p.data.dtype), p.batch, p.longest)
    h = (states, p.batch, hout if hout is not None else Unknown())
    c = (states, p.batch, hid if hid is not None else Unknown())
    if not _rnn_states(call, lstm, True, h, c):
        return TupleV((UnknownV(UnknownSource.ERROR), _ERR))
    if lstm:
        return TupleV((out, TupleV((TensorV(Shape(h)), TensorV(Shape(c))))))
    return TupleV((out, TensorV(Shape(h))))


@rule("rnn_cell")
def rnn_cell(call: Call) -> Value:
    """RNNCell / GRUCell / LSTMCell: ``h'`` (``(h', c')`` for an LSTMCell) of ``[batch hidden_size]``, or
    ``[hidden_size]`` for an unbatched 1-D input; the input ends in ``input_size``, the states are the
    input's batch by ``hidden_size``."""
    x = call.shape("input")
    if x is None:
        return UnknownV()
    lstm = call.params.get("lstm", False)
    hin, hid = call.int("input_size"), call.int("hidden_size")
    hidden: Dim = hid if hid is not None else Unknown()
    known = {"input_size": hin} if hin is not None else None
    if not run_rank_among(call, x, (1, 2), call.name, "input"):
        return _ERR
    hx = call.value("hx") if call.has("hx") else NONE
    h0 = hx.items[0] if lstm and isinstance(hx, TupleV) and hx.items else hx
    if isinstance(h0, TensorV) and h0.shape.rank in (1, 2):
        # The state's rank is the input's (torch raises for any other): a run takes the length left.
        fixed = run_exact_rank(call, x, h0.shape.rank, call.name, "input")
        if fixed is None:
            return _ERR
        x = fixed
    x = run_fixed(x, (1, 2), call) or x
    if x.rank is None:
        if x.items and not isinstance(x.items[-1], Star):
            call.match({"input": "... input_size"}, None, known)
        h = TensorV(Shape((Star(None, UnknownSource.UNANNOTATED, most=1), hidden)))
        return TupleV((h, h)) if lstm else h
    if x.rank not in (1, 2):
        call.error(codes.RANK_MISMATCH, f"expected a 1-D (unbatched) or 2-D input, got {render_shape(x)}", "input")
        return _ERR
    call.match({"input": "n input_size" if x.rank == 2 else "input_size"}, None, known)
    state = (*x.dims[:-1], hidden)
    hint = "a cell's states are [batch, hidden_size] ([hidden_size] for an unbatched input)"
    if not _rnn_states(call, lstm, x.rank == 2, state, state, hint=hint):
        return TupleV((_ERR, _ERR)) if lstm else _ERR
    h = TensorV(Shape(state))
    return TupleV((h, h)) if lstm else h


def _rnn_states(
    call: Call,
    lstm: bool,
    batched: bool,
    h: tuple[Dim, ...],
    c: tuple[Dim, ...],
    hint: str = "h_0 is [num_layers * num_directions, batch, proj_size or hidden_size]; c_0 ends in hidden_size",
) -> bool:
    """The initial states: ``hx`` (RNN, GRU) or ``(h_0, c_0)`` (LSTM), of the rank and sizes the layer gives
    back (``h``, ``c``: 3-D for a batched input and 2-D for an unbatched one, ``h_0`` of ``proj_size`` when
    projecting; a cell's are 2-D and 1-D)."""
    hx = call.value("hx") if call.has("hx") else NONE
    if lstm:
        if not isinstance(hx, TupleV) or len(hx.items) != 2:
            return True
        states = [("hidden[0]", hx.items[0], h), ("hidden[1]", hx.items[1], c)]
    else:
        states = [("hx", hx, h)]
    want = len(h)
    for label, v, expected in states:
        if not isinstance(v, TensorV) or v.shape.rank is None:
            continue
        if v.shape.rank != want:
            call.error(
                codes.RANK_MISMATCH,
                f"for {'a batched' if batched else 'an unbatched'} {want}-D input, {label} should be {want}-D, "
                f"got {render_shape(v.shape)}",
                "hx",
            )
            return False
        message = f"expected {label} of shape {render_shape(Shape(expected))}, got {render_shape(v.shape)}"
        for a, b in zip(v.shape.dims, expected):
            verdict = call.check(
                eq3(a, b, call.facts),
                (a, b),
                message,
                at="hx",
                rel=Rel.EQ,
                hint=hint,
            )
            if verdict is Verdict.ERROR:
                return False
    return True


def attention_masks(
    call: Call,
    batched: bool,
    inputs: dict[str, str],
    heads: Dim | None,
    attn: tuple[str, str] | None,
    padding: tuple[str, str] | None,
) -> bool:
    """MultiheadAttention's mask checks, with the sequence names of ``inputs`` (``l``, ``s``, batch ``n``).

    ``attn`` is an attention mask and its 2-D spec (``l s``); 3-D it is ``[N*num_heads L S]``
    (``[num_heads L S]`` for an unbatched query).  ``padding`` is a key padding mask and the name of
    the key length: ``[N S]``, or ``[S]`` for an unbatched query.
    """
    known = {"h": heads} if heads is not None else {}
    if attn is not None and call.has(attn[0]) and not call.is_none(attn[0]):
        name, spec2 = attn
        m = call.shape(name)
        if m is not None and m.rank is not None:
            if m.rank not in (2, 3):
                call.error(codes.RANK_MISMATCH, f"{name} must be 2-D or 3-D, got {render_shape(m)}", name)
                return False
            spec = spec2 if m.rank == 2 else ("n*h " if batched else "h ") + spec2
            call.match({**inputs, name: spec}, None, known)
    if padding is not None and call.has(padding[0]) and not call.is_none(padding[0]):
        name, seq = padding
        m = call.shape(name)
        if m is not None and m.rank is not None:
            want = 2 if batched else 1
            if m.rank != want:
                call.error(
                    codes.RANK_MISMATCH,
                    f"for {'a batched' if batched else 'an unbatched'} query, {name} must be {want}-D, got {render_shape(m)}",
                    name,
                )
                return False
            call.match({**inputs, name: f"n {seq}" if batched else seq}, None, known)
    return True


@rule("mha")
def mha(call: Call) -> Value:
    """nn.MultiheadAttention: ``(attn_output, attn_weights)``."""
    e = call.int("embed_dim")
    kdim = call.int("kdim") if not call.is_none("kdim") else e
    vdim = call.int("vdim") if not call.is_none("vdim") else e
    bf = bool(call.bool("batch_first"))
    q = call.shape("query")
    if q is None:
        return TupleV((TensorV(Shape.unknown()), TensorV(Shape.unknown())))
    if q.rank is None:
        return _mha_runs(call, bf, {k: v for k, v in (("e", e), ("k", kdim), ("v", vdim)) if v is not None})
    if q.rank not in (2, 3):
        call.error(codes.RANK_MISMATCH, f"query must be 2-D or 3-D, got {render_shape(q)}", "query")
        return TupleV((_ERR, _ERR))
    if q.rank == 3:
        qs, ks, vs = ("n l e", "n s k", "n s v") if bf else ("l n e", "s n k", "s n v")
    else:
        qs, ks, vs = "l e", "s k", "s v"
    known = {k: v for k, v in (("e", e), ("k", kdim), ("v", vdim)) if v is not None}
    out = call.match({"query": qs, "key": ks, "value": vs}, qs, known)
    heads = call.int("num_heads")
    layout_known = q.rank == 2 or call.bool("batch_first") is not None
    if layout_known and not attention_masks(
        call, q.rank == 3, {"query": qs, "key": ks}, heads, ("attn_mask", "l s"), ("key_padding_mask", "s")
    ):
        return TupleV((_ERR, _ERR))
    need = call.bool("need_weights")
    avg = call.bool("average_attn_weights")
    if need is False:
        weights: Value = NONE
    else:
        ws = ("n l s" if avg is not False else "n h l s") if q.rank == 3 else ("l s" if avg is not False else "h l s")
        weights = TensorV(
            call.match({"query": qs, "key": ks}, ws, {**known, **({"h": heads} if heads is not None else {})})
            or Shape.unknown()
        )
    return TupleV((TensorV(out or Shape.unknown()), weights))


def _mha_runs(call: Call, bf: bool, known: dict[str, Dim]) -> Value:
    """Attention over a query whose rank is a run (a learnt ``[*batch l e]``): the output has the
    query's shape, its last dim ``embed_dim``; the key ends in ``kdim`` and the value in ``vdim``.
    With ``batch_first`` the query, key and value share their leading dims (``[*b l e]``, ``[*b s k]``,
    ``[*b s v]``) and the averaged weights are ``[*b l s]``; without it, where the batch dim sits
    depends on the rank, so the weights stay unknown."""
    if bf:
        qs, specs = "*b l e", {"query": "*b l e", "key": "*b s k", "value": "*b s v"}
    else:
        qs, specs = "*b e", {"query": "*b e", "key": "*c k", "value": "*c v"}
    out = call.match(specs, qs, known)
    weights: Value = unknown_tensor()
    if call.bool("need_weights") is False:
        weights = NONE
    elif bf and call.bool("average_attn_weights") is not False and out is not None:
        weights = TensorV(call.match({"query": qs, "key": "*b s k"}, "*b l s", known) or Shape.unknown())
    return TupleV((TensorV(out or Shape.unknown()), weights))


@rule("same_as_first")
def same_as_first(call: Call) -> Value:
    """Transformer layers: the output has the first input's shape; its last dim is ``d_model``."""
    name = call.params.get("input", "src")
    s = call.shape(name)
    if s is None:
        return _ERR
    d = call.int("d_model")
    if d is not None:
        call.match({name: "*b d"}, None, {"d": d})
    if s.rank == 2 or (s.rank == 3 and call.bool("batch_first") is not None):
        batched = s.rank == 3
        bf = bool(call.bool("batch_first"))
        seq = ("n l d" if bf else "l n d") if batched else "l d"
        inputs = {name: seq}
        if call.has("memory") and not call.is_none("memory"):
            inputs["memory"] = seq.replace("l", "s")
        heads = call.int("nhead")
        for attn, pad_name, key in (
            ("src_mask", "src_key_padding_mask", "l"),
            ("tgt_mask", "tgt_key_padding_mask", "l"),
            ("memory_mask", "memory_key_padding_mask", "s"),
        ):
            if call.has(attn) or call.has(pad_name):
                spec = "l " + key
                if not attention_masks(call, batched, inputs, heads, (attn, spec), (pad_name, key)):
                    return _ERR
        if "memory" in inputs:
            call.match(inputs, None, {"d": d} if d is not None else None)
    return TensorV(s, (call.tensor(name) or unknown_tensor()).dtype)


@rule("transformer")
def transformer(call: Call) -> Value:
    """``nn.Transformer``: the output has ``tgt``'s shape; ``src`` and ``tgt`` both end in ``d_model``, and
    batched ones have the same batch (dim 1, or 0 with ``batch_first``).  The masks are not checked."""
    src, tgt = call.shape("src"), call.shape("tgt")
    if src is None or tgt is None:
        return _ERR
    d = call.int("d_model")
    known = {"d": d} if d is not None else None
    bf = call.bool("batch_first")
    if src.rank == 3 and tgt.rank == 3 and bf is not None:
        call.match({"src": "n s d", "tgt": "n t d"} if bf else {"src": "s n d", "tgt": "t n d"}, None, known)
    elif known is not None:
        call.match({"src": "*a d", "tgt": "*b d"}, None, known)
    return TensorV(tgt, (call.tensor("tgt") or unknown_tensor()).dtype)


@rule("transformer_encoder")
def transformer_encoder(call: Call) -> Value:
    layer = call.value("encoder_layer")
    s = call.shape("src")
    if s is None:
        return _ERR
    if isinstance(layer, ModuleV):
        from ..engine import call_module

        r = call_module(layer, [call.arg("src")], {}, call.ctx, call.span)
        if isinstance(r, TensorV):
            return r
    return TensorV(s)


def _apply(call: Call, child: Value, value: Value) -> Value:
    arg = Arg(value, call.span, None)
    if call.ctx.invoke is not None:
        return call.ctx.invoke(child, [arg], {}, call.span)  # type: ignore[no-any-return]
    if isinstance(child, ModuleV):
        from ..engine import call_module

        return call_module(child, [arg], {}, call.ctx, call.span) or UnknownV()
    return UnknownV()


@rule("sequential")
def sequential(call: Call) -> Value:
    """nn.Sequential: apply each child in order."""
    assert call.module is not None
    value: Value = call.value("input")
    repeated = repeated_child(call.module)
    if repeated is not None:
        return _repeat(call, repeated, value)
    for child in call.module.children:
        value = _apply(call, child, value)
        if (
            isinstance(value, TensorV)
            and value.shape.items
            and isinstance(value.shape.items[0], Unknown)
            and value.shape.items[0].source is UnknownSource.ERROR
            and value.shape.rank == 1
        ):
            break
    return value


def _repeat(call: Call, child: Value, value: Value) -> Value:
    """``Sequential(*[Block(d) for _ in range(n)])``: ``child`` applied an unknown number of times.

    A child that keeps the shape keeps it through all of them; otherwise the dims that
    change are unknown (the rank stays when it does not change)."""
    out = _apply(call, child, value)
    if not isinstance(value, TensorV) or not isinstance(out, TensorV):
        return out if out == value else UnknownV(UnknownSource.JOIN)
    a, b = value.shape, out.shape
    if a.rank is None or a.rank != b.rank:
        return TensorV(Shape.unknown(UnknownSource.JOIN), value.dtype)
    dims = tuple(
        x if eq3(x, y, call.facts) is Truth.TRUE else Unknown(UnknownSource.JOIN) for x, y in zip(a.dims, b.dims)
    )
    return TensorV(Shape(dims), value.dtype if value.dtype == out.dtype else None)


def repeated_child(m: ModuleV) -> Value | None:
    """The child of a container built from a list of unknown length (``ModuleList([Block(c)
    for _ in range(n)])``, ``Sequential(*blocks)``): each element is like it."""
    if m.children:
        return None
    v = m.args.get("modules", m.args.get("args"))
    return v.elem if isinstance(v, SeqV) else None


@rule("container_init")
def container_init(call: Call) -> Value:
    """Sequential(*mods) / ModuleList([...]) / ModuleDict({...}): keep the children."""
    qual = call.op.qualname.rsplit(".", 1)[0]
    name = "args" if call.has("args") else "modules"
    v = call.value(name)
    if isinstance(v, TupleV) and len(v.items) == 1 and isinstance(v.items[0], SeqV) and qual.endswith("Sequential"):
        v = v.items[0]  # ``Sequential(*blocks)`` with a list of unknown length
    if isinstance(v, SeqV):
        return ModuleV(qual, {name: v}, ())
    if isinstance(v, TupleV) and len(v.items) == 1 and isinstance(v.items[0], DictV) and qual.endswith("Sequential"):
        # ``Sequential(OrderedDict(...))``: the children's names kept (``add_module`` may replace one).
        names = TupleV(tuple(StrV(k) for k, _ in v.items[0].items))
        return ModuleV(qual, {"names": names}, tuple(m for _, m in v.items[0].items))
    children: tuple[Value, ...] = ()
    if isinstance(v, TupleV):
        if len(v.items) == 1 and isinstance(v.items[0], TupleV) and qual.endswith("Sequential"):
            children = v.items
        elif len(v.items) == 1 and isinstance(v.items[0], TupleV) and not qual.endswith("Sequential"):
            children = v.items[0].items
        else:
            children = v.items
    return ModuleV(qual, {}, children)


@rule("sdpa")
def sdpa(call: Call) -> Value:
    """scaled_dot_product_attention: ``[* L E] x [* S E] x [* S Ev] -> [* L Ev]``."""
    out = call.match({"query": "*#b l e", "key": "*#b s e", "value": "*#b s v"}, "*b l v")
    if out is None:
        return _ERR
    if call.has("attn_mask") and not call.is_none("attn_mask"):
        m = call.shape("attn_mask")
        q, k = call.shape("query"), call.shape("key")
        if m is not None and q is not None and k is not None and q.rank and k.rank:
            target = Shape(q.items[:-1] + (k.items[-2],))
            _, issues = broadcast_shapes([m, target], call.facts)
            for iss in issues:
                if iss.verdict is Verdict.ERROR:
                    call.error(
                        codes.BROADCAST,
                        f"attn_mask {render_shape(m)} does not broadcast to {render_shape(target)}",
                        "attn_mask",
                    )
    return TensorV(out, (call.tensor("query") or unknown_tensor()).dtype)


#: The input rank each interpolating mode takes (``nearest``/``area`` take 3-D to 5-D).
_MODE_RANK = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def _interpolate_args(call: Call, s: Shape, n: int) -> bool:
    """F.interpolate's argument checks: one of size and scale_factor, align_corners only for the
    interpolating modes, and the input rank each mode takes."""
    has_size, has_scale = call.given("size"), call.given("scale_factor")
    if has_size is not None and has_size == has_scale:
        call.error(
            codes.INVALID_ARG,
            "only one of size or scale_factor should be defined"
            if has_size
            else "either size or scale_factor should be defined",
            "scale_factor" if has_size else None,
        )
        return False
    mode = call.str("mode") if call.has("mode") else "nearest"
    if mode is None:
        return True  # a mode the analysis cannot see
    if call.given("align_corners") is True and mode not in _MODE_RANK:
        call.error(
            codes.INVALID_ARG,
            f"align_corners can only be set with the interpolating modes (linear, bilinear, bicubic, trilinear), not {mode!r}",
            "align_corners",
        )
        return False
    want = _MODE_RANK.get(mode, 0)
    if (want and s.rank != want) or (not want and n > 3):
        call.error(
            codes.RANK_MISMATCH,
            f"mode {mode!r} needs a {want}-D input, got {render_shape(s)}"
            if want
            else f"only 3-D, 4-D and 5-D inputs are supported, got {render_shape(s)}",
            "input",
        )
        return False
    return True


@rule("interpolate")
def interpolate(call: Call) -> Value:
    s = call.shape("input")
    if s is None:
        return _ERR
    if s.rank is None:
        run_rank_at_least(call, s, 3, "interpolation", "input")
        return TensorV(Shape.unknown())
    n = s.rank - 2
    if n < 1:
        call.error(codes.RANK_MISMATCH, f"expected at least a 3-D input [N C *spatial], got {render_shape(s)}", "input")
        return _ERR
    if not _interpolate_args(call, s, n):
        return _ERR
    size_v = call.value("size")
    if not call.is_none("size"):
        size = as_dims(size_v)
        if size is not None and len(size) == 1:
            size = size * n
        if size is None or len(size) != n:
            if size is not None:
                call.error(
                    codes.INVALID_ARG, f"size needs {plural(n, 'value')} for {render_shape(s)}, got {len(size)}", "size"
                )
            return TensorV(Shape(s.dims[:2] + (Unknown(),) * n))
        return TensorV(Shape(s.dims[:2] + size))
    sf = call.value("scale_factor")
    factors: list[float | None] = []
    if isinstance(sf, TupleV):
        factors = [call_float(x) for x in sf.items]
    else:
        factors = [call_float(sf)] * n
    if len(factors) != n:
        call.error(codes.INVALID_ARG, f"scale_factor needs {plural(n, 'value')}, got {len(factors)}", "scale_factor")
        return _ERR
    outs: list[Dim] = []
    for d, f in zip(s.dims[2:], factors):
        if f is None:
            outs.append(Unknown())
        elif float(f).is_integer():
            outs.append(arith.mul(d, int(f)))
        elif type(d) is int:
            import math

            outs.append(math.floor(d * f))
        else:
            outs.append(Unknown())
    if any(type(o) is int and o <= 0 for o in outs):
        call.error(
            codes.INVALID_ARG,
            f"scale_factor {render_value(sf)} gives an empty output for {render_shape(s)}: "
            f"[{' '.join(render_dim(o) for o in outs)}]",
            "scale_factor",
            "input and output sizes must be greater than 0",
        )
        return _ERR
    return TensorV(Shape(s.dims[:2] + tuple(outs)))


def call_float(v: Value) -> float | None:
    from ...model.values import FloatV

    if isinstance(v, FloatV):
        return v.value
    if isinstance(v, IntV) and type(v.value) is int:
        return float(v.value)
    return None


def _mode_pad_fits(call: Call, s: Shape, p: Sequence[Dim], mode: str, at: str) -> bool:
    """reflect/replicate/circular padding: the input's rank fits the pad length (2 pads: 2-D or 3-D input,
    4: 3-D or 4-D, 6: 4-D or 5-D), every padded dim is non-empty, and each reflect pad is less than its
    dim (circular: at most its dim)."""
    k = len(p) // 2
    assert s.rank is not None
    if k not in (1, 2, 3) or s.rank not in (k + 1, k + 2):
        call.error(
            codes.RANK_MISMATCH,
            f"{mode} padding of {len(p)} values is not supported for a {s.rank}-D input {render_shape(s)}",
            "input",
            f"{mode} padding of {len(p)} values takes a {k + 1}-D or {k + 2}-D input",
        )
        return False
    if mode in ("reflect", "replicate") and any(type(d) is int and d == 0 for d in s.dims[s.rank - k - 1 :]):
        call.error(
            codes.INVALID_ARG,
            f"{mode} padding needs non-empty dims other than the batch, got {render_shape(s)}",
            "input",
        )
        return False
    for j in range(k):
        size = s.dims[s.rank - 1 - j]
        for q in (p[2 * j], p[2 * j + 1]):
            if (
                type(q) is int
                and type(size) is int
                and (q >= size if mode == "reflect" else q > size if mode == "circular" else False)
            ):
                call.error(
                    codes.INVALID_ARG,
                    f"{mode} padding {q} must be {'less than' if mode == 'reflect' else 'at most'} dim "
                    f"{s.rank - 1 - j} of {render_shape(s)}",
                    at,
                    "reflect padding mirrors the dim without its edge, so it needs pad < size",
                )
                return False
    return True


@rule("pad")
def pad(call: Call) -> Value:
    return _padded(call, call.ints("pad"), call.str("mode") or "constant", "pad")


#: The padding modules' name for the mode ``F.pad`` takes.
_PAD_MODES = {"zero": "constant"}


@rule("pad_module")
def pad_module(call: Call) -> Value:
    """``nn.ZeroPad2d(p)``, ``nn.ReflectionPad1d((l, r))``, ...: ``F.pad`` with the module's padding (an
    int is the same pad on both sides of each of its ``nd`` dims)."""
    n = call.params["nd"]
    v = call.value("padding")
    p = call.ints("padding") if isinstance(v, (TupleV, SeqV)) else None
    if p is None and not isinstance(v, (TupleV, SeqV)):
        d = as_dim(v)
        p = (d,) * (2 * n) if d is not None and not isinstance(d, Unknown) else None
    mode = call.params["mode"]
    s = call.shape("input")
    if mode == "circular" and s is not None and not run_rank_among(call, s, (n + 1, n + 2), call.name, "input"):
        return _ERR
    if mode == "circular" and s is not None and s.rank is not None and s.rank not in (n + 1, n + 2):
        # The circular modules check the input's rank themselves, whatever the padding's length.
        call.error(
            codes.RANK_MISMATCH,
            f"expected {n + 1}D or {n + 2}D input (got {s.rank}D input {render_shape(s)})",
            "input",
            f"CircularPad{n}d takes an input [C *spatial] or [N C *spatial] of {n} spatial dims",
        )
        return _ERR
    return _padded(call, p, _PAD_MODES.get(mode, mode), "padding")


def _padded_run(call: Call, s: Shape, p: tuple[Dim, ...], mode: str, at: str) -> Value:
    """``F.pad`` on a shape holding a run (``[*b h w]``): the rank it needs is checked at run time
    (an error only where no length of the run fits; where one rank is left, the run is taken as
    its dims); constant padding of dims after the run keeps the run (``[*b h w]`` padded by 2 on
    each side of ``w`` is ``[*b h w+4]``)."""
    k = len(p) // 2
    if mode != "constant":
        if k not in (1, 2, 3):
            return TensorV(Shape.unknown())
        ranks = (k + 1, k + 2)
        why = f"{mode} padding of {plural(len(p), 'value')}"
        if run_fails_for_every_rank(call, "input", ranks) or not run_rank_among(call, s, ranks, why, "input"):
            return _ERR
        fixed = run_fixed(s, ranks, call)  # one rank left: torch raises for every other length of the run
        return TensorV(Shape.unknown()) if fixed is None else _padded_shape(call, fixed, p, mode, at)
    run_rank_at_least(call, s, k, f"padding of {plural(len(p), 'value')}", "input")
    if k > len(s.suffix):
        return TensorV(Shape.unknown())
    items = list(s.items)
    for j in range(k):
        axis = len(items) - 1 - j
        items[axis] = arith.add(arith.add(items[axis], p[2 * j]), p[2 * j + 1])
        if type(items[axis]) is int and items[axis] < 0:  # type: ignore[operator]
            call.error(codes.INVALID_ARG, f"padding makes dim {axis - len(items)} negative", at)
            return _ERR
    t = call.tensor("input")
    return TensorV(Shape(tuple(items)), t.dtype if t else None)


def _padded(call: Call, p: tuple[Dim, ...] | None, mode: str, at: str) -> Value:
    """``F.pad(input, p, mode)``: the pads apply from the last dim backwards, two per dim."""
    s = call.shape("input")
    if s is None:
        return _ERR
    if p is None:
        return TensorV(Shape.unknown())
    if len(p) % 2:
        call.error(codes.INVALID_ARG, f"padding length must be even, got {len(p)}", at)
        return _ERR
    if s.rank is None:
        return _padded_run(call, s, p, mode, at)
    return _padded_shape(call, s, p, mode, at)


def _padded_shape(call: Call, s: Shape, p: tuple[Dim, ...], mode: str, at: str) -> Value:
    """``F.pad`` of ``s``, whose rank is known."""
    assert s.rank is not None
    if len(p) // 2 > s.rank:
        call.error(
            codes.INVALID_ARG,
            f"padding of {plural(len(p), 'value')} covers more dims than {render_shape(s)} has",
            at,
        )
        return _ERR
    if mode != "constant" and not _mode_pad_fits(call, s, p, mode, at):
        return _ERR
    items = list(s.dims)
    for j in range(len(p) // 2):
        axis = s.rank - 1 - j
        items[axis] = arith.add(arith.add(items[axis], p[2 * j]), p[2 * j + 1])
        if type(items[axis]) is int and items[axis] < 0:  # type: ignore[operator]
            call.error(codes.INVALID_ARG, f"padding makes dim {axis} negative", at)
            return _ERR
    padded = items[s.rank - len(p) // 2 :]
    if mode in ("reflect", "replicate") and all(type(d) is int and d < 1 for d in padded):
        call.error(
            codes.INVALID_ARG,
            f"input {render_shape(s)} is too small: {mode} padding leaves its padded dims "
            f"{render_shape(Shape(tuple(padded)))}",
            at,
            f"{mode} padding needs at least one of the padded dims non-empty",
        )
        return _ERR
    return TensorV(Shape(tuple(items)), (call.tensor("input") or unknown_tensor()).dtype)


@rule("one_hot")
def one_hot(call: Call) -> Value:
    s = call.shape("input") if call.has("input") else call.shape("tensor")
    n = call.int("num_classes")
    if s is None:
        return _ERR
    d: Dim = Unknown(UnknownSource.DATA_DEPENDENT) if n is None or n == -1 else n
    return TensorV(Shape(s.items + (d,)), "int64")


@rule("class_loss")
def class_loss(call: Call) -> Value:
    """cross_entropy / nll_loss: input ``[N C *d]`` (or ``[C]``), target ``[N *d]`` indices or probabilities."""
    x, y = call.shape("input"), call.tensor("target")
    if x is None or y is None:
        return _ERR
    red = call.str("reduction") or "mean"
    if x.rank is None and y.shape.rank is not None and (y.dtype or "").startswith("int"):
        # Class indices [N *d] fix the scores' rank ([N C *d]; a single sample [C] with a 0-d or [1] target).
        r = y.shape.rank
        ranks = (r + 1, 1) if r <= 1 else (r + 1,)
        if not run_rank_among(call, x, ranks, call.name, "input"):
            return _ERR
        x = run_fixed(x, ranks, call) or x
    if x.rank is None or y.shape.rank is None:
        return TensorV(Shape(()) if red != "none" else Shape.unknown())
    probs = y.dtype is not None and y.dtype.startswith("float") and y.shape.rank == x.rank
    if x.rank == 0:
        call.error(codes.RANK_MISMATCH, "input must have at least 1 dim", "input")
        return _ERR
    if probs:
        call.match({"input": "*s", "target": "*s"})
        out = Shape((x.dims[0],) + x.dims[2:]) if x.rank >= 2 else Shape(())
    else:
        if x.rank == 1:
            # A single sample: the target is one class index, 0-d or of shape [1].
            if y.shape.rank == 1:
                call.match({"target": "1"})
            else:
                call.match({"target": ""})
            out = Shape(())
        else:
            expected = Shape((x.dims[0],) + x.dims[2:])
            if y.shape.rank != expected.rank:
                call.error(
                    codes.RANK_MISMATCH,
                    f"target {render_shape(y.shape)} does not fit input {render_shape(x)}: expected class indices of shape {render_shape(expected)}",
                    "target",
                    "input is [N C ...] scores; target is [N ...] class indices (or [N C ...] probabilities)",
                )
                return _ERR
            for _j, (a, b) in enumerate(zip(y.shape.dims, expected.dims)):
                v = call.check(
                    eq3(a, b, call.facts),
                    (a, b),
                    f"target {render_shape(y.shape)} does not fit input {render_shape(x)}: expected {render_shape(expected)}",
                    rel=Rel.EQ,
                    at="target",
                )
                if v is Verdict.ERROR:
                    return _ERR
            out = expected
    if call.has("weight") and not call.is_none("weight"):
        c = x.dims[1] if x.rank >= 2 else x.dims[0]
        call.match({"weight": "c"}, None, {"c": c})
    return TensorV(out if red == "none" else Shape(()))


@rule("pointwise_loss")
def pointwise_loss(call: Call) -> Value:
    """mse/l1/bce...: input and target must match (broadcast for mse/l1 with a warning in torch)."""
    strict = call.params.get("strict", False)
    x, y = call.shape("input"), call.shape("target")
    if x is None or y is None:
        return _ERR
    red = call.str("reduction") or "mean"
    if strict:
        out = call.match({"input": "*s", "target": "*s"}, "*s")
        if out is not None:
            # weight (and pos_weight) broadcast against the input.
            for name in ("weight", "pos_weight"):
                if call.has(name) and not call.is_none(name):
                    call.match({"input": "*#s", name: "*#s"})
    elif call.params.get("expand_target"):
        out = call.match({"input": "*s", "target": "*#s"}, "*s")
    else:
        out = call.match({"input": "*#s", "target": "*#s"}, "*s")
    if out is None:
        return _ERR
    if call.params.get("variance") and not _variance_fits(call, x):
        return _ERR
    if not strict and call.has("weight") and not call.is_none("weight"):
        # mse/l1/huber/smooth_l1 with weights: the weights have exactly the input's shape.
        call.match({"input": "*s", "weight": "*s"})
    return TensorV(out if red == "none" else Shape(()))


def _variance_fits(call: Call, x: Shape) -> bool:
    """gaussian_nll_loss: ``var`` has the input's shape, or that shape without its last dim, or the
    input's rank with exactly one size-1 dim where they differ (torch's own test, on definite sizes)."""
    v = call.shape("var")
    if v is None or v.rank is None or x.rank is None:
        return True
    xs, vs = x.dims, v.dims
    if not all(type(d) is int for d in (*xs, *vs)):
        return True
    if vs == xs or vs == xs[:-1] or (len(vs) == len(xs) and sum(b for a, b in zip(xs, vs) if a != b) == 1):  # type: ignore[misc]
        return True
    call.error(codes.SHAPE_MISMATCH, f"var {render_shape(v)} is of incorrect size for input {render_shape(x)}", "var")
    return False


@rule("glu")
def glu(call: Call) -> Value:
    """F.glu: halves ``dim`` (which must be even)."""
    s = call.shape("input")
    if s is None:
        return _ERR
    if s.rank == 0:
        call.error(codes.RANK_MISMATCH, "glu does not support scalars: it halves a dim", "input")
        return _ERR
    i = wrap_dim(call, call.int("dim"), s, "dim")
    if i is None:
        return TensorV(Shape.unknown())
    d = s.items[i]
    if type(d) is int and d % 2:
        call.error(codes.INVALID_ARG, f"halving dim {i} of {render_shape(s)} needs an even size, got {d}", "input")
        return _ERR
    return TensorV(replace(s, i, (arith.floordiv(d, 2),)))


def render_value(v: Value) -> str:
    if isinstance(v, TupleV):
        return "(" + ", ".join(render_value(x) for x in v.items) + ")"
    for attr in ("value",):
        x = getattr(v, attr, None)
        if x is not None:
            return str(x)
    return "?"


@rule("prelu")
def prelu(call: Call) -> Value:
    """F.prelu / nn.PReLU: ``weight`` (``num_parameters``) has one value, or one per channel (dim 1;
    inputs of rank < 2 have one channel)."""
    x = call.shape("input")
    n = call.int("num_parameters") if call.module is not None else None
    w = Shape.of(1 if n is None else n) if call.module is not None else call.shape("weight")
    if x is None:
        return _ERR
    # The channel is dim 1 also where a run comes after it (``[3 3 *b]``); elsewhere a run decides it.
    if w is not None and w.rank is not None and (x.rank is not None or len(x.prefix) >= 2):
        size = arith.prod(w.dims)
        channels = x.prefix[1] if len(x.prefix) >= 2 else 1
        if type(size) is int and size != 1 and eq3(size, channels, call.facts) is Truth.FALSE:
            call.error(
                codes.SHAPE_MISMATCH,
                f"weight {render_shape(w)} has {plural(size, 'value')}; expected 1 or {render_dim(channels)} (the channels of {render_shape(x)})"
                if len(x.prefix) >= 2
                else f"weight {render_shape(w)} has {plural(size, 'value')}; expected 1 (an input of {render_shape(x)} has one channel)",
                "weight",
            )
            return _ERR
    t = call.tensor("input")
    return TensorV(x, t.dtype if t else None)
