"""Named calls that make torch raise one specific shape or size check (see docs/torch-checks.md).

Each case id in ``CASES`` is cited by an entry of ``torch_checks.toml``; ``OK`` holds the
near misses that must pass (the check is exact, not a blanket error).  The suite asserts
torch raises on every case of ``CASES``, succeeds on every case of ``OK``, and that the
rule agrees with torch on both.
"""

from __future__ import annotations

from typing import Any

from .harness import Call, P, T


def f(name: str, *args: Any, **kwargs: Any) -> Call:
    return Call("function", name if name.startswith("torch.") else f"torch.nn.functional.{name}", args, kwargs)


def m(name: str, *args: Any, **kwargs: Any) -> Call:
    return Call("method", f"torch.Tensor.{name}", args, kwargs)


def mod(
    name: str, init: tuple[Any, ...], args: tuple[Any, ...], kwargs: dict[str, Any] | None = None, **init_kwargs: Any
) -> Call:
    return Call("module", f"torch.nn.{name}", args, kwargs or {}, init, init_kwargs)


X4 = T((2, 4, 8, 8))
_PACK = "torch.nn.utils.rnn.pack_padded_sequence"
_PAD_PACKED = "torch.nn.utils.rnn.pad_packed_sequence"

#: Calls on which torch raises.
CASES: dict[str, Call] = {
    # conv
    "conv2d-same-stride": f("conv2d", X4, T((4, 4, 3, 3)), None, 2, "same"),
    "Conv2d-same-stride": mod("Conv2d", (4, 4, 3), (X4,), stride=2, padding="same"),
    "Conv2d-bad-padding-str": mod("Conv2d", (4, 4, 3), (X4,), padding="full"),
    "Conv2d-in-groups": mod("Conv2d", (4, 6, 3), (X4,), groups=3),
    "Conv2d-out-groups": mod("Conv2d", (4, 6, 3), (X4,), groups=4),
    "Conv2d-groups-zero": mod("Conv2d", (4, 4, 3), (X4,), groups=0),
    "Conv2d-kernel-too-big": mod("Conv2d", (4, 4, 9), (X4,)),
    "Conv2d-out-zero": mod("Conv2d", (4, 0, 3), (X4,)),
    "conv1d-empty-weight": f("conv1d", T((2, 4, 8)), T((0, 4, 3))),
    "ConvTranspose2d-out-zero": mod("ConvTranspose2d", (4, 0, 3), (T((1, 4, 6, 6)),)),
    "Transformer-batch": mod("Transformer", (4, 2, 1, 1, 8, 0.0), (T((3, 2, 4)), T((5, 3, 4)))),
    "Transformer-batch-first": mod(
        "Transformer", (4, 2, 1, 1, 8, 0.0), (T((2, 3, 4)), T((3, 5, 4))), batch_first=True
    ),
    "Transformer-d-model": mod("Transformer", (4, 2, 1, 1, 8, 0.0), (T((3, 2, 4)), T((5, 2, 6)))),
    "conv2d-weight-groups": f("conv2d", X4, T((6, 4, 3, 3)), None, 1, 0, 1, 2),
    "conv2d-out-groups": f("conv2d", X4, T((3, 2, 3, 3)), None, 1, 0, 1, 2),
    "conv2d-bias": f("conv2d", X4, T((4, 4, 3, 3)), T((3,))),
    "conv2d-stride-zero": f("conv2d", X4, T((4, 4, 3, 3)), None, 0),
    "conv2d-neg-padding": f("conv2d", X4, T((4, 4, 3, 3)), None, 1, -1),
    "conv2d-dilation-zero": f("conv2d", X4, T((4, 4, 3, 3)), None, 1, 0, 0),
    "ConvTranspose2d-out-padding": mod("ConvTranspose2d", (4, 4, 3), (X4,), stride=2, output_padding=2),
    "Conv2d-reflect-pad-too-big": mod("Conv2d", (4, 4, 3), (T((1, 4, 2, 2)),), padding=2, padding_mode="reflect"),
    # pooling
    "max_pool2d-padding": f("max_pool2d", X4, 2, 2, 2),
    "max_pool2d-stride-zero": f("max_pool2d", X4, 2, 0),
    "avg_pool2d-padding": f("avg_pool2d", X4, 2, 2, 2),
    "max_pool2d-dilation-zero": f("max_pool2d", X4, 2, 2, 0, 0),
    "adaptive_avg_pool2d-zero-dim": f("adaptive_avg_pool2d", T((2, 4, 0, 8)), 2),
    "adaptive_avg_pool2d-neg": f("adaptive_avg_pool2d", X4, -1),
    # pad
    "pad-odd": f("pad", X4, (1, 1, 1)),
    "pad-too-many": f("pad", T((3,)), (1, 1, 1, 1)),
    "pad-reflect-too-big": f("pad", T((1, 2, 3)), (3, 3), mode="reflect"),
    "pad-circular-too-big": f("pad", T((1, 2, 3)), (4, 4), mode="circular"),
    # interpolate
    "interpolate-both": f("interpolate", X4, size=(4, 4), scale_factor=2.0),
    "interpolate-neither": f("interpolate", X4),
    "interpolate-align-nearest": f("interpolate", X4, size=8, align_corners=True),
    # embedding
    "embedding-padding-idx": f("embedding", T((3,), "int64"), T((5, 2)), 5),
    "embedding-padding-idx-neg": f("embedding", T((3,), "int64"), T((5, 2)), -6),
    "Embedding-padding-idx": mod("Embedding", (5, 2), (T((3,), "int64"),), padding_idx=5),
    "Embedding-padding-idx-neg": mod("Embedding", (5, 2), (T((3,), "int64"),), padding_idx=-6),
    "EmbeddingBag-2d-offsets": mod("EmbeddingBag", (5, 2), (T((2, 3), "int64"), T((2,), "int64"))),
    "EmbeddingBag-1d-no-offsets": mod("EmbeddingBag", (5, 2), (T((3,), "int64"),)),
    # norms
    "layer_norm-trailing": f("layer_norm", T((2, 3, 4)), (3,)),
    "LayerNorm-trailing": mod("LayerNorm", (3,), (T((2, 3, 4)),)),
    "layer_norm-weight": f("layer_norm", T((2, 3, 4)), (4,), T((3,))),
    "batch_norm-one-value": f("batch_norm", T((1, 3)), None, None, training=True),
    "batch_norm-running": f("batch_norm", T((2, 3)), T((4,)), T((4,))),
    "BatchNorm1d-rank": mod("BatchNorm1d", (3,), (T((2, 3, 4, 5)),)),
    "BatchNorm2d-channels": mod("BatchNorm2d", (3,), (T((2, 4, 5, 5)),)),
    "GroupNorm-divisible": mod("GroupNorm", (3, 4), (T((2, 4, 5)),)),
    "group_norm-divisible": f("group_norm", T((2, 4, 5)), 3),
    "group_norm-weight": f("group_norm", T((2, 4, 5)), 2, T((3,))),
    "instance_norm-one-value": f("instance_norm", T((2, 3, 1))),
    "InstanceNorm1d-channels": mod("InstanceNorm1d", (3,), (T((2, 4, 5)),), affine=True),
    # rnn
    "LSTM-proj-ge-hidden": mod("LSTM", (4, 3), (T((5, 2, 4)),), proj_size=3),
    "LSTM-proj-neg": mod("LSTM", (4, 3), (T((5, 2, 4)),), proj_size=-1),
    "LSTM-h0-proj": mod("LSTM", (4, 3), (T((5, 2, 4)), (T((1, 2, 3)), T((1, 2, 3)))), proj_size=2),
    "LSTM-c0": mod("LSTM", (4, 3), (T((5, 2, 4)), (T((1, 2, 3)), T((1, 2, 2))))),
    "LSTM-h0": mod("LSTM", (4, 3), (T((5, 2, 4)), (T((2, 2, 3)), T((1, 2, 3))))),
    "LSTM-unbatched-h0-3d": mod("LSTM", (4, 3), (T((5, 4)), (T((1, 2, 3)), T((1, 2, 3))))),
    "GRU-h0-batch-first": mod("GRU", (4, 3), (T((2, 5, 4)), T((1, 5, 3))), batch_first=True),
    "RNN-unbatched-h0-3d": mod("RNN", (4, 3), (T((5, 4)), T((1, 1, 3)))),
    "RNN-h0-layers": mod("RNN", (4, 3), (T((5, 2, 4)), T((1, 2, 3))), num_layers=2),
    "RNN-hidden-zero": mod("RNN", (4, 0), (T((5, 2, 4)),)),
    "RNN-layers-zero": mod("RNN", (4, 3), (T((5, 2, 4)),), num_layers=0),
    "RNN-input-size": mod("RNN", (4, 3), (T((5, 2, 5)),)),
    # attention
    "MHA-embed-heads": mod("MultiheadAttention", (6, 4), (T((3, 2, 6)),) * 3),
    "MHA-kpm-shape": mod("MultiheadAttention", (4, 2), (T((3, 2, 4)),) * 3, {"key_padding_mask": T((3, 3), "bool")}),
    "MHA-kpm-batch-first": mod(
        "MultiheadAttention",
        (4, 2),
        (T((2, 3, 4)), T((2, 5, 4)), T((2, 5, 4))),
        {"key_padding_mask": T((5, 2), "bool")},
        batch_first=True,
    ),
    "MHA-attn-mask-2d": mod(
        "MultiheadAttention", (4, 2), (T((3, 2, 4)), T((5, 2, 4)), T((5, 2, 4))), {"attn_mask": T((5, 3), "bool")}
    ),
    "MHA-attn-mask-3d": mod(
        "MultiheadAttention", (4, 2), (T((3, 2, 4)), T((5, 2, 4)), T((5, 2, 4))), {"attn_mask": T((2, 3, 5), "bool")}
    ),
    "MHA-attn-mask-unbatched": mod(
        "MultiheadAttention", (4, 2), (T((3, 4)), T((5, 4)), T((5, 4))), {"attn_mask": T((4, 3, 5), "bool")}
    ),
    "MHA-kpm-unbatched": mod(
        "MultiheadAttention", (4, 2), (T((3, 4)), T((5, 4)), T((5, 4))), {"key_padding_mask": T((1, 5), "bool")}
    ),
    "MHA-key-value-len": mod("MultiheadAttention", (4, 2), (T((3, 2, 4)), T((5, 2, 4)), T((6, 2, 4)))),
    "MHA-query-rank-key": mod("MultiheadAttention", (4, 2), (T((3, 2, 4)), T((5, 4)), T((5, 4)))),
    "TransformerEncoderLayer-src-mask": mod(
        "TransformerEncoderLayer", (4, 2, 8, 0.0), (T((3, 2, 4)),), {"src_mask": T((2, 2), "bool")}
    ),
    "TransformerEncoderLayer-kpm": mod(
        "TransformerEncoderLayer", (4, 2, 8, 0.0), (T((3, 2, 4)),), {"src_key_padding_mask": T((3, 2), "bool")}
    ),
    "TransformerDecoderLayer-memory": mod("TransformerDecoderLayer", (4, 2, 8, 0.0), (T((3, 2, 4)), T((5, 3, 4)))),
    "TransformerEncoderLayer-heads": mod("TransformerEncoderLayer", (6, 4, 8, 0.0), (T((3, 2, 6)),)),
    "sdpa-mask": f("scaled_dot_product_attention", T((2, 2, 3, 4)), T((2, 2, 5, 4)), T((2, 2, 5, 4)), T((3, 3))),
    # torch's CPU kernel does not check the value's length (it reads past it); the meta kernel does.
    "sdpa-value-len": Call("function", "torch.nn.functional.scaled_dot_product_attention", (T((2, 2, 3, 4)), T((2, 2, 5, 4)), T((2, 2, 6, 4))), {}, meta=True),
    "sdpa-gqa": f("scaled_dot_product_attention", T((2, 4, 3, 4)), T((2, 3, 5, 4)), T((2, 3, 5, 4)), enable_gqa=True),
    # losses
    "cross_entropy-target-batch": f("cross_entropy", T((2, 3)), T((3,), "int64")),
    "cross_entropy-probs-shape": f("cross_entropy", T((2, 3)), T((2, 4))),
    "cross_entropy-weight": f("cross_entropy", T((2, 3)), T((2,), "int64"), T((4,))),
    "nll_loss-weight": f("nll_loss", T((2, 3)), T((2,), "int64"), T((4,))),
    "nll_loss-target-1d": f("nll_loss", T((3,)), T((2,), "int64")),
    "cross_entropy-3d-target": f("cross_entropy", T((2, 3, 4)), T((2, 5), "int64")),
    "mse_loss-broadcast": f("mse_loss", T((2, 3)), T((4, 3))),
    "binary_cross_entropy-shape": f("binary_cross_entropy", T((2, 3)), T((3,))),
    "bce_logits-weight": f("binary_cross_entropy_with_logits", T((2, 3)), T((2, 3)), T((4,))),
    "bce_logits-pos-weight": f("binary_cross_entropy_with_logits", T((2, 3)), T((2, 3)), pos_weight=T((4,))),
    "kl_div-shape": f("kl_div", T((2, 3)), T((4, 3))),
    "gaussian_nll_loss-var": f("gaussian_nll_loss", T((2, 3)), T((2, 3)), T((2, 2))),
    "CrossEntropyLoss-target": mod("CrossEntropyLoss", (), (T((2, 3)), T((3,), "int64"))),
    # linear / bilinear / misc nn
    "Linear-in": mod("Linear", (4, 2), (T((3, 5)),)),
    "linear-bias": f("linear", T((3, 4)), T((2, 4)), T((3,))),
    "Bilinear-batch": mod("Bilinear", (2, 3, 4), (T((2, 2)), T((3, 3)))),
    "bilinear-bias": f("bilinear", T((2, 2)), T((2, 3)), T((4, 2, 3)), T((5,))),
    "Unflatten-product": mod("Unflatten", (1, (2, 3)), (T((2, 5)),)),
    "Flatten-start-end": mod("Flatten", (2, 1), (T((2, 3, 4)),)),
    "PixelShuffle-divisible": mod("PixelShuffle", (2,), (T((1, 6, 2, 2)),)),
    "pixel_shuffle-rank": f("pixel_shuffle", T((6, 2)), 2),
    "PixelUnshuffle-divisible": mod("PixelUnshuffle", (2,), (T((1, 1, 3, 4)),)),
    "glu-odd": f("glu", T((2, 3))),
    "prelu-weight": f("prelu", T((2, 3)), T((2,))),
    "cosine_similarity-shape": f("cosine_similarity", T((2, 3)), T((4, 3))),
    "pairwise_distance-shape": f("pairwise_distance", T((2, 3)), T((4, 3))),
    "grid_sample-batch": f("grid_sample", X4, T((3, 2, 2, 2))),
    "grid_sample-last": f("grid_sample", X4, T((2, 2, 2, 3))),
    "dropout2d-rank": f("dropout2d", T((3,))),
    "dropout1d-rank": f("dropout1d", T((2, 3, 4, 5))),
    "softmax-dim": f("softmax", T((2, 3)), 2),
    "normalize-dim": f("normalize", T((2, 3)), 2.0, 2),
    # added by the sweep of torch's Python checks
    "glu-scalar": f("glu", T(())),
    "embedding_bag-per-sample-weights": f("embedding_bag", T((2, 3), "int64"), T((5, 2)), per_sample_weights=T((2, 2)), mode="sum"),
    "embedding_bag-weight-rank": f("embedding_bag", T((2, 3), "int64"), T((5,))),
    "embedding_bag-offsets-2d": f("embedding_bag", T((3,), "int64"), T((5, 2)), T((1, 1), "int64")),
    "embedding_bag-input-3d": f("embedding_bag", T((1, 2, 3), "int64"), T((5, 2))),
    "EmbeddingBag-padding-idx": mod("EmbeddingBag", (5, 2), (T((2, 3), "int64"),), padding_idx=5),
    "group_norm-rank": f("group_norm", T((4,)), 2),
    "group_norm-one-value": f("group_norm", T((1, 4)), 4),
    "bce_logits-shape": f("binary_cross_entropy_with_logits", T((2, 3)), T((3,))),
    "mse_loss-weight": f("mse_loss", T((2, 3)), T((2, 3)), weight=T((3,))),
    "huber_loss-weight": f("huber_loss", T((2, 3)), T((2, 3)), weight=T((1, 3))),
    "interpolate-size-len": f("interpolate", X4, size=(2, 2, 2)),
    "interpolate-scale-len": f("interpolate", X4, scale_factor=(2.0, 2.0, 2.0)),
    "MHA-kpm-rank-batched": mod("MultiheadAttention", (4, 2), (T((3, 2, 4)),) * 3, {"key_padding_mask": T((3,), "bool")}),
    "MHA-attn-mask-4d": mod("MultiheadAttention", (4, 2), (T((3, 2, 4)),) * 3, {"attn_mask": T((1, 4, 3, 3), "bool")}),
    "MHA-unbatched-key-3d": mod("MultiheadAttention", (4, 2), (T((3, 4)), T((5, 2, 4)), T((5, 2, 4)))),
    "MHA-unbatched-attn-mask-4d": mod("MultiheadAttention", (4, 2), (T((3, 4)),) * 3, {"attn_mask": T((1, 2, 3, 3), "bool")}),
    "MHA-query-4d": mod("MultiheadAttention", (4, 2), (T((1, 3, 2, 4)),) * 3),
    "MHA-kpm-len": mod("MultiheadAttention", (4, 2), (T((3, 2, 4)), T((5, 2, 4)), T((5, 2, 4))), {"key_padding_mask": T((2, 4), "bool")}),
    "MHA-embed": mod("MultiheadAttention", (4, 2), (T((3, 2, 6)), T((3, 2, 4)), T((3, 2, 4)))),
    "MHA-kdim-kv-len": mod("MultiheadAttention", (4, 2), (T((3, 2, 4)), T((5, 2, 3)), T((6, 2, 5))), kdim=3, vdim=5),
    "MHA-embed-zero": mod("MultiheadAttention", (0, 2), (T((3, 2, 0)),) * 3),
    "BatchNorm2d-rank": mod("BatchNorm2d", (3,), (T((2, 3, 4)),)),
    "BatchNorm3d-rank": mod("BatchNorm3d", (3,), (T((2, 3, 4, 4)),)),
    "InstanceNorm1d-rank": mod("InstanceNorm1d", (3,), (T((2, 3, 4, 4)),)),
    "InstanceNorm2d-rank": mod("InstanceNorm2d", (3,), (T((3, 4)),)),
    "Bilinear-in1-zero": mod("Bilinear", (0, 3, 4), (T((2, 0)), T((2, 3)))),
    "RNN-input-zero": mod("RNN", (0, 3), (T((5, 2, 0)),)),
    "RNN-rank": mod("RNN", (4, 3), (T((1, 5, 2, 4)),)),
    "RNN-batched-h0-2d": mod("RNN", (4, 3), (T((5, 2, 4)), T((1, 3)))),
    "LSTM-rank": mod("LSTM", (4, 3), (T((4,)),)),
    "LSTM-batched-h0-2d": mod("LSTM", (4, 3), (T((5, 2, 4)), (T((1, 3)), T((1, 3))))),
    "GRU-rank": mod("GRU", (4, 3), (T((1, 5, 2, 4)),)),
    "GRU-unbatched-h0-3d": mod("GRU", (4, 3), (T((5, 4)), T((1, 1, 3)))),
    "GRU-batched-h0-2d": mod("GRU", (4, 3), (T((5, 2, 4)), T((1, 3)))),
    "RNNCell-input-rank": mod("RNNCell", (4, 3), (T((1, 2, 4)),)),
    "RNNCell-hidden-rank": mod("RNNCell", (4, 3), (T((2, 4)), T((1, 2, 3)))),
    "GRUCell-input-rank": mod("GRUCell", (4, 3), (T((1, 2, 4)),)),
    "GRUCell-hidden-rank": mod("GRUCell", (4, 3), (T((2, 4)), T((1, 2, 3)))),
    "LSTMCell-input-rank": mod("LSTMCell", (4, 3), (T((1, 2, 4)),)),
    "LSTMCell-hx-rank": mod("LSTMCell", (4, 3), (T((2, 4)), (T((1, 2, 3)), T((2, 3))))),
    "ConvTranspose2d-output-size-len": mod("ConvTranspose2d", (4, 4, 3), (X4,), {"output_size": (17,)}, stride=2),
    "ConvTranspose2d-output-size-range": mod("ConvTranspose2d", (4, 4, 3), (X4,), {"output_size": (19, 19)}, stride=2),
    # tensor ops
    "add_-broadcast-dest": m("add_", T((3, 1)), T((3, 4))),
    "mul_-broadcast-dest": m("mul_", T((4,)), T((3, 4))),
    "cat-rank": f("torch.cat", [T((2, 3)), T((2,))]),
    "cat-sizes": f("torch.cat", [T((2, 3)), T((2, 4))]),
    "cat-empty": f("torch.cat", []),
    "stack-shapes": f("torch.stack", [T((2, 3)), T((2, 4))]),
    "pad_sequence-empty": f("torch.nn.utils.rnn.pad_sequence", []),
    "pad_sequence-trailing": f("torch.nn.utils.rnn.pad_sequence", [T((3, 4)), T((3, 5))]),
    "pad_sequence-rank": f("torch.nn.utils.rnn.pad_sequence", [T((3, 4)), T((2, 2, 4))]),
    "pad_sequence-scalar": f("torch.nn.utils.rnn.pad_sequence", [T((3, 4)), T(())]),
    # packed sequences
    "pack_padded_sequence-count": f(_PACK, T((4, 7, 5)), [7, 5, 3], batch_first=True),
    "pack_padded_sequence-count-time-major": f(_PACK, T((7, 4, 5)), [4, 3, 2, 1, 1, 1, 1]),
    "pack_padded_sequence-lengths-2d": f(_PACK, T((4, 7, 5)), T((1, 4), "int64"), batch_first=True),
    "pack_padded_sequence-unsorted": f(_PACK, T((4, 7, 5)), [1, 5, 3, 7], batch_first=True),
    "pack_padded_sequence-zero": f(_PACK, T((4, 7, 5)), [7, 5, 3, 0], batch_first=True),
    "pack_padded_sequence-rank": f(_PACK, T((4,)), [1, 1, 1, 1]),
    "pack_sequence-unsorted": f("torch.nn.utils.rnn.pack_sequence", [T((2, 3)), T((5, 3))]),
    "pack_sequence-trailing": f("torch.nn.utils.rnn.pack_sequence", [T((5, 3)), T((2, 4))]),
    "pack_sequence-empty": f("torch.nn.utils.rnn.pack_sequence", []),
    "pad_packed_sequence-total-length": f(_PAD_PACKED, P((5, 2), (3,)), batch_first=True, total_length=4),
    "GRU-packed-input-size": mod("GRU", (4, 6), (P((5, 2), (3,)),)),
    "LSTM-packed-h0-batch": mod("LSTM", (3, 6), (P((5, 2), (3,)), (T((1, 3, 6)), T((1, 2, 6))))),
    "RNN-packed-h0-layers": mod("RNN", (3, 6), (P((5, 2), (3,)), T((1, 2, 6))), num_layers=2),
    "chunk-zero": m("chunk", T((4,)), 0),
    "split-sizes-sum": m("split", T((4,)), [1, 2]),
    "split-size-neg": m("split", T((4,)), -1),
    "repeat-few": m("repeat", T((2, 3)), 2),
    "expand-non-singleton": m("expand", T((2, 3)), 4, 3),
    "expand-few": m("expand", T((2, 3)), 3),
    "expand-new-neg": m("expand", T((3,)), -1, 3),
    "flatten-start-end": m("flatten", T((2, 3, 4)), 2, 1),
    "transpose-range": m("transpose", T((2, 3)), 0, 2),
    "narrow-bounds": m("narrow", T((4,)), 0, 2, 3),
    "narrow-neg-length": m("narrow", T((4,)), 0, 1, -1),
    "topk-k": m("topk", T((4,)), 5),
    "multinomial-rank": f("torch.multinomial", T((2, 3, 4)), 1),
    "multinomial-zero": f("torch.multinomial", T((4, 10)), 0),
    "multinomial-without-replacement": m("multinomial", T((4, 10)), 11),
    "kthvalue-k": m("kthvalue", T((4,)), 5),
    "triu-rank": f("torch.triu", T((3,))),
    "index_select-index-rank": f("torch.index_select", T((3, 4)), 0, T((2, 2), "int64")),
    "gather-rank": f("torch.gather", T((3, 4)), 0, T((2,), "int64")),
    "gather-size": f("torch.gather", T((3, 4)), 0, T((2, 5), "int64")),
    "bmm-rank": f("torch.bmm", T((2, 3)), T((3, 4))),
    "bmm-batch": f("torch.bmm", T((2, 3, 4)), T((3, 4, 5))),
    "baddbmm-input": f("torch.baddbmm", T((2, 3, 6)), T((2, 3, 4)), T((2, 4, 5))),
    "addmm-input": f("torch.addmm", T((3, 6)), T((3, 4)), T((4, 5))),
    "mm-rank": f("torch.mm", T((3,)), T((3, 4))),
    "mv-shape": f("torch.mv", T((3, 4)), T((3,))),
    "dot-size": f("torch.dot", T((3,)), T((4,))),
    "outer-rank": f("torch.outer", T((3, 1)), T((4,))),
    "squeeze-range": m("squeeze", T((2, 3)), 2),
    "unsqueeze-range": m("unsqueeze", T((2, 3)), 3),
    "movedim-repeated": f("torch.movedim", T((2, 3, 4)), (0, 0), (1, 2)),
    "permute-repeated": m("permute", T((2, 3)), 0, 0),
    "reshape-numel": m("reshape", T((2, 3)), 4, -1),
    "view-two-neg": m("view", T((2, 3)), -1, -1),
    "unflatten-product": m("unflatten", T((2, 6)), 1, (4, 2)),
    "masked_fill-broadcast": m("masked_fill", T((2, 3)), T((4, 3), "bool"), 0.0),
    "where-broadcast": f("torch.where", T((2, 3), "bool"), T((2, 3)), T((4, 3))),
    "unbind-range": m("unbind", T((2, 3)), 2),
    "index_add-size": m("index_add", T((3, 4)), 0, T((2,), "int64"), T((3, 4))),
    "scatter-rank": m("scatter", T((3, 4)), 0, T((2,), "int64"), T((3, 4))),
    "flip-repeated": f("torch.flip", T((3, 4)), (0, 0)),
    "roll-shifts-dims": f("torch.roll", T((3, 4)), (1, 2), (0,)),
    "roll-shifts-no-dims": f("torch.roll", T((3, 4)), (1, 2)),
    "einsum-size": f("torch.einsum", "ij,jk->ik", T((2, 3)), T((4, 5))),
}

#: Calls on which torch raises NotImplementedError for a rank the mode does not take.
NOT_IMPLEMENTED: dict[str, Call] = {
    "pad-reflect-dims": f("pad", T((1, 2, 3)), (1, 1, 1, 1, 1, 1), mode="reflect"),
    "pad-replicate-rank": f("pad", T((3,)), (1, 1), mode="replicate"),
    "interpolate-bilinear-3d": f("interpolate", T((1, 2, 4)), size=8, mode="bilinear"),
    "interpolate-linear-4d": f("interpolate", X4, size=8, mode="linear"),
    "interpolate-trilinear-3d": f("interpolate", T((1, 2, 4)), size=8, mode="trilinear"),
    "interpolate-trilinear-4d": f("interpolate", X4, size=8, mode="trilinear"),
    "interpolate-linear-5d": f("interpolate", T((1, 2, 2, 2, 2)), size=4, mode="linear"),
    "interpolate-bilinear-5d": f("interpolate", T((1, 2, 2, 2, 2)), size=4, mode="bilinear"),
    "interpolate-6d": f("interpolate", T((1, 2, 2, 2, 2, 2)), size=4),
}

#: Near misses: calls torch accepts, next to the ones above.
OK: dict[str, Call] = {
    "pack_padded_sequence": f(_PACK, T((4, 7, 5)), [7, 5, 3, 1], batch_first=True),
    "pack_padded_sequence-time-major": f(_PACK, T((7, 4, 5)), [7, 5, 3, 1]),
    "pack_padded_sequence-unsorted-allowed": f(
        _PACK, T((4, 7, 5)), [1, 5, 3, 7], batch_first=True, enforce_sorted=False
    ),
    "pack_padded_sequence-2d": f(_PACK, T((4, 3)), [3, 3, 3, 3], batch_first=True),
    "pack_sequence": f("torch.nn.utils.rnn.pack_sequence", [T((5, 3)), T((2, 3))]),
    "pack_sequence-unsorted-allowed": f(
        "torch.nn.utils.rnn.pack_sequence", [T((2, 3)), T((5, 3))], enforce_sorted=False
    ),
    "pad_packed_sequence": f(_PAD_PACKED, P((5, 2), (3,))),
    "pad_packed_sequence-batch-first": f(_PAD_PACKED, P((5, 2, 2), (3, 2)), batch_first=True),
    "pad_packed_sequence-total-length": f(_PAD_PACKED, P((5, 2), (3,)), batch_first=True, total_length=5),
    "GRU-packed": mod("GRU", (3, 6), (P((5, 2), (3,)),), bidirectional=True, num_layers=2),
    "LSTM-packed-proj": mod("LSTM", (3, 6), (P((5, 2), (3,)), (T((1, 2, 2)), T((1, 2, 6)))), proj_size=2),
    "RNN-packed-batch-first": mod("RNN", (3, 6), (P((5, 2, 2), (3,)), T((1, 3, 6))), batch_first=True),
    "conv2d-same-stride1": f("conv2d", X4, T((4, 4, 3, 3)), None, 1, "same"),
    "Conv2d-same": mod("Conv2d", (4, 4, 3), (X4,), padding="same"),
    "Conv2d-groups": mod("Conv2d", (4, 6, 3), (X4,), groups=2),
    "conv2d-groups": f("conv2d", X4, T((6, 2, 3, 3)), T((6,)), 1, 0, 1, 2),
    "conv_transpose2d-groups-bias": f("conv_transpose2d", X4, T((4, 3, 3, 3)), T((6,)), groups=2),
    "ConvTranspose2d-out-padding": mod("ConvTranspose2d", (4, 4, 3), (X4,), stride=2, output_padding=1),
    "Conv2d-reflect": mod("Conv2d", (4, 4, 3), (T((1, 4, 2, 2)),), padding=1, padding_mode="reflect"),
    "Conv2d-circular": mod("Conv2d", (4, 4, 5), (T((1, 4, 2, 2)),), padding=2, padding_mode="circular"),
    "pad-reflect": f("pad", T((1, 2, 3)), (2, 2), mode="reflect"),
    "pad-reflect-negative": f("pad", T((1, 2, 3)), (-2, 0), mode="reflect"),
    "pad-circular": f("pad", T((1, 2, 3)), (3, 3), mode="circular"),
    "pad-replicate-big": f("pad", T((1, 2, 3)), (5, 0), mode="replicate"),
    "pad-reflect-2d": f("pad", T((2, 3)), (1, 1), mode="reflect"),
    "max_pool2d-padding": f("max_pool2d", X4, 2, 2, 1),
    "adaptive_avg_pool1d-empty-channels": f("adaptive_avg_pool1d", T((2, 0, 3)), 2),
    "adaptive_avg_pool2d-zero-out": f("adaptive_avg_pool2d", X4, 0),
    "interpolate-bilinear-align": f("interpolate", X4, size=4, mode="bilinear", align_corners=True),
    "interpolate-linear": f("interpolate", T((1, 2, 4)), scale_factor=2.0, mode="linear"),
    "embedding-padding-idx-neg": f("embedding", T((3,), "int64"), T((5, 2)), -5),
    "Embedding-padding-idx": mod("Embedding", (5, 2), (T((3,), "int64"),), padding_idx=4),
    "EmbeddingBag-1d-offsets": mod("EmbeddingBag", (5, 2), (T((3,), "int64"), T((2,), "int64"))),
    "batch_norm-training": f("batch_norm", T((1, 3, 2)), None, None, training=True),
    "batch_norm-eval": f("batch_norm", T((1, 3)), T((3,)), T((3,))),
    "BatchNorm1d-one-eval": mod("BatchNorm1d", (3,), (T((1, 3)),)),
    "InstanceNorm1d-tracked-eval": mod("InstanceNorm1d", (3,), (T((1, 3, 1)),), track_running_stats=True),
    "group_norm-values": f("group_norm", T((1, 4, 1)), 2),
    "GroupNorm-values": mod("GroupNorm", (2, 4), (T((1, 4)),)),
    "group_norm-affine": f("group_norm", T((2, 4, 3)), 2, T((4,)), T((4,))),
    "LSTM-proj": mod("LSTM", (4, 3), (T((5, 2, 4)), (T((1, 2, 2)), T((1, 2, 3)))), proj_size=2),
    "LSTM-unbatched": mod("LSTM", (4, 3), (T((5, 4)), (T((2, 3)), T((2, 3)))), num_layers=2),
    "GRU-batch-first": mod("GRU", (4, 3), (T((2, 5, 4)), T((2, 2, 3))), batch_first=True, bidirectional=True),
    "RNN-unbatched": mod("RNN", (4, 3), (T((5, 4)), T((1, 3)))),
    "MHA-masks": mod("MultiheadAttention", (4, 2), (T((3, 2, 4)), T((5, 2, 4)), T((5, 2, 4))), {"key_padding_mask": T((2, 5), "bool"), "attn_mask": T((4, 3, 5), "bool")}),
    "MHA-masks-batch-first": mod("MultiheadAttention", (4, 2), (T((2, 3, 4)), T((2, 5, 4)), T((2, 5, 4))), {"key_padding_mask": T((2, 5), "bool"), "attn_mask": T((3, 5), "bool")}, batch_first=True),
    "MHA-masks-unbatched": mod("MultiheadAttention", (4, 2), (T((3, 4)), T((5, 4)), T((5, 4))), {"key_padding_mask": T((5,), "bool"), "attn_mask": T((2, 3, 5), "bool")}),
    "TransformerEncoderLayer-masks": mod("TransformerEncoderLayer", (4, 2, 8, 0.0), (T((2, 3, 4)),), {"src_mask": T((3, 3), "bool"), "src_key_padding_mask": T((2, 3), "bool")}, batch_first=True),
    "TransformerDecoderLayer-masks": mod("TransformerDecoderLayer", (4, 2, 8, 0.0), (T((3, 2, 4)), T((5, 2, 4))), {"memory_mask": T((3, 5), "bool"), "memory_key_padding_mask": T((2, 5), "bool")}),
    "nll_loss-target-1d": f("nll_loss", T((3,)), T((1,), "int64")),
    "cross_entropy-weight": f("cross_entropy", T((2, 3)), T((2,), "int64"), T((3,))),
    "bce_logits-pos-weight": f("binary_cross_entropy_with_logits", T((2, 3)), T((2, 3)), pos_weight=T((3,))),
    "gaussian_nll_loss-var-short": f("gaussian_nll_loss", T((2, 3)), T((2, 3)), T((2,))),
    "gaussian_nll_loss-var-one": f("gaussian_nll_loss", T((2, 3)), T((2, 3)), T((2, 1))),
    "gaussian_nll_loss-var-broadcast": f("gaussian_nll_loss", T((2, 3)), T((2, 3)), T((1, 3))),
    "mse_loss-weight": f("mse_loss", T((2, 3)), T((2, 3)), weight=T((2, 3))),
    # tensor ops whose edge cases torch accepts
    "squeeze-non-one": m("squeeze", T((2, 3)), 0),
    "flatten-start-is-end": m("flatten", T((2, 3, 4)), 1, 1),
    "narrow-to-end": m("narrow", T((4,)), 0, 2, 2),
    "narrow-empty": m("narrow", T((4,)), 0, 4, 0),
    "topk-all": m("topk", T((4,)), 4),
    "chunk-more-than-size": m("chunk", T((3,)), 5),
    "split-larger-than-dim": m("split", T((4,)), 6),
    "repeat-more-dims": m("repeat", T((2, 3)), 2, 1, 1),
    "expand-keep": m("expand", T((2, 1)), -1, 4),
    "roll-aligned": f("torch.roll", T((3, 4)), (1, 2), (0, 1)),
    "roll-one-shift": f("torch.roll", T((3, 4)), (1,)),
    "cat-empty-1d": f("torch.cat", [T((2, 3)), T((0,))]),
    "view-after-transpose-same-shape": m("view", T((3, 4)), 3, 4),
    "ConvTranspose2d-output-size": mod("ConvTranspose2d", (4, 4, 3), (X4,), {"output_size": (2, 4, 18, 17)}, stride=2),
    "EmbeddingBag-padding-idx": mod("EmbeddingBag", (5, 2), (T((2, 3), "int64"),), padding_idx=-5),
    "MHA-kdim": mod("MultiheadAttention", (4, 2), (T((3, 2, 4)), T((5, 2, 3)), T((5, 2, 5))), kdim=3, vdim=5),
}

#: Chains on a fresh ``torch.zeros(shape)``: (shape, [(method, args)...]), where torch raises at the last step.
CHAINS: dict[str, tuple[tuple[int, ...], tuple[tuple[str, tuple[int, ...]], ...]]] = {
    "view-after-transpose": ((2, 3, 4), (("transpose", (1, 2)), ("view", (2, -1)))),
    "view-after-permute": ((2, 3, 4), (("permute", (2, 0, 1)), ("view", (2, 12)))),
}
