"""Emitted shape functions against torch: the same output shape, and an error exactly when torch raises.

For the example models (their constructor sizes drawn too) and for generated
functions (random chains of shape ops), hypothesis draws input sizes, some of
them inconsistent; torch runs the real code on meta tensors.
"""

from __future__ import annotations

import importlib.util
import textwrap
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tensorshape.shapefn import ShapeFunctionUnavailable, derive

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

EX = Path(__file__).resolve().parents[2] / "examples"
_TORCH_ERRORS = (RuntimeError, ValueError, IndexError, AssertionError)


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_shapefn_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _shape_of(out: Any) -> Any:
    if isinstance(out, torch.Tensor):
        return tuple(out.shape)
    if isinstance(out, tuple):
        return tuple(_shape_of(x) for x in out)
    if isinstance(out, dict):
        return {k: _shape_of(v) for k, v in out.items()}
    return out


def _agree(shapefn: Callable[[], Any], run_torch: Callable[[], Any]) -> None:
    try:
        with torch.device("meta"):  # tensors the code creates itself are meta tensors too
            expected = _shape_of(run_torch())
    except _TORCH_ERRORS as e:
        with pytest.raises(ValueError):
            got = shapefn()
            pytest.fail(f"torch raised {type(e).__name__}: {e}, the shape function returned {got}")
        return
    assert shapefn() == expected


def _meta(shape: tuple[int, ...]) -> Any:
    return torch.empty(shape, device="meta")


MODELS = {name: _load(EX / f"{name}.py") for name in ("mlp", "cnn", "transformer_block")}
SIZE = st.integers(1, 9)


@settings(max_examples=40)
@given(b=SIZE, f=st.integers(1, 12), d_in=st.integers(1, 12), hidden=SIZE, n_classes=SIZE)
def test_mlp(b: int, f: int, d_in: int, hidden: int, n_classes: int) -> None:
    fn = _FNS["mlp"]
    model = MODELS["mlp"].MLP(d_in, hidden, n_classes).to("meta").eval()
    _agree(lambda: fn((b, f), d_in=d_in, n_classes=n_classes), lambda: model(_meta((b, f))))


@settings(max_examples=40)
@given(b=st.integers(1, 3), c=st.sampled_from([1, 3]), h=st.integers(1, 70), w=st.integers(1, 70), n=SIZE)
def test_cnn_with_symbolic_image_size(b: int, c: int, h: int, w: int, n: int) -> None:
    fn = _FNS["cnn"]
    model = MODELS["cnn"].SmallCNN(n).to("meta").eval()
    _agree(lambda: fn((b, c, h, w), n_classes=n), lambda: model(_meta((b, c, h, w))))


@st.composite
def _attention_case(draw: st.DrawFn) -> tuple[int, int, int, int, int]:
    heads = draw(st.integers(1, 4))
    d_model = draw(st.one_of(st.integers(1, 5).map(lambda k: k * heads), st.integers(1, 16)))
    d = draw(st.one_of(st.just(d_model), st.integers(1, 16)))
    return draw(SIZE), draw(SIZE), d, d_model, heads


@settings(max_examples=60)
@given(case=_attention_case())
def test_multi_head_attention(case: tuple[int, int, int, int, int]) -> None:
    b, t, d, d_model, heads = case
    fn = _FNS["mha"]
    mod = MODELS["transformer_block"]

    def run() -> Any:
        return mod.MultiHeadAttention(d_model, heads).to("meta")(_meta((b, t, d)))

    _agree(lambda: fn((b, t, d), d_model=d_model, n_heads=heads), run)


@settings(max_examples=40)
@given(case=_attention_case(), d_ff=SIZE)
def test_transformer_block(case: tuple[int, int, int, int, int], d_ff: int) -> None:
    b, t, d, d_model, heads = case
    fn = _FNS["block"]
    mod = MODELS["transformer_block"]

    def run() -> Any:
        return mod.Block(d_model, heads, d_ff).to("meta")(_meta((b, t, d)))

    _agree(lambda: fn((b, t, d), d_model=d_model, n_heads=heads), run)


_FNS = {
    "mlp": derive(EX / "mlp.py", "MLP.forward").compile(),
    "cnn": derive(EX / "cnn.py", "SmallCNN.forward", {"x": "b c h w"}).compile(),
    "mha": derive(EX / "transformer_block.py", "MultiHeadAttention.forward").compile(),
    "block": derive(EX / "transformer_block.py", "Block.forward").compile(),
}


# -- generated functions -------------------------------------------------------------------------------

#: (template, rank change, minimum rank); ``{i}``/``{j}`` are dims drawn below the current rank.
OPS: list[tuple[str, int, int]] = [
    ("x = x.transpose({i}, {j})", 0, 2),
    ("x = x.sum({i})", -1, 2),
    ("x = x.unsqueeze({i})", 1, 1),
    ("x = x.flatten({i}, {j})", None, 2),  # type: ignore[list-item]
    ("x = torch.cat([x, x], {i})", 0, 1),
    ("x = x @ w", 0, 1),
    ("x = x + x.sum(-1, keepdim=True)", 0, 1),
    ("x = x * y[0]", 0, 1),
    ("x = x.reshape(x.shape[0], -1)", None, 1),  # type: ignore[list-item]
    ("x = x.view(2, -1)", None, 1),  # type: ignore[list-item]
    ("x = x[..., :3]", 0, 1),
    ("x = torch.softmax(x, {i})", 0, 1),
    ("x = torch.stack([x, x], {i})", 1, 1),
]


@st.composite
def _program(draw: st.DrawFn) -> tuple[str, int]:
    rank = draw(st.integers(1, 3))
    start = rank
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        choices = [op for op in OPS if rank >= op[2]]
        template, delta, _min = draw(st.sampled_from(choices))
        i = draw(st.integers(0, rank - 1))
        j = draw(st.integers(i, rank - 1))
        if template.startswith("x = torch.stack") or template.startswith("x = x.unsqueeze"):
            i = draw(st.integers(0, rank))
        lines.append(template.format(i=i, j=j))
        if "flatten" in template:
            rank -= j - i
        elif "reshape" in template or "view" in template:
            rank = 2
        else:
            rank += delta
    body = textwrap.indent("\n".join(lines), "    ")
    return f"import torch\n\ndef f(x, y, w):\n{body}\n    return x\n", start


_NAMES = "abcd"


@settings(max_examples=80, deadline=None)
@given(prog=_program(), data=st.data())
def test_generated_functions(tmp_path_factory: pytest.TempPathFactory, prog: tuple[str, int], data: st.DataObject) -> None:
    source, rank = prog
    x_spec = " ".join(_NAMES[:rank])
    inputs = {"x": x_spec, "y": "#p", "w": "k m"}
    path = tmp_path_factory.mktemp("gen") / "gen.py"
    path.write_text(source)
    sizes = {n: data.draw(st.integers(1, 6), label=n) for n in _NAMES[:rank]}
    x_shape = tuple(sizes[n] for n in _NAMES[:rank])
    y_shape = (data.draw(st.sampled_from([1, *sizes.values()]), label="p"),)
    w_shape = (data.draw(st.sampled_from([*sizes.values(), 2, 3]), label="k"), data.draw(st.integers(1, 4), label="m"))
    ns: dict[str, Any] = {}
    exec(compile(source, str(path), "exec"), ns)

    def run() -> Any:
        return ns["f"](_meta(x_shape), _meta(y_shape), _meta(w_shape))

    try:
        fn = derive(path, "f", inputs).compile()
    except ShapeFunctionUnavailable:
        # A static error: torch must fail on every input.
        with pytest.raises(_TORCH_ERRORS), torch.device("meta"):
            run()
        return
    _agree(lambda: fn(x_shape, y_shape, w_shape), run)



JAGGED = """
import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor


class Proj(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 32)

    def forward(self, x: Float[Tensor, "b jagged=n 16"]):
        y = self.fc(x)
        return y, y.to_padded_tensor(0.0), x.offsets(), y.values()
"""


@settings(max_examples=30, deadline=None)
@given(rows=st.lists(st.integers(1, 6), min_size=1, max_size=4), width=st.sampled_from([16, 16, 16, 8]))
def test_jagged_shape_function(tmp_path_factory: pytest.TempPathFactory, rows: list[int], width: int) -> None:
    path = tmp_path_factory.mktemp("jag") / "jag.py"
    path.write_text(JAGGED)
    fn = derive(path, "Proj.forward").compile()
    ns: dict[str, Any] = {}
    exec(compile(JAGGED, str(path), "exec"), ns)
    nt = torch.nested.nested_tensor([torch.randn(r, width) for r in rows], layout=torch.jagged)
    try:
        y, padded, offsets, values = ns["Proj"]()(nt)
    except RuntimeError:
        with pytest.raises(ValueError):
            fn((len(rows), tuple(rows), width))
        return
    (yb, yn, yd), padded_shape, offsets_shape, values_shape = fn((len(rows), tuple(rows), width))
    assert (yb, yd) == (y.shape[0], y.shape[2])
    assert yn == tuple(int(v) for v in y.offsets().diff())  # the ragged dim: the same row lengths
    assert padded_shape == tuple(padded.shape)
    assert offsets_shape == tuple(offsets.shape)
    assert values_shape == tuple(values.shape)


FROM_OFFSETS = """
import torch
from jaxtyping import Float, Int
from torch import Tensor


def pad(values: Float[Tensor, "total d"], offsets: Int[Tensor, "b1"], max_len: int):
    return torch.ops.fbgemm.jagged_to_padded_dense(values, [offsets], [max_len])


def nested_pad(values: Float[Tensor, "total d"], offsets: Int[Tensor, "b1"]):
    nt = torch.nested.nested_tensor_from_jagged(values, offsets)
    return nt.to_padded_tensor(0.0)
"""


@settings(max_examples=20, deadline=None)
@given(rows=st.lists(st.integers(1, 5), min_size=1, max_size=4), width=st.integers(1, 4), max_len=st.integers(1, 6))
def test_ragged_dims_made_from_offsets(
    tmp_path_factory: pytest.TempPathFactory, rows: list[int], width: int, max_len: int
) -> None:
    """A padded size given as an int (FBGEMM's max lengths) is a parameter of the shape function; one
    that depends on the offsets' values (torch.nested's longest row) is data-dependent (None)."""
    path = tmp_path_factory.mktemp("offs") / "offs.py"
    path.write_text(FROM_OFFSETS)
    values = torch.randn(sum(rows), width)
    offsets = torch.tensor([0, *torch.tensor(rows).cumsum(0).tolist()])
    pad = derive(path, "pad").compile()
    # FBGEMM does not load with torch 2.13: its documented dense shape.
    assert pad(tuple(values.shape), tuple(offsets.shape), max_len=max_len) == (len(rows), max_len, width)
    nested_pad = derive(path, "nested_pad").compile()
    padded = torch.nested.nested_tensor_from_jagged(values, offsets).to_padded_tensor(0.0)
    got = nested_pad(tuple(values.shape), tuple(offsets.shape))
    assert got[0] == padded.shape[0] and got[2] == padded.shape[2] and got[1] is None
