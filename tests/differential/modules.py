"""Argument strategies for the ``torch.nn`` module classes of the table."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from .cases import broadcast_partner, shape
from .harness import Call, T

S = st.integers(1, 4)
ModuleDraw = Callable[[st.DataObject], Call]


def _m(name: str, init: tuple[object, ...], args: tuple[object, ...], **init_kwargs: object) -> Call:
    return Call("module", f"torch.nn.{name}", args, {}, init, init_kwargs)


def _d(data: st.DataObject, strat: st.SearchStrategy[int] = S) -> int:
    return data.draw(strat)


def _near(data: st.DataObject, n: int) -> int:
    """Usually ``n``, sometimes a wrong size."""
    return n if data.draw(st.integers(0, 4)) else n + data.draw(st.integers(1, 2))


def linear(data: st.DataObject) -> Call:
    i, o = _d(data), _d(data)
    x = (*shape(data, 0, 2), _near(data, i))
    return _m("Linear", (i, o), (T(x),))


def lazy_linear(data: st.DataObject) -> Call:
    return _m("LazyLinear", (_d(data),), (T((*shape(data, 0, 2), _d(data)),),))


def bilinear(data: st.DataObject) -> Call:
    a, b, o, n = _d(data), _d(data), _d(data), _d(data)
    return _m("Bilinear", (a, b, o), (T((n, a)), T((_near(data, n), _near(data, b)))))


def conv(nd: int, transposed: bool) -> ModuleDraw:
    name = f"Conv{'Transpose' if transposed else ''}{nd}d"

    def draw(data: st.DataObject) -> Call:
        cin, cout, k = _d(data), _d(data), _d(data, st.integers(1, 3))
        stride, pad = _d(data, st.integers(1, 2)), _d(data, st.integers(0, 1))
        batch = (_d(data),) if data.draw(st.integers(0, 4)) else ()
        x = (*batch, _near(data, cin), *(data.draw(st.integers(1, 6)) for _ in range(nd)))
        if transposed:
            from hypothesis import assume

            assume(all((i - 1) * stride - 2 * pad + k > 0 for i in x[-nd:]))
        return _m(name, (cin, cout, k), (T(x),), stride=stride, padding=pad)

    return draw


def pool(name: str, nd: int) -> ModuleDraw:
    def draw(data: st.DataObject) -> Call:
        k = _d(data, st.integers(1, 3))
        x = (_d(data), _d(data), *(data.draw(st.integers(1, 7)) for _ in range(nd)))
        if data.draw(st.booleans()):
            x = x[1:]
        return _m(name, (k,), (T(x),), stride=data.draw(st.none() | st.integers(1, 2)))

    return draw


def adaptive(name: str, nd: int) -> ModuleDraw:
    def draw(data: st.DataObject) -> Call:
        x = (_d(data), _d(data), *(data.draw(st.integers(1, 6)) for _ in range(nd)))
        return _m(name, (_d(data),), (T(x),))

    return draw


def norm(name: str, nd: int) -> ModuleDraw:
    def draw(data: st.DataObject) -> Call:
        c = _d(data)
        spatial = tuple(data.draw(st.integers(2, 4)) for _ in range(nd))
        lead = (2,) if data.draw(st.integers(0, 4)) or "Instance" in name else ()
        return _m(name, (c,), (T((*lead, _near(data, c), *spatial)),))

    return draw


def layer_norm(name: str) -> ModuleDraw:
    def draw(data: st.DataObject) -> Call:
        s = shape(data, 1, 3)
        k = data.draw(st.integers(1, len(s)))
        normalized = tuple(_near(data, d) for d in s[-k:])
        return _m(name, (normalized,), (T(s),))

    return draw


def group_norm(data: st.DataObject) -> Call:
    g = _d(data, st.integers(1, 3))
    c = g * _d(data, st.integers(1, 2))
    return _m("GroupNorm", (g, c), (T((2, _near(data, c), 3)),))


def embedding(data: st.DataObject) -> Call:
    return _m("Embedding", (_d(data, st.integers(1, 6)), _d(data)), (T(shape(data, 0, 3), "int64"),))


def embedding_bag(data: st.DataObject) -> Call:
    return _m("EmbeddingBag", (6, _d(data)), (T((_d(data), _d(data)), "int64"),))


def rnn(name: str) -> ModuleDraw:
    def draw(data: st.DataObject) -> Call:
        i, h = _d(data), _d(data)
        layers = _d(data, st.integers(1, 2))
        bi = data.draw(st.booleans())
        bf = data.draw(st.booleans())
        seq, batch = _d(data), _d(data)
        x = (batch, seq, _near(data, i)) if bf else (seq, batch, _near(data, i))
        if data.draw(st.booleans()):
            x = x[1:] if bf else x[:1] + x[2:]  # unbatched
        return _m(name, (i, h), (T(x),), num_layers=layers, bidirectional=bi, batch_first=bf)

    return draw


def rnn_cell(name: str) -> ModuleDraw:
    def draw(data: st.DataObject) -> Call:
        i, h, n = _d(data), _d(data), _d(data)
        batched = data.draw(st.booleans())
        x = (n, _near(data, i)) if batched else (_near(data, i),)
        state = (_near(data, n), _near(data, h)) if batched else (_near(data, h),)
        if data.draw(st.integers(0, 5)) == 0:
            state = state[1:] if batched else (n, *state)  # a state of the other rank
        if not data.draw(st.integers(0, 2)):
            return _m(name, (i, h), (T(x),))
        hx: object = (T(state), T(state[:-1] + (_near(data, h),))) if name == "LSTMCell" else T(state)
        return _m(name, (i, h), (T(x), hx))

    return draw


def mha(data: st.DataObject) -> Call:
    heads = _d(data, st.integers(1, 3))
    e = heads * _d(data, st.integers(1, 2))
    bf = data.draw(st.booleans())
    L, S_, N = _d(data), _d(data), _d(data)

    def seq(n: int, width: int) -> T:
        return T((N, n, width) if bf else (n, N, width))

    return _m("MultiheadAttention", (e, heads), (seq(L, e), seq(S_, _near(data, e)), seq(S_, e)), batch_first=bf)


def encoder_layer(name: str) -> ModuleDraw:
    def draw(data: st.DataObject) -> Call:
        heads = _d(data, st.integers(1, 2))
        d = heads * _d(data, st.integers(1, 3))
        x = T((_d(data), _d(data), _near(data, d)))
        args: tuple[object, ...] = (x, T((_d(data), x.shape[1], d))) if "Decoder" in name else (x,)
        return _m(name, (d, heads, 8), args)

    return draw


def transformer(data: st.DataObject) -> Call:
    heads = _d(data, st.integers(1, 2))
    d = heads * _d(data, st.integers(1, 2))
    batch_first = data.draw(st.booleans())
    n = _d(data)
    src = (n, _d(data), _near(data, d)) if batch_first else (_d(data), n, _near(data, d))
    tgt = (_near(data, n), _d(data), _near(data, d)) if batch_first else (_d(data), _near(data, n), _near(data, d))
    return _m("Transformer", (d, heads, 1, 1, 8, 0.0), (T(src), T(tgt)), batch_first=batch_first)


def same(name: str, init: tuple[object, ...] = ()) -> ModuleDraw:
    def draw(data: st.DataObject) -> Call:
        return _m(name, init, (T(shape(data, 0, 4)),))

    return draw


def flatten(data: st.DataObject) -> Call:
    return _m("Flatten", (), (T(shape(data, 1, 4)),))


def unflatten(data: st.DataObject) -> Call:
    s = shape(data, 2, 3)
    a = _d(data)
    return _m("Unflatten", (1, (a, -1)), (T((s[0], a * _d(data) if data.draw(st.integers(0, 4)) else a + 1 + 1 * 0)),))


def upsample(data: st.DataObject) -> Call:
    nd = _d(data, st.integers(1, 3))
    return _m("Upsample", (), (T((1, 2, *(data.draw(st.integers(1, 4)) for _ in range(nd)))),), scale_factor=2)


def pixel_shuffle(data: st.DataObject) -> Call:
    r = _d(data, st.integers(1, 3))
    c = _d(data, st.integers(1, 2)) * r * r + (0 if data.draw(st.integers(0, 4)) else 1)
    return _m("PixelShuffle", (r,), (T((1, c, 2, 3)),))


def pixel_unshuffle(data: st.DataObject) -> Call:
    r = _d(data, st.integers(1, 2))
    h = r * _d(data, st.integers(1, 2)) + (0 if data.draw(st.integers(0, 4)) else 1)
    return _m("PixelUnshuffle", (r,), (T((1, 2, h, 2 * r)),))


def loss(name: str) -> ModuleDraw:
    def draw(data: st.DataObject) -> Call:
        s = shape(data, 0, 3)
        other = s if data.draw(st.integers(0, 3)) else broadcast_partner(data, s)
        return _m(name, (), (T(s), T(other)))

    return draw


def class_loss(name: str) -> ModuleDraw:
    def draw(data: st.DataObject) -> Call:
        n, c = _d(data), _d(data)
        return _m(name, (), (T((n, c)), T((_near(data, n),), "int64")))

    return draw


def softmax(name: str) -> ModuleDraw:
    def draw(data: st.DataObject) -> Call:
        s = shape(data, 1, 3)
        return _m(name, (), (T(s),), dim=data.draw(st.integers(-len(s) - 1, len(s))))

    return draw


def prelu(data: st.DataObject) -> Call:
    return _m("PReLU", (), (T(shape(data, 1, 3)),))


def sequential(data: st.DataObject) -> Call:
    a, b, c = _d(data), _d(data), _d(data)
    return Call(
        "function",
        "sequential",
        (T((_d(data), _near(data, a))),),
        {},
        ((a, b), (_near(data, b), c)),
    )


def einops_layer(name: str) -> ModuleDraw:
    def draw(data: st.DataObject) -> Call:
        from .cases import _einops_case

        shape_, left, order, kw = _einops_case(data)
        right = order.split()
        if name == "Reduce":
            right = right[: data.draw(st.integers(0, len(right)))]
            init: tuple[object, ...] = (f"{left} -> {' '.join(right)}", "max")
        elif name == "Repeat":
            kw = {**kw, "z": 2}
            init = (f"{left} -> {' '.join(right)} z",)
        else:
            init = (f"{left} -> {' '.join(right)}",)
        return Call("module", f"einops.layers.torch.{name}", (T(shape_),), {}, init, kw)

    return draw


def padding(kind: str, nd: int) -> ModuleDraw:
    """The padding modules: an int or a tuple of pads (sometimes of an odd length, or negative),
    on inputs of every rank around the ones the mode takes, some too small for reflect padding."""

    def draw(data: st.DataObject) -> Call:
        if data.draw(st.booleans(), label="int padding"):
            pad: object = data.draw(st.integers(0, 3))
        else:
            k = 2 * data.draw(st.integers(1, nd)) + (0 if data.draw(st.integers(0, 6)) else 1)
            pad = tuple(data.draw(st.integers(-1, 3)) for _ in range(k))
        init: tuple[object, ...] = (pad, 0.5) if kind == "Constant" else (pad,)
        x = T(shape(data, max(nd - 1, 1), nd + 2, st.integers(1, 5)))
        return _m(f"{kind}Pad{nd}d", init, (x,))

    return draw


MODULES: dict[str, ModuleDraw] = {
    **{name: einops_layer(name) for name in ("Rearrange", "Reduce")},
    "Linear": linear,
    "LazyLinear": lazy_linear,
    "Bilinear": bilinear,
    **{f"Conv{n}d": conv(n, False) for n in (1, 2, 3)},
    **{f"ConvTranspose{n}d": conv(n, True) for n in (1, 2, 3)},
    **{f"{k}Pool{n}d": pool(f"{k}Pool{n}d", n) for k in ("Max", "Avg") for n in (1, 2, 3)},
    **{f"AdaptiveAvgPool{n}d": adaptive(f"AdaptiveAvgPool{n}d", n) for n in (1, 2, 3)},
    **{f"AdaptiveMaxPool{n}d": adaptive(f"AdaptiveMaxPool{n}d", n) for n in (1, 2)},
    **{f"BatchNorm{n}d": norm(f"BatchNorm{n}d", n - 1 if n > 1 else 1) for n in (1, 2, 3)},
    **{f"InstanceNorm{n}d": norm(f"InstanceNorm{n}d", n) for n in (1, 2)},
    "LayerNorm": layer_norm("LayerNorm"),
    "RMSNorm": layer_norm("RMSNorm"),
    "GroupNorm": group_norm,
    "Embedding": embedding,
    "EmbeddingBag": embedding_bag,
    **{name: rnn(name) for name in ("RNN", "LSTM", "GRU")},
    **{name: rnn_cell(name) for name in ("RNNCell", "GRUCell", "LSTMCell")},
    "MultiheadAttention": mha,
    "TransformerEncoderLayer": encoder_layer("TransformerEncoderLayer"),
    "TransformerDecoderLayer": encoder_layer("TransformerDecoderLayer"),
    "Transformer": transformer,
    "Flatten": flatten,
    "Unflatten": unflatten,
    "Upsample": upsample,
    "PixelShuffle": pixel_shuffle,
    "PixelUnshuffle": pixel_unshuffle,
    "PReLU": prelu,
    **{name: loss(name) for name in ("MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "KLDivLoss")},
    **{name: class_loss(name) for name in ("CrossEntropyLoss", "NLLLoss")},
    **{name: softmax(name) for name in ("Softmax", "Softmin", "LogSoftmax")},
    **{
        name: same(name)
        for name in (
            "Identity", "Dropout", "AlphaDropout", "ReLU", "ReLU6", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish",
            "Sigmoid", "Tanh", "Hardsigmoid", "Hardswish", "Hardtanh", "LeakyReLU", "LogSigmoid", "Softplus",
            "Softsign", "Tanhshrink",
        )
    },
    "Threshold": same("Threshold", (0.1, 0.0)),
    **{
        f"{kind}Pad{n}d": padding(kind, n)
        for kind in ("Zero", "Constant", "Reflection", "Replication", "Circular")
        for n in (1, 2, 3)
    },
}

#: Module classes without a differential case, and why.
EXCLUDED_MODULES = {
    "Module": "the base class: no shape behaviour",
    "ModuleList": "a container: its members are checked through test_examples and the front-end tests",
    "ModuleDict": "a container: as ModuleList",
    "Sequential": "a container: calling it applies its members' rules, covered in tests/infer",
    "TransformerEncoder": "stacks TransformerEncoderLayer (covered); built from a layer instance, not from sizes",
    "BCELoss": "needs inputs in [0, 1]: values, not shapes, decide its errors",
    "BCEWithLogitsLoss": "as BCELoss (the functional forms are covered)",
    "Dropout1d": "channel dropout: covered through torch.nn.functional.dropout1d",
    "Dropout2d": "covered through torch.nn.functional.dropout2d",
    "Dropout3d": "covered through torch.nn.functional.dropout3d",
}
