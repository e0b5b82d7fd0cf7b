"""First-class dims (functorch.dim): inferred shapes of the design doc's examples and errors, compared with torch."""

from __future__ import annotations

import re
from typing import Any

import libcst as cst
import pytest
from tensorshape.infer.api import check_source

from tests.expectations import EXAMPLES

EXAMPLE = EXAMPLES / "first_class_dims.py"

#: What the checker infers for each example's returned value (symbolic: the annotations' names).
INFERRED = {
    "mm": "[n m]",
    "bmm": "[b n m]",
    "gram_matrix": "[b c c]",
    "attention": "[b 2*c q]",
    "multiheadattention": "[b s num_attention_heads*(d//num_attention_heads)]",
    "pixel_shuffle": "[b c//4 2*h 2*w]",
    "split_and_flatten": "[3 8]",
    "transpose": "[y x z]",
    "add_bias": "[32 128]",
    "avg_pixel_color": "[b c]",
    "batched_model": "[b]",
    "embedding_lookup": "[s f]",
    "embedding_bag": "[b f]",
    "relative_positional_embedding": "[b 4 s s]",
    "triu_of": "[n m]",
    "outer": "[n m]",
    "diag": "[n]",
    "eye": "[n n]",
    "triu": "[n n]",
    "diff": "[n]",
    "vstack": "[2 n]",
    "roll": "[n]",
    "flip": "[n]",
    "sequence_mask": "[b n]",
}

#: Each example called with real tensors: the checker's concrete shape must be torch's.
CALLS = {
    "mm": "mm(torch.rand(3, 4), torch.rand(4, 5))",
    "bmm": "bmm(torch.rand(2, 3, 4), torch.rand(2, 4, 5))",
    "gram_matrix": "gram_matrix(torch.rand(1, 2, 3, 4))",
    "attention": "attention(torch.rand(2, 3, 4), torch.rand(2, 3, 5), torch.rand(2, 3, 4))",
    "multiheadattention": "multiheadattention(torch.rand(2, 6, 8), torch.rand(2, 7, 8), torch.rand(2, 7, 8), 4, 0.1)",
    "pixel_shuffle": "pixel_shuffle(torch.rand(2, 12, 5, 7))",
    "split_and_flatten": "split_and_flatten(torch.rand(6, 4))",
    "transpose": "transpose(torch.rand(3, 4, 5))",
    "add_bias": "add_bias(torch.rand(128, 32), torch.rand(32))",
    "avg_pixel_color": "avg_pixel_color(torch.rand(2, 3, 8, 8))",
    "batched_model": "batched_model(torch.randn(3, 5), torch.randn(5))",
    "embedding_lookup": "embedding_lookup(torch.rand(8, 128), torch.randint(0, 8, (3,)))",
    "embedding_bag": "embedding_bag(torch.randint(0, 5, (1, 4)), torch.rand(5, 2))",
    "relative_positional_embedding": "relative_positional_embedding(torch.rand(2, 6, 8), torch.rand(2, 6, 8), torch.rand(13, 2))",
    "triu_of": "triu_of(torch.rand(3, 4))",
    "outer": "outer(torch.rand(3), torch.rand(4))",
    "diag": "diag(torch.rand(3, 3))",
    "eye": "eye(torch.rand(4))",
    "triu": "triu(torch.rand(4))",
    "diff": "diff(torch.rand(5))",
    "vstack": "vstack(torch.rand(5), torch.rand(5))",
    "roll": "roll(torch.rand(5))",
    "flip": "flip(torch.rand(5))",
    "sequence_mask": "sequence_mask(torch.rand(3, 6), torch.tensor([1, 4, 6]))",
}

#: Tensors that still have first-class dims, revealed as `[positional] with dims (name=size, ...)`.
LEVELS = """
import torch
from functorch.dim import dims
from tensorshape import reveal_shape

def probe():
    i, j, k = dims(3)
    j.size = 2
    a = torch.rand(6, 4, 5)[(i, j), k]
    reveal_shape(a)
    b = a.sum(k)
    reveal_shape(b)
    c = i <= j
    reveal_shape(c)
    d = torch.rand(5, 3)[..., i] + k
    reveal_shape(d)
    e = a.order(k)
    reveal_shape(e)
    f = a.max(k)[0]
    reveal_shape(f)
    g = torch.softmax(a, dim=j)
    reveal_shape(g)
    return a, b, c, d, e, f, g
"""

LEVELS_INFERRED = [
    "[5] with dims (i=3, j=2, k=4)",
    "[5] with dims (i=3, j=2)",
    "[] with dims (i=3, j=2)",
    "[5] with dims (i=3, k=4)",
    "[4 5] with dims (i=3, j=2)",
    "[5] with dims (i=3, j=2)",
    "[5] with dims (i=3, j=2, k=4)",
]

REBIND = """
import torch
from functorch.dim import dims

def rebind():
    i = dims()
    x = torch.rand(5)[i]
    i.size = 3
    return x

def rebind_by_indexing():
    i = dims()
    x = torch.rand(5)[i]
    return x + torch.rand(3)[i]

def indivisible():
    i, j = dims(2)
    j.size = 2
    return torch.rand(7)[(i, j),]
"""


def _reveals(src: str) -> list[str]:
    r = check_source(src)
    return [d.message.removeprefix("revealed shape: ") for d in r.diagnostics if d.code.id == "TS900"]


class _RevealReturns(cst.CSTTransformer):
    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        if updated.value is None:
            return updated
        call = cst.Call(cst.Name("reveal_shape"), [cst.Arg(updated.value)])
        return updated.with_changes(value=call)


def _returns_revealed() -> dict[str, str]:
    """Check the example with every `return x` turned into `return reveal_shape(x)`."""
    module = cst.parse_module(EXAMPLE.read_text(encoding="utf-8")).visit(_RevealReturns())
    src = "from tensorshape import reveal_shape\n" + module.code
    r = check_source(src)
    assert not [d for d in r.diagnostics if d.severity.name == "ERROR"], r.diagnostics
    names: dict[int, str] = {}
    for n, line in enumerate(src.splitlines(), 1):
        m = re.match(r"def (\w+)", line)
        if m:
            names[n] = m.group(1)
    out: dict[str, str] = {}
    for d in r.diagnostics:
        if d.code.id == "TS900":
            fn = names[max(k for k in names if k <= d.span.line)]
            out[fn] = d.message.removeprefix("revealed shape: ").split("; ")[0]  # the generic view
    return out


def test_examples_infer_exact_shapes() -> None:
    got = _returns_revealed()
    got.pop("model")  # the unbatched helper: a tensor of unknown shape on its own
    assert got == INFERRED


def _concrete() -> dict[str, str]:
    probes = "\n".join(f"    reveal_shape({c})" for c in CALLS.values())
    body = EXAMPLE.read_text(encoding="utf-8").split("def demo")[0]
    src = body + "from tensorshape import reveal_shape\n\n\ndef probe():\n" + probes + "\n"
    return dict(zip(CALLS, _reveals(src)))


def test_levels_inferred() -> None:
    assert _reveals(LEVELS) == LEVELS_INFERRED


def test_errors() -> None:
    r = check_source(REBIND)
    got = sorted((d.span.line, d.code.id, d.message) for d in r.diagnostics if d.severity.name == "ERROR")
    assert got == [
        (8, "TS201", "Dim 'i' previously bound to a dimension of size 5 cannot bind to a dimension of size 3"),
        (14, "TS201", "Dim 'i' previously bound to a dimension of size 5 cannot bind to a dimension of size 3"),
        (19, "TS109", "a dim of size 7 is not divisible by 2 to infer i in (i, j)"),
    ]


def test_dims_without_count_take_the_unpacked_names() -> None:
    src = "from functorch.dim import dims\nfrom tensorshape import reveal_shape\na, b, c = dims(sizes=[1, 2, None])\nreveal_shape(b)\nreveal_shape(c)\nd = dims()\nreveal_shape(d)\n"
    assert _reveals(src) == ["dim b=2", "dim c=?", "dim d=?"]


# -- against torch 2.13's functorch.dim ---------------------------------------------------------


def _torch_shape(v: Any) -> str:
    return "[" + " ".join(str(s) for s in v.shape) + "]"


def _torch_levels(v: Any) -> str:
    return _torch_shape(v) + " with dims (" + ", ".join(f"{d!r}={d.size}" for d in v.dims) + ")"


def _load_example() -> dict[str, Any]:
    ns: dict[str, Any] = {"__name__": "first_class_dims_example"}
    exec(compile(EXAMPLE.read_text(encoding="utf-8"), str(EXAMPLE), "exec"), ns)
    return ns


@pytest.mark.torch
def test_examples_match_torch() -> None:
    pytest.importorskip("functorch.dim")
    ns = _load_example()
    inferred = _concrete()
    actual = {name: _torch_shape(eval(call, ns)) for name, call in CALLS.items()}
    assert inferred == actual


@pytest.mark.torch
def test_levels_match_torch() -> None:
    pytest.importorskip("functorch.dim")
    ns: dict[str, Any] = {}
    exec(LEVELS.replace("from tensorshape import reveal_shape", "reveal_shape = print"), ns)
    assert [_torch_levels(v) for v in ns["probe"]()] == LEVELS_INFERRED


@pytest.mark.torch
def test_errors_match_torch() -> None:
    fd = pytest.importorskip("functorch.dim")
    ns: dict[str, Any] = {}
    exec(REBIND, ns)
    with pytest.raises(
        fd.DimensionBindError, match="previously bound to a dimension of size 5 cannot bind to a dimension of size 3"
    ):
        ns["rebind"]()
    with pytest.raises(fd.DimensionBindError, match="does not evenly fit"):
        ns["indivisible"]()
