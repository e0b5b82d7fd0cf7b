"""``torch.nn`` modules and ``torch.nn.functional``: conv and pooling arithmetic,
norms, embeddings, recurrent layers, attention, losses, containers."""

from __future__ import annotations

from collections.abc import Sequence

from ...lang.render import render_dim, render_shape
from ...model import codes
from ...model.constraints import Rel
from ...model.dims import Dim, Unknown, UnknownSource
from ...model.shape import Item, Shape
from ...model.values import (
    NONE,
    IntV,
    ModuleV,
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
from .util import replace, spec_text, wrap_dim

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
        call.error(codes.INVALID_ARG, f"`{name}` needs {n} values, got {len(v)}", name)
        return None
    return v


def _spatial(call: Call, input_name: str, n: int) -> tuple[Shape, bool] | None:
    """The input shape and whether it is batched (``N C *spatial`` vs ``C *spatial``)."""
    s = call.shape(input_name)
    if s is None:
        return None
    if s.rank is None:
        return s, True
    if s.rank not in (n + 1, n + 2):
        call.error(
            codes.RANK_MISMATCH,
            f"expected a {n + 1}-D (unbatched) or {n + 2}-D (batched) input, got {render_shape(s)}",
            input_name,
            f"a {n}-d layer takes [N C{' L' if n == 1 else ' H W' if n == 2 else ' D H W'}]",
        )
        return None
    return s, s.rank == n + 2


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


@rule("conv")
def conv(call: Call) -> Value:
    """F.conv{1,2,3}d / F.conv_transpose{1,2,3}d and nn.Conv*/ConvTranspose* modules."""
    n = call.params["nd"]
    transposed = call.params.get("transposed", False)
    got = _spatial(call, "input", n)
    if got is None:
        return _ERR
    shape, batched = got
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
            call.error(codes.RANK_MISMATCH, f"weight must have {n + 2} dims, got {render_shape(w)}", "weight")
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
    if shape.rank is None:
        return TensorV(Shape.unknown(), (call.tensor("input") or unknown_tensor()).dtype)
    c_axis = 1 if batched else 0
    c = shape.dims[c_axis]
    in_label = "in_channels" if module else "weight"
    v = call.check(
        eq3(c, cin, call.facts),
        (c, cin),
        f"expected input with {render_dim(cin)} channels, got {render_shape(shape)} ({render_dim(c)} channels at dim {c_axis})",
        rel=Rel.EQ,
        at="input",
        hint=f"the channel dim ({c_axis}) must equal {in_label}; check the previous layer's out_channels",
        checks=[("input", spec_text(shape.items[:c_axis] + (cin,) + shape.items[c_axis + 1 :]))],
    )
    if v is Verdict.ERROR:
        return _ERR
    spatial = shape.dims[c_axis + 1 :]
    if transposed:
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
    lead = shape.dims[:c_axis]
    return TensorV(
        Shape(tuple(lead) + (cout if cout is not None else Unknown(),) + tuple(outs)),
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
    shape, batched = got
    k = _tuple(call, "kernel_size", n, 1)
    stride = k if (not call.has("stride") or call.is_none("stride")) else _tuple(call, "stride", n, 1)
    padding = _tuple(call, "padding", n, 0)
    dilation = (1,) * n if avg else _tuple(call, "dilation", n, 1)
    ceil = bool(call.bool("ceil_mode"))
    if k is None or stride is None or padding is None or dilation is None or shape.rank is None:
        return TensorV(Shape.unknown())
    for p, kk in zip(padding, k):
        if type(p) is int and type(kk) is int and p > kk // 2:
            call.error(codes.INVALID_ARG, f"padding {p} should be at most half of kernel size {kk}", "padding")
            return _ERR
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
    out = Shape(tuple(shape.dims[: c_axis + 1]) + tuple(outs))
    t = call.tensor("input")
    if call.params.get("indices") and (call.bool("return_indices") or False):
        return TupleV((TensorV(out, t.dtype if t else None), TensorV(out, "int64")))
    return TensorV(out, t.dtype if t else None)


@rule("adaptive_pool")
def adaptive_pool(call: Call) -> Value:
    n = call.params["nd"]
    got = _spatial(call, "input", n)
    if got is None:
        return _ERR
    shape, batched = got
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
    outs = [s if s is not None else sp for s, sp in zip(sizes, spatial)]
    out = Shape(tuple(shape.dims[: c_axis + 1]) + tuple(outs))
    t = call.tensor("input")
    if call.params.get("indices") and (call.bool("return_indices") or False):
        return TupleV((TensorV(out, t.dtype if t else None), TensorV(out, "int64")))
    return TensorV(out, t.dtype if t else None)


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
    if s.rank is not None and s.rank >= 1:
        c_axis = 0 if s.rank == 1 or call.params.get("unbatched_rank") == s.rank else 1
        num = call.int("num_features")
        # InstanceNorm uses num_features only for its affine parameters and running stats.
        unused = call.params.get("instance") and not (call.bool("affine") or call.bool("track_running_stats"))
        if num is not None and not unused:
            c = s.dims[c_axis]
            call.check(
                eq3(c, num, call.facts),
                (c, num),
                f"expected {render_dim(num)} channels (num_features), got {render_dim(c)} in {render_shape(s)} at dim {c_axis}",
                rel=Rel.EQ,
                at="input",
                checks=[("input", spec_text(s.items[:c_axis] + (num,) + s.items[c_axis + 1 :]))],
            )
    t = call.tensor("input")
    return TensorV(s, t.dtype if t else None)


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
    if s.rank is not None and s.rank >= 2:
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
    elif s.rank is not None and s.rank >= 2 and g is not None:
        c = s.dims[1]
        if call.facts.divisible(c, g) is False:
            call.error(
                codes.INVALID_ARG,
                f"{render_dim(c)} channels are not divisible into {render_dim(g)} groups",
                "num_groups",
            )
    return TensorV(s, (call.tensor("input") or unknown_tensor()).dtype)


@rule("group_norm_init")
def group_norm_init(call: Call) -> Value:
    g, c = call.int("num_groups"), call.int("num_channels")
    if g is not None and c is not None and call.facts.divisible(c, g) is False:
        call.error(
            codes.INVALID_ARG,
            f"num_channels={render_dim(c)} must be divisible by num_groups={render_dim(g)}",
            "num_channels",
        )
    return ModuleV(call.op.qualname.rsplit(".", 1)[0], {k: a.value for k, a in call.bound.items()})


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
    if idx is None:
        return _ERR
    dd: Dim = d if d is not None else Unknown()
    if idx.rank == 2:
        return TensorV(Shape((idx.dims[0], dd)))
    if idx.rank == 1:
        offs = call.shape("offsets")
        if offs is None or call.is_none("offsets"):
            call.error(codes.INVALID_ARG, "a 1-D input needs `offsets`", "input")
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
    x = call.shape("input")
    if x is None:
        return UnknownV()
    lstm = call.params.get("lstm", False)
    hin, hid = call.int("input_size"), call.int("hidden_size")
    layers = call.int("num_layers") or 1
    bi = 2 if call.bool("bidirectional") else 1
    proj = call.int("proj_size") if call.has("proj_size") else 0
    hout = hid if not proj else proj
    batch_first = bool(call.bool("batch_first"))
    if x.rank is not None and x.rank not in (2, 3):
        call.error(codes.RANK_MISMATCH, f"expected a 2-D (unbatched) or 3-D input, got {render_shape(x)}", "input")
        return UnknownV()
    if x.rank is None:
        return TupleV((TensorV(Shape.unknown()), UnknownV()))
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
    h0 = call.value("hx") if call.has("hx") else NONE
    if isinstance(h0, TensorV) and not lstm:
        call.match({"hx": " ".join("h" + str(i) for i in range(len(h)))}, None, {f"h{i}": v for i, v in enumerate(h)})
    output = TensorV(Shape(out))
    if lstm:
        return TupleV((output, TupleV((TensorV(Shape(h)), TensorV(Shape(c))))))
    return TupleV((output, TensorV(Shape(h))))


@rule("mha_init")
def mha_init(call: Call) -> Value:
    e, h = call.int("embed_dim"), call.int("num_heads")
    if e is not None and h is not None and call.facts.divisible(e, h) is False:
        call.error(
            codes.INVALID_ARG,
            f"embed_dim={render_dim(e)} must be divisible by num_heads={render_dim(h)}",
            "num_heads",
        )
    return ModuleV(call.op.qualname.rsplit(".", 1)[0], {k: a.value for k, a in call.bound.items()})


@rule("mha")
def mha(call: Call) -> Value:
    """nn.MultiheadAttention: ``(attn_output, attn_weights)``."""
    e = call.int("embed_dim")
    kdim = call.int("kdim") if not call.is_none("kdim") else e
    vdim = call.int("vdim") if not call.is_none("vdim") else e
    bf = bool(call.bool("batch_first"))
    q = call.shape("query")
    if q is None or q.rank is None:
        return TupleV((TensorV(Shape.unknown()), TensorV(Shape.unknown())))
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
    return TensorV(s, (call.tensor(name) or unknown_tensor()).dtype)


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
    dims = tuple(x if eq3(x, y, call.facts) is Truth.TRUE else Unknown(UnknownSource.JOIN) for x, y in zip(a.dims, b.dims))
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


@rule("interpolate")
def interpolate(call: Call) -> Value:
    s = call.shape("input")
    if s is None:
        return _ERR
    if s.rank is None:
        return TensorV(Shape.unknown())
    n = s.rank - 2
    if n < 1:
        call.error(codes.RANK_MISMATCH, f"expected at least a 3-D input [N C *spatial], got {render_shape(s)}", "input")
        return _ERR
    size_v = call.value("size")
    if not call.is_none("size"):
        size = as_dims(size_v)
        if size is not None and len(size) == 1:
            size = size * n
        if size is None or len(size) != n:
            if size is not None:
                call.error(codes.INVALID_ARG, f"size needs {n} values for {render_shape(s)}, got {len(size)}", "size")
            return TensorV(Shape(s.dims[:2] + (Unknown(),) * n))
        return TensorV(Shape(s.dims[:2] + size))
    sf = call.value("scale_factor")
    factors: list[float | None] = []
    if isinstance(sf, TupleV):
        factors = [call_float(x) for x in sf.items]
    else:
        factors = [call_float(sf)] * n
    if len(factors) != n:
        call.error(codes.INVALID_ARG, f"scale_factor needs {n} values, got {len(factors)}", "scale_factor")
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


@rule("pad")
def pad(call: Call) -> Value:
    s = call.shape("input")
    p = call.ints("pad")
    if s is None:
        return _ERR
    if p is None or s.rank is None:
        return TensorV(Shape.unknown())
    if len(p) % 2:
        call.error(codes.INVALID_ARG, f"padding length must be even, got {len(p)}", "pad")
        return _ERR
    if len(p) // 2 > s.rank:
        call.error(codes.INVALID_ARG, f"padding {len(p)} values covers more dims than {render_shape(s)} has", "pad")
        return _ERR
    items = list(s.dims)
    for j in range(len(p) // 2):
        axis = s.rank - 1 - j
        items[axis] = arith.add(arith.add(items[axis], p[2 * j]), p[2 * j + 1])
        if type(items[axis]) is int and items[axis] < 0:  # type: ignore[operator]
            call.error(codes.INVALID_ARG, f"padding makes dim {axis} negative", "pad")
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
    elif call.params.get("expand_target"):
        out = call.match({"input": "*s", "target": "*#s"}, "*s")
    else:
        out = call.match({"input": "*#s", "target": "*#s"}, "*s")
    if out is None:
        return _ERR
    return TensorV(out if red == "none" else Shape(()))


@rule("glu")
def glu(call: Call) -> Value:
    """F.glu: halves ``dim`` (which must be even)."""
    s = call.shape("input")
    if s is None:
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
    """F.prelu: ``weight`` has one value, or one per channel (dim 1; inputs of rank < 2 have one channel)."""
    x, w = call.shape("input"), call.shape("weight")
    if x is None:
        return _ERR
    if w is not None and w.rank is not None and x.rank is not None:
        size = arith.prod(w.dims)
        channels = x.dims[1] if x.rank >= 2 else 1
        if type(size) is int and size != 1 and eq3(size, channels, call.facts) is Truth.FALSE:
            call.error(
                codes.SHAPE_MISMATCH,
                f"weight {render_shape(w)} has {size} values; expected 1 or {render_dim(channels)} (the channels of {render_shape(x)})",
                "weight",
            )
            return _ERR
    t = call.tensor("input")
    return TensorV(x, t.dtype if t else None)
