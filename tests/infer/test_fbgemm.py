"""FBGEMM's jagged operators (``torch.ops.fbgemm.*``).

``fbgemm-gpu-cpu`` 1.9.0, the newest in the registry, does not load with torch
2.13 (its libraries miss a torch symbol), so the inferred shapes are compared
with a reference implementation of each operator written with torch, after
FBGEMM's documented semantics, over generated jagged tensors.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tensorshape.infer import CheckSettings, check_source

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


# -- reference implementations (one jagged dim unless stated) ------------------------------------------
def ref_jagged_to_padded_dense(values, offsets, max_lengths, padding_value=0.0):
    (off,), (length,) = offsets, max_lengths
    out = values.new_full((off.numel() - 1, length, *values.shape[1:]), padding_value)
    for b in range(off.numel() - 1):
        rows = values[off[b] : off[b + 1]][:length]
        out[b, : rows.shape[0]] = rows
    return out


def ref_dense_to_jagged(dense, x_offsets, total_L=None):
    # Rows the dense tensor is too short for are padded (FBGEMM's documented behaviour).
    (off,) = x_offsets
    out = dense.new_zeros((int(off[-1]), *dense.shape[2:]))
    for b in range(off.numel() - 1):
        rows = dense[b, : off[b + 1] - off[b]]
        out[off[b] : off[b] + rows.shape[0]] = rows
    return out, x_offsets


def ref_elementwise_add(x_values, x_offsets, y):
    if y.shape[0] != x_offsets[0].numel() - 1 or y.shape[2:] != x_values.shape[1:]:
        raise RuntimeError("shape mismatch")
    return y + ref_jagged_to_padded_dense(x_values, x_offsets, [y.shape[1]])


def ref_elementwise_mul(x_values, x_offsets, y):
    if y.shape[0] != x_offsets[0].numel() - 1 or y.shape[2:] != x_values.shape[1:]:
        raise RuntimeError("shape mismatch")
    return x_values * ref_dense_to_jagged(y, x_offsets)[0], x_offsets


def ref_jagged_jagged_bmm(x_values, y_values, x_offsets, max_length):
    if x_values.shape[0] != y_values.shape[0]:
        raise RuntimeError("rows differ")
    return torch.stack(
        [x_values[x_offsets[b] : x_offsets[b + 1]].T @ y_values[x_offsets[b] : x_offsets[b + 1]] for b in range(x_offsets.numel() - 1)]
    )


def ref_jagged_dense_bmm(x_values, x_offsets, y, max_length):
    if y.shape[0] != x_offsets.numel() - 1 or x_values.shape[1] != y.shape[1]:
        raise RuntimeError("shape mismatch")
    rows = [x_values[x_offsets[b] : x_offsets[b + 1]] @ y[b] for b in range(y.shape[0])]
    return torch.cat(rows), x_offsets


def ref_stacked_2d_to_dense(values, lengths, offset_per_key, max_lengths_per_key, padding_value=0):
    out = []
    for t, (start, m) in enumerate(zip(offset_per_key, max_lengths_per_key)):
        off = torch.cat([torch.zeros(1, dtype=torch.long), lengths[t].cumsum(0)]) + start
        out.append(ref_jagged_to_padded_dense(values, [off], [m], padding_value))
    return out


# -- generated jagged tensors ------------------------------------------------------------------------
@st.composite
def jagged(draw):
    lengths = draw(st.lists(st.integers(0, 4), min_size=1, max_size=4))
    inner = draw(st.integers(1, 4))
    return lengths, inner


def _offsets(lengths):
    return torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()])


def _reveal(src: str) -> list[str]:
    result = check_source("import torch\nfrom tensorshape import reveal_shape\n" + src, "t.py", CheckSettings())
    errors = [d for d in result.diagnostics if d.code.id != "TS900" and d.severity.name == "ERROR"]
    if errors:
        return ["error: " + errors[0].message]
    return [d.message.removeprefix("revealed shape: ") for d in result.diagnostics if d.code.id == "TS900"]


def _agrees(src: str, reference) -> None:
    """The checker's revealed shapes equal the reference's; where the reference raises, the checker
    reports an error (and reveals nothing after it)."""
    try:
        expected = reference()
    except RuntimeError:
        got = _reveal(src)
        assert len(got) == 1 and got[0].startswith("error:"), got
        return
    assert _reveal(src) == expected


def _shape(t) -> str:
    return "[" + " ".join(str(d) for d in t.shape) + "]"


@settings(max_examples=25, deadline=None)
@given(jagged(), st.integers(1, 5), st.integers(-1, 1))
def test_to_dense_and_back(j, max_len, batch_delta) -> None:
    lengths, inner = j
    total, b = sum(lengths), len(lengths)
    values, off = torch.randn(total, inner), _offsets(lengths)
    dense = ref_jagged_to_padded_dense(values, [off], [max_len])
    two_d = ref_jagged_to_padded_dense(values, [off], [max_len])
    one_d = ref_jagged_to_padded_dense(values[:, 0].unsqueeze(1), [off], [max_len]).squeeze(2)
    src = (
        f"values = torch.randn({total}, {inner})\n"
        f"off = torch.zeros({b + 1}, dtype=torch.long)\n"
        f"d = torch.ops.fbgemm.jagged_to_padded_dense(values, [off], [{max_len}])\n"
        "reveal_shape(d)\n"
        f"reveal_shape(torch.ops.fbgemm.jagged_2d_to_dense(values, off, {max_len}))\n"
        f"reveal_shape(torch.ops.fbgemm.jagged_1d_to_dense(torch.randn({total}), off, {max_len}, 0))\n"
        f"v, o = torch.ops.fbgemm.dense_to_jagged(d, [off], {total})\n"
        "reveal_shape(v)\n"
    )
    back = ref_dense_to_jagged(dense, [off])[0]
    assert _reveal(src) == [_shape(dense), _shape(two_d), _shape(one_d), _shape(back)]


@settings(max_examples=25, deadline=None)
@given(jagged(), st.integers(1, 5), st.integers(-1, 1), st.integers(-1, 1))
def test_jagged_dense_elementwise(j, max_len, batch_delta, inner_delta) -> None:
    lengths, inner = j
    total, b = sum(lengths), len(lengths)
    values, off = torch.randn(total, inner), _offsets(lengths)
    y_shape = (max(b + batch_delta, 1), max(lengths) if max(lengths) else 1, max(inner + inner_delta, 1))
    y = torch.randn(*y_shape)
    src = (
        f"values = torch.randn({total}, {inner})\n"
        f"off = torch.zeros({b + 1}, dtype=torch.long)\n"
        f"y = torch.randn{y_shape}\n"
        "reveal_shape(torch.ops.fbgemm.jagged_dense_elementwise_add(values, [off], y))\n"
        "m, o = torch.ops.fbgemm.jagged_dense_elementwise_mul(values, [off], y)\n"
        "reveal_shape(m)\n"
    )
    _agrees(src, lambda: [_shape(ref_elementwise_add(values, [off], y)), _shape(ref_elementwise_mul(values, [off], y)[0])])


@settings(max_examples=25, deadline=None)
@given(jagged(), st.integers(1, 4), st.integers(-1, 1))
def test_bmm(j, n, delta) -> None:
    lengths, k = j
    total, b = sum(lengths), len(lengths)
    x, off = torch.randn(total, k), _offsets(lengths)
    yv = torch.randn(max(total + delta, 0), n)
    y = torch.randn(b, max(k + delta, 1), n)
    src = (
        f"x = torch.randn({total}, {k})\n"
        f"off = torch.zeros({b + 1}, dtype=torch.long)\n"
        f"reveal_shape(torch.ops.fbgemm.jagged_jagged_bmm(x, torch.randn({yv.shape[0]}, {n}), off, 4))\n"
    )
    _agrees(src, lambda: [_shape(ref_jagged_jagged_bmm(x, yv, off, 4))])
    src = (
        f"x = torch.randn({total}, {k})\n"
        f"off = torch.zeros({b + 1}, dtype=torch.long)\n"
        f"v, o = torch.ops.fbgemm.jagged_dense_bmm(x, off, torch.randn({b}, {y.shape[1]}, {n}), 4)\n"
        "reveal_shape(v)\n"
    )
    _agrees(src, lambda: [_shape(ref_jagged_dense_bmm(x, off, y, 4)[0])])

def test_stacked_to_dense() -> None:
    lengths = torch.tensor([[1, 2, 3], [0, 1, 2]])
    values = torch.randn(int(lengths.sum()), 4)
    out = ref_stacked_2d_to_dense(values, lengths, [0, 6], [3, 2])
    src = (
        "values = torch.randn(9, 4)\n"
        "lengths = torch.tensor([[1, 2, 3], [0, 1, 2]])\n"
        "reveal_shape(torch.ops.fbgemm.stacked_jagged_2d_to_dense(values, lengths, [0, 6], [3, 2]))\n"
    )
    assert _reveal(src) == ["(" + ", ".join(_shape(t) for t in out) + ")"]


def test_static_errors() -> None:
    got = _reveal(
        "values = torch.randn(9, 4)\noff = torch.zeros(4, dtype=torch.long)\n"
        "torch.ops.fbgemm.jagged_to_padded_dense(values, [off], [4, 3])\n"
    )
    assert got == ["error: jagged_to_padded_dense: 1 offsets tensors but 2 max lengths"]
    got = _reveal("torch.ops.fbgemm.jagged_2d_to_dense(torch.randn(9), torch.zeros(4), 3)\n")
    assert got[0].startswith("error: jagged_2d_to_dense: values must have 2 dims")
    got = _reveal("torch.ops.fbgemm.jagged_to_padded_dense(torch.randn(9, 2), [torch.zeros(4, 2)], [3])\n")
    assert got[0].startswith("error: jagged_to_padded_dense: offsets 0 must be 1-D")
