"""The codemod: annotations written only where there are none, imports once and sorted, bytes kept."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
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


def test_a_parameter_with_a_default_keeps_it_and_its_type(tmp_path: Any) -> None:
    """``mask=None`` takes ``| None`` (a call without it passes None); ``scale=1`` takes ``| int`` (a
    call without it passes the int, found on local-attention's rotary code); a default that is not a
    literal is kept when every call passed a tensor, and left alone when one passed something else."""
    path = str(tmp_path / "m.py")
    src = "def f(x, mask=None, scale=1, pos=POS, other=OTHER):\n    return x\n"
    calls = [
        rec(path, "f", {"x": t(b, 4), "mask": t(b, dtype="bool"), "scale": t(1), "pos": t(4), "other": t(4)}, t(b, 4))
        for b in (2, 3)
    ]
    calls.append(rec(path, "f", {"x": t(5, 4), "mask": {"none": True}, "scale": {"int": 1}, "pos": t(4)}, t(5, 4)))
    r = annotate_from_trace(src, path, load_trace(calls))
    assert (
        'def f(x: Float[Tensor, "batch 4"], mask: Bool[Tensor, " batch"] | None = None, '
        'scale: Float[Tensor, " 1"] | int = 1, pos: Float[Tensor, " 4"] = POS, other=OTHER)'
    ) in r.source
    assert any("other: not a tensor in every call" in m for m in r.messages)
    assert any("pos: annotated from the calls, its default POS kept" in m for m in r.messages)


def test_static_proposal_of_an_inferred_result_is_marked_inferred() -> None:
    from tensorshape.annotate.static import annotate_statically

    src = (
        "import torch\nfrom jaxtyping import Float\nfrom torch import Tensor\n\n\n"
        'def widen(x: Float[Tensor, "b 16"]):\n    return torch.cat([x, x], dim=-1)\n\n\n'
        "def unknown(x):\n    return x\n"
    )
    r = annotate_statically(src, "m.py")
    # the cat of two Float tensors is Float (the analysis has no dtype for it: the flow of kinds.py)
    assert 'def widen(x: Float[Tensor, "b 16"]) -> Float[Tensor, "b 32"]:' in r.source
    assert "def unknown(x):\n" in r.source
    assert "from jaxtyping import Float\n" in r.source
    assert any("inferred by the analysis" in m for m in r.messages)


STATIC_PARAMS = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(64, 10)

    def features(self, x):
        return self.conv(x)

    def head(self, x, extra=None):
        y = self.fc(x)
        if extra is not None:
            y = y + self.fc(extra)
        return y

    def tokens(self, x):
        b, n, c = x.shape
        return self.fc(x)

    def maybe(self, x, project: bool):
        b, n, c = x.shape
        if project:
            return self.fc(x)
        return x


def main():
    net = Net()
    net.features(torch.zeros(2, 3, 5, 5))
    net.features(torch.zeros(3, 5, 5))
    net.head(torch.zeros(4, 64))
    net.head(torch.zeros(2, 7, 64), torch.zeros(7, 64))
    net.tokens(torch.zeros(2, 7, 64))
    net.maybe(torch.zeros(2, 7, 5), False)
"""


def test_static_proposals_of_parameters_learnt_from_their_first_use(tmp_path: Path) -> None:
    """Parameters are proposed as the analysis learnt them, sharing names with the result, with
    what holds where the function returns (``c`` that ``fc`` requires to be 64 is 64); a parameter
    with a default is left alone; a function whose annotation would bring a new error (``c``
    written as a name, which ``fc`` requires to be 64 on one path only) keeps none.  The annotated
    code checks as clean as before and runs under jaxtyping with beartype."""
    from tensorshape.annotate.static import annotate_statically
    from tensorshape.infer import check_source

    r = annotate_statically(STATIC_PARAMS, "net.py")
    assert 'def features(self, x: Float[Tensor, "*batch 3 h w"]) -> Float[Tensor, "*batch 8 h w"]:' in r.source
    assert 'def head(self, x: Float[Tensor, "*batch 64"], extra=None):' in r.source
    assert 'def tokens(self, x: Float[Tensor, "b n 64"]) -> Float[Tensor, "b n 10"]:' in r.source
    assert "def maybe(self, x, project: bool):" in r.source
    assert any("parameter x inferred from its first use" in m for m in r.messages)
    assert annotate_statically(r.source, "net.py").source == r.source, "idempotent"
    assert check_source(r.source, "net.py").errors == []
    pytest.importorskip("torch")
    (tmp_path / "net.py").write_text(r.source)
    script = (
        "import sys\nfrom jaxtyping import install_import_hook\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        'with install_import_hook("net", "beartype.beartype"):\n    import net\n'
        "net.main()\nimport torch\n"
        "try:\n    net.Net().features(torch.zeros(2, 4, 5, 5))\nexcept Exception as e:\n"
        "    print(type(e).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "TypeCheckError" in out.stdout or "BeartypeCallHintParamViolation" in out.stdout, out.stdout


STATIC_KINDS = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 16)
        self.out = nn.Linear(16, 5)

    def forward(self, tokens, mask):
        b, t = tokens.shape
        h = self.emb(tokens)
        h = h.masked_fill(mask.unsqueeze(-1), 0.0)
        scores = self.out(h)
        return scores.argmax(dim=-1)

    def probs(self, h):
        return F.softmax(self.out(h), dim=-1)


def flat(x):
    b, c, n = x.shape
    return x.reshape(b, c * n)
"""


def test_static_proposals_say_float_int_or_bool_where_the_code_does() -> None:
    """Indices into an embedding are ``Int``, a ``masked_fill`` mask ``Bool`` (written when the
    analysis learns its shape), a Linear's input and a softmax ``Float``, an ``argmax`` ``Int``; a value
    nothing fixes the dtype of stays ``Shaped``."""
    import libcst as cst
    from tensorshape.annotate.kinds import function_kinds
    from tensorshape.annotate.static import annotate_statically

    kinds = function_kinds(cst.parse_module(STATIC_KINDS))
    assert kinds["Tagger.forward"] == {"tokens": "Int", "mask": "Bool", "return": "Int"}
    assert kinds["Tagger.probs"] == {"h": "Float", "return": "Float"}
    assert "flat" not in kinds
    r = annotate_statically(STATIC_KINDS, "tagger.py")
    assert 'def forward(self, tokens: Int[Tensor, "b t"], mask):' in r.source  # mask: no shape learnt
    assert 'def probs(self, h: Float[Tensor, "*batch 16"]) -> Float[Tensor, "*batch 5"]:' in r.source
    assert 'def flat(x: Shaped[Tensor, "b c n"]) -> Shaped[Tensor, "b c*n"]:' in r.source
