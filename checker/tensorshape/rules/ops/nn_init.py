"""The checks torch's ``nn`` module constructors make on sizes (docs/torch-checks.md).

``@rule("module_init", checks="conv")`` on a stub's ``__init__`` runs the named
checks on the constructor's arguments and builds the module.  Each check reports an
error when the sizes are definite and break it (torch raises in ``__init__``), and a
runtime obligation when a size is symbolic and the check cannot be decided.
"""

from __future__ import annotations

from collections.abc import Callable

from ...lang.render import render_dim
from ...model import codes
from ...model.values import ModuleV, StrV, Value
from ..call import Call, as_dims
from ..registry import rule


def _known(call: Call, name: str) -> int | None:
    """An int constructor argument whose value is known."""
    d = call.int(name) if call.has(name) and not call.is_none(name) else None
    return d if type(d) is int else None


def require(call: Call, holds: bool | None, message: str, at: str, hint: str | None = None) -> bool:
    """Report ``message`` as an error when ``holds`` is False, an obligation when it is None."""
    if holds is False:
        call.error(codes.INVALID_ARG, message, at, hint)
        return False
    if holds is None:
        call.oblige(message, [])
    return True


def divisible(call: Call, dividend: str, divisor: str, message: str) -> bool:
    a = call.int(dividend)
    b = call.int(divisor)
    if a is None or b is None:
        return True
    if type(b) is int and b <= 0:
        return True  # reported as not positive
    return require(call, call.facts.divisible(a, b), message.format(a=render_dim(a), b=render_dim(b)), dividend)


def _conv(call: Call) -> None:
    g = _known(call, "groups")
    if g is not None and g <= 0:
        call.error(codes.INVALID_ARG, f"groups must be a positive integer, got {g}", "groups")
        return
    divisible(call, "in_channels", "groups", "in_channels={a} must be divisible by groups={b}")
    divisible(call, "out_channels", "groups", "out_channels={a} must be divisible by groups={b}")
    pad = call.value("padding") if call.has("padding") else None
    if isinstance(pad, StrV):
        if "Transpose" in call.op.qualname:
            return  # torch rejects a string padding for transposed convolutions when binding the call
        if pad.value not in ("same", "valid"):
            call.error(
                codes.INVALID_ARG, f"invalid padding string {pad.value!r}, should be 'valid' or 'same'", "padding"
            )
            return
        stride = as_dims(call.value("stride")) if call.has("stride") else (1,)
        if pad.value == "same" and stride is not None and any(type(s) is int and s != 1 for s in stride):
            call.error(
                codes.INVALID_ARG,
                "padding='same' is not supported for strided convolutions",
                "padding",
                "use stride=1, or compute the padding: (kernel_size - 1) // 2 for odd kernels",
            )
    mode = call.str("padding_mode")
    if mode is not None and mode != "zeros" and "Transpose" in call.op.qualname:
        call.error(
            codes.INVALID_ARG,
            f'only "zeros" padding mode is supported for transposed convolutions, got {mode!r}',
            "padding_mode",
        )


def _rnn(call: Call) -> None:
    for name in ("input_size", "hidden_size", "num_layers"):
        d = _known(call, name)
        if d is not None and d <= 0:
            call.error(codes.INVALID_ARG, f"{name} must be greater than zero, got {d}", name)
    proj = _known(call, "proj_size")
    if proj is None or proj == 0:
        return
    if proj < 0:
        call.error(codes.INVALID_ARG, f"proj_size should be a positive integer or zero, got {proj}", "proj_size")
        return
    hid = call.int("hidden_size")
    if hid is not None:
        holds = proj < hid if type(hid) is int else None
        require(
            call,
            holds,
            f"proj_size={proj} has to be smaller than hidden_size={render_dim(hid)}",
            "proj_size",
            "the projection maps each hidden state to proj_size < hidden_size features",
        )


def _embedding(call: Call) -> None:
    n = call.int("num_embeddings")
    if call.has("_weight") and not call.is_none("_weight"):
        # A table passed in (the private ``_weight=``) must be [num_embeddings embedding_dim].
        known = {k: d for k in ("num_embeddings", "embedding_dim") if (d := call.int(k)) is not None}
        call.match({"_weight": "num_embeddings embedding_dim"}, None, known)
    p = _known(call, "padding_idx")
    if n is None or p is None:
        return
    require(
        call,
        (-n <= p < n) if type(n) is int else None,
        f"padding_idx={p} must be within num_embeddings={render_dim(n)}",
        "padding_idx",
        "padding_idx is a row of the table: -num_embeddings <= padding_idx < num_embeddings",
    )


def _heads(embed: str, heads: str) -> Callable[[Call], None]:
    def check(call: Call) -> None:
        e, h = call.int(embed), call.int(heads)
        if type(e) is int and e <= 0 or type(h) is int and h <= 0:
            call.error(
                codes.INVALID_ARG,
                f"{embed} and {heads} must be greater than 0, got {embed}={render_dim(e or 0)} and {heads}={render_dim(h or 0)}",
                heads,
            )
            return
        divisible(call, embed, heads, f"{embed}={{a}} must be divisible by {heads}={{b}}")

    return check


def _group_norm(call: Call) -> None:
    divisible(call, "num_channels", "num_groups", "num_channels={a} must be divisible by num_groups={b}")


def _bilinear(call: Call) -> None:
    d = _known(call, "in1_features")
    if d is not None and d <= 0:
        call.error(codes.INVALID_ARG, f"in1_features must be > 0, got {d}", "in1_features")


CHECKS: dict[str, Callable[[Call], None]] = {
    "bilinear": _bilinear,
    "conv": _conv,
    "rnn": _rnn,
    "embedding": _embedding,
    "mha": _heads("embed_dim", "num_heads"),
    "transformer": _heads("d_model", "nhead"),
    "group_norm": _group_norm,
}


@rule("module_init")
def module_init(call: Call) -> Value:
    CHECKS[call.params["checks"]](call)
    return ModuleV(call.op.qualname.rsplit(".", 1)[0], {k: a.value for k, a in call.bound.items()})
