"""The codemod: annotations written only where there are none, imports once and sorted, bytes kept."""

from __future__ import annotations

import ast
import json
from typing import Any

from tensorshape.annotate.propose import annotate_from_trace, load_trace


def rec(path: str, qual: str, args: dict[str, Any], result: Any) -> str:
    return json.dumps({"file": path, "qualname": qual, "line": 1, "args": args, "result": result})


def t(*shape: int, dtype: str = "float32") -> dict[str, Any]:
    return {"shape": list(shape), "dtype": dtype}


SOURCE = '''"""Doc."""\r
import os\r
import torch\r
from torch import nn\r
\r
\r
class Net(nn.Module):\r
    def forward(self, x,   # the input\r
                mask):\r
        return x\r
\r
\r
def loss(pred: "Float[Tensor, 'b 9']", y):  # keep me\r
    return pred.sum()\r
'''


def test_writes_annotations_keeps_bytes_and_is_idempotent(tmp_path: Any) -> None:
    path = str(tmp_path / "m.py")
    lines = [
        rec(path, "Net.forward", {"x": t(2, 5), "mask": t(2, 5, dtype="bool")}, t(2, 5)),
        rec(path, "Net.forward", {"x": t(3, 5), "mask": t(3, 5, dtype="bool")}, t(3, 5)),
        rec(path, "loss", {"pred": t(2, 9), "y": t(2, dtype="int64")}, t()),
        rec(path, "loss", {"pred": t(4, 9), "y": t(4, dtype="int64")}, t()),
    ]
    trace = load_trace(lines)
    r = annotate_from_trace(SOURCE, path, trace)
    out = r.source
    assert '    def forward(self, x: Float[Tensor, "batch 5"],   # the input\r\n' in out
    assert 'mask: Bool[Tensor, "batch 5"]) -> Float[Tensor, "batch 5"]:\r\n' in out
    # the existing annotation is kept; the others reuse its name b for the same sizes
    assert 'def loss(pred: "Float[Tensor, \'b 9\']", y: Int[Tensor, " b"]) -> Float[Tensor, ""]:  # keep me\r\n' in out
    assert "from jaxtyping import Bool, Float, Int\r\nimport torch\r\nfrom torch import Tensor, nn\r\n" in out
    ast.parse(out)
    assert annotate_from_trace(out, path, trace).source == out
    kept = [
        line for line in SOURCE.split("\r\n") if "def " not in line and "mask)" not in line and "from torch" not in line
    ]
    assert all(line in out.split("\r\n") for line in kept)


def test_a_conflicting_annotation_is_reported_not_rewritten(tmp_path: Any) -> None:
    path = str(tmp_path / "m.py")
    src = "def f(x: \"Float[Tensor, 'b 3']\"):\n    return x\n"
    trace = load_trace([rec(path, "f", {"x": t(2, 4)}, t(2, 4))])
    r = annotate_from_trace(src, path, trace)
    assert "x: \"Float[Tensor, 'b 3']\"" in r.source
    assert any("probable bug" in m and "(2, 4)" in m for m in r.messages)


def test_imports_after_the_docstring_and_future_when_there_are_none(tmp_path: Any) -> None:
    path = str(tmp_path / "m.py")
    src = '"""Doc."""\nfrom __future__ import annotations\n\n\ndef f(x):\n    return x\n'
    r = annotate_from_trace(src, path, load_trace([rec(path, "f", {"x": t(2)}, None)]))
    assert r.source.startswith(
        '"""Doc."""\nfrom __future__ import annotations\nfrom jaxtyping import Float\nfrom torch import Tensor\n'
    )
    assert 'def f(x: Float[Tensor, " 2"]):' in r.source
    assert any("one call observed" in m for m in r.messages)


def test_static_proposal_of_an_inferred_result_is_marked_inferred() -> None:
    from tensorshape.annotate.static import annotate_statically

    src = (
        "import torch\nfrom jaxtyping import Float\nfrom torch import Tensor\n\n\n"
        'def widen(x: Float[Tensor, "b 16"]):\n    return torch.cat([x, x], dim=-1)\n\n\n'
        "def unknown(x):\n    return x\n"
    )
    r = annotate_statically(src, "m.py")
    assert 'def widen(x: Float[Tensor, "b 16"]) -> Shaped[Tensor, "b 32"]:' in r.source
    assert "def unknown(x):\n" in r.source
    assert "from jaxtyping import Float, Shaped\n" in r.source
    assert any("inferred by the analysis" in m for m in r.messages)
