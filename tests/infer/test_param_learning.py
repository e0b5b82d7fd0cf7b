"""Unannotated parameters learn their shape from their first use (issue 16 item 5).

One test per rule of learning.  Truth from torch: each program runs with inputs torch
accepts (batched and unbatched where torch takes both), and every shape torch shows at a
``reveal_shape`` must fit the shape the checker claims there (names bind consistently,
``*run`` is any run of dims); where a rank or a size is learnt, an input without it makes
torch raise at the first use.  No rule may add an error torch would not raise.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import pytest
from tensorshape.infer import CheckSettings, check_source
from tensorshape.infer.api import annotation_specs, inferred_parameters
from tensorshape.rules.context import Options

from tests.infer.test_reach import run_torch as reach_run_torch

pytestmark = pytest.mark.torch

HEAD = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from tensorshape import reveal_shape
"""


def check(body: str, **options: Any) -> tuple[dict[int, str], set[tuple[int, str]], Any]:
    source = HEAD + textwrap.dedent(body)
    result = check_source(source, "prog.py", CheckSettings(options=Options(**options), record=True))
    reveals = {
        d.span.line: d.message.removeprefix("revealed shape: ").split("; ")[0]
        for d in result.diagnostics
        if d.code.id == "TS900"
    }
    return reveals, {(d.span.line, d.code.id) for d in result.errors}, result


def run_torch(body: str, *inputs: str) -> tuple[dict[int, list[list[int]]], list[int | None]]:
    """Run ``main(x)`` for each input (an expression): shapes per ``reveal_shape`` line, and the line
    each run raised on (``None``: it ran)."""
    seen: dict[int, list[list[int]]] = {}
    raised: list[int | None] = []
    for x in inputs:
        shown, line = reach_run_torch(
            HEAD + textwrap.dedent(body) + f"\n\n_main = main\n\ndef main():\n    _main({x})\n"
        )
        for k, v in shown.items():
            seen.setdefault(k, []).extend(v)
        raised.append(line)
    return seen, raised


def fits(claim: str, shape: list[int]) -> bool:
    """Does a concrete shape fit a claimed one (``[*batch 3 h w]``; expressions are not checked)?"""
    items = claim.strip("[]").split()
    star = next((i for i, t in enumerate(items) if t.startswith("*")), None)
    if star is None:
        if len(items) != len(shape):
            return False
        pairs = list(zip(items, shape))
    else:
        tail = len(items) - star - 1
        if len(shape) < len(items) - 1:
            return False
        pairs = list(zip(items[:star], shape[:star])) + list(zip(items[star + 1 :], shape[len(shape) - tail :]))
    bound: dict[str, int] = {}
    for t, n in pairs:
        if t.isdigit():
            if int(t) != n:
                return False
        elif re.fullmatch(r"[A-Za-z_]\w*'*", t):
            if bound.setdefault(t, n) != n:
                return False
    return True


def agree(reveals: dict[int, str], seen: dict[int, list[list[int]]]) -> None:
    for line, shapes in seen.items():
        assert line in reveals, f"line {line}: torch shows {shapes}, the checker says nothing"
        for s in shapes:
            assert fits(reveals[line], s), f"line {line}: torch shows {s}, the checker claims {reveals[line]}"


LINEAR = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(784, 10)

    def forward(self, x):
        y = self.fc(x)
        reveal_shape(x)
        reveal_shape(y)
        return y


def main(x):
    Net()(x)
"""


def test_a_linear_layer_fixes_the_last_dim() -> None:
    reveals, errors, result = check(LINEAR)
    assert reveals[13] == "[*batch 784]" and reveals[14] == "[*batch 10]"
    assert errors == set()
    seen, raised = run_torch(
        LINEAR, "torch.zeros(784)", "torch.zeros(2, 784)", "torch.zeros(2, 3, 784)", "torch.zeros(2, 5)"
    )
    assert raised == [None, None, None, 12], "torch takes any leading dims, and refuses another last dim"
    agree(reveals, seen)
    (param,) = inferred_parameters(result)["Net.forward"].values()
    assert (param.name, param.line, param.has_default) == ("x", 11, False)
    assert annotation_specs([param.value.shape]) == ["*batch 784"]


CONV = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 8, 3)

    def forward(self, x):
        h = self.conv2(F.relu(self.conv1(x)))
        reveal_shape(x)
        reveal_shape(h)
        h = F.max_pool2d(h, 2)
        reveal_shape(h)
        return h


def main(x):
    Net()(x)
"""


def test_a_conv_fixes_channels_and_spatial_dims_with_or_without_a_batch() -> None:
    reveals, errors, _ = check(CONV)
    assert reveals[14] == "[*batch 3 h w]"
    assert reveals[15] == "[*batch 8 h-2 w-2]"
    assert reveals[17] == "[*batch 8 h//2-1 w//2-1]"
    assert errors == set()
    seen, raised = run_torch(CONV, "torch.zeros(3, 9, 10)", "torch.zeros(2, 3, 12, 8)", "torch.zeros(2, 4, 12, 8)")
    assert raised == [None, None, 13], "unbatched and batched inputs are both taken: the rank stays open"
    agree(reveals, seen)


def test_a_conv_then_an_unpack_names_the_dims() -> None:
    body = CONV.replace("        reveal_shape(x)\n", "        b, c, hh, ww = x.shape\n        reveal_shape(x)\n")
    reveals, errors, result = check(body)
    assert reveals[15] == "[b 3 h w]"
    assert errors == set()
    (param,) = inferred_parameters(result)["Net.forward"].values()
    assert annotation_specs([param.value.shape]) == ["b 3 h w"]
    seen, raised = run_torch(body, "torch.zeros(2, 3, 12, 8)", "torch.zeros(3, 12, 8)")
    assert raised == [None, 14], "a 3-d input passes the conv and fails the unpack"
    agree(reveals, seen)


BATCHNORM = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(32)

    def forward(self, x):
        y = self.bn(x)
        reveal_shape(x)
        return y.mean()


def main(x):
    Net()(x)
"""


def test_batch_norm_2d_fixes_the_rank_torch_requires() -> None:
    reveals, errors, _ = check(BATCHNORM)
    assert reveals[13] == "[b 32 h w]"
    assert errors == set()
    seen, raised = run_torch(BATCHNORM, "torch.zeros(2, 32, 4, 5)", "torch.zeros(32, 4, 5)", "torch.zeros(2, 16, 4, 5)")
    assert raised == [None, 12, 12], "BatchNorm2d takes 4-d inputs with 32 channels only"
    agree(reveals, seen)


NORMS = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(64)
        self.emb = nn.Embedding(100, 64)
        self.seq = nn.Sequential(nn.Linear(16, 64), nn.ReLU())

    def norm(self, x):
        y = self.ln(x)
        reveal_shape(x)
        return y

    def embed(self, ids):
        e = self.emb(ids)
        reveal_shape(ids)
        reveal_shape(e)
        return e

    def mlp(self, z):
        h = self.seq(z)
        reveal_shape(z)
        reveal_shape(h)
        return h


def main(x):
    net = Net()
    net.norm(torch.zeros(*x, 64))
    net.embed(torch.zeros(*x, dtype=torch.long))
    net.mlp(torch.zeros(*x, 16))
"""


def test_layer_norm_embedding_and_a_sequential_first_layer() -> None:
    reveals, errors, result = check(NORMS)
    assert reveals[15] == "[*batch 64]"
    assert reveals[20] == "[*batch]" and reveals[21] == "[*batch 64]"
    assert reveals[26] == "[*batch 16]" and reveals[27] == "[*batch 64]"
    assert errors == set()
    learnt = inferred_parameters(result)
    assert learnt["Net.embed"]["ids"].value.dtype == "int64"
    seen, raised = run_torch(NORMS, "(1,)", "(3,)", "(2, 5)")
    assert raised == [None, None, None]
    agree(reveals, seen)


UNPACK = """
class Attention(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)

    def forward(self, x):
        B, N, C = x.shape
        reveal_shape(x)
        qkv = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads)
        reveal_shape(qkv)
        return qkv


def main(x):
    Attention(16, 4)(x)
"""


def test_unpacking_the_shape_fixes_the_rank_and_names_the_dims() -> None:
    reveals, errors, result = check(UNPACK)
    assert reveals[14] == "[B N C]"
    assert reveals[16].startswith("[B N 3 heads")
    assert errors == set()
    (param,) = inferred_parameters(result)["Attention.forward"].values()
    assert annotation_specs([param.value.shape]) == ["B N C"]
    seen, raised = run_torch(UNPACK, "torch.zeros(2, 5, 16)", "torch.zeros(5, 16)")
    assert raised == [None, 13]
    agree(reveals, seen)


PATHS = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.small = nn.Linear(8, 4)
        self.big = nn.Linear(32, 4)

    def forward(self, x, wide: bool):
        if wide:
            y = self.big(x)
        else:
            y = self.small(x)
        return y

    def guarded(self, x):
        try:
            y = self.big(x)
        except RuntimeError:
            y = self.small(x)
        return y

    def both(self, x):
        a = self.big(x)
        b = self.small(x)
        return a, b


def main(x):
    net = Net()
    net(x, x.shape[-1] == 32)
    net.guarded(x)
    net.both(x)
"""


def test_each_path_learns_on_its_own_and_only_a_certain_contradiction_is_an_error() -> None:
    _, errors, result = check(PATHS)
    assert errors == {(28, "TS101")}, "only `both` uses x as two different sizes on one path"
    _, raised = run_torch(PATHS, "torch.zeros(2, 8)", "torch.zeros(2, 32)")
    assert raised == [27, 28], "both branches and the except handler run; `both` raises for every size"
    learnt = inferred_parameters(result)
    assert "Net.forward" not in learnt, "two branches learnt two shapes: nothing to propose"
    assert annotation_specs([learnt["Net.both"]["x"].value.shape]) == ["*batch 32"]


def test_a_loop_learns_once() -> None:
    body = """
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)

        def forward(self, x, n: int):
            y = x
            for _ in range(n):
                y = self.fc(x) + y
            return y
    """
    _, errors, result = check(body)
    assert errors == set()
    assert annotation_specs([inferred_parameters(result)["Net.forward"]["x"].value.shape]) == ["*batch 8"]


def test_learning_can_be_turned_off() -> None:
    reveals, errors, result = check(LINEAR, learn_params=False)
    assert reveals[13] == "opaque" and reveals[14] == "[... 10]"
    assert inferred_parameters(result) == {}


def test_a_bare_tensor_annotation_learns_too() -> None:
    reveals, _, _ = check(LINEAR.replace("def forward(self, x):", "def forward(self, x: torch.Tensor):"))
    assert reveals[13] == "[*batch 784]"


def test_statistics_count_learnt_parameters() -> None:
    _, _, result = check(NORMS)
    assert result.stats["learned-parameters"] == 3


def line_of(body: str, text: str) -> int:
    """The line of ``body`` (as :func:`check` numbers it) that holds ``text``."""
    lines = (HEAD + textwrap.dedent(body)).splitlines()
    return next(i for i, s in enumerate(lines, 1) if text in s)


def same_errors_as_annotated(body: str, param: str, spec: str) -> set[tuple[int, str]]:
    """The errors of ``body`` with ``param`` learning, which must be those it has with ``spec`` as
    its annotation (a contradictory later use is reported the same)."""
    _, learnt, _ = check(body)
    typed = body.replace(f"(self, {param})", f'(self, {param}: Float[Tensor, "{spec}"])')
    typed = typed.replace(f"def f({param})", f'def f({param}: Float[Tensor, "{spec}"])')
    assert typed != body
    _, annotated, _ = check("from jaxtyping import Float\nfrom torch import Tensor\n" + typed)
    assert {(line - 2, code) for line, code in annotated} == learnt
    return learnt


RNN = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(32, 64, batch_first=True)
        self.gru = nn.GRU(16, 8)

    def forward(self, x):
        out, _ = self.lstm(x)
        reveal_shape(x)
        reveal_shape(out)
        return out

    def seq_first(self, y):
        out, h = self.gru(y)
        reveal_shape(y)
        return out


def main(x):
    net = Net()
    net(x)
    net.seq_first(x[..., :16].transpose(0, -2) if x.dim() == 3 else x[..., :16])
"""


def test_an_rnn_fixes_the_features_and_with_batch_first_the_sequence_before_them() -> None:
    reveals, errors, result = check(RNN)
    assert reveals[line_of(RNN, "reveal_shape(x)")] == "[*batch l 32]"
    assert reveals[line_of(RNN, "reveal_shape(out)")] == "[*batch l 64]"
    assert reveals[line_of(RNN, "reveal_shape(y)")] == "[*batch 16]", "[l n 16] or [l 16]: only the features"
    assert errors == set()
    assert annotation_specs([inferred_parameters(result)["Net.forward"]["x"].value.shape]) == ["*batch l 32"]
    seen, raised = run_torch(RNN, "torch.zeros(2, 5, 32)", "torch.zeros(5, 32)", "torch.zeros(2, 5, 16)")
    at = line_of(RNN, "self.lstm(x)")
    assert raised == [None, None, at], "batched and unbatched inputs are taken, other features refused"
    agree(reveals, seen)
    contradiction = RNN.replace("        return out\n\n    def seq", "        return self.gru(x)\n\n    def seq", 1)
    assert same_errors_as_annotated(contradiction, "x", "*batch l 32") == {
        (line_of(contradiction, "self.gru(x)"), "TS101")
    }
    _, raised = run_torch(contradiction, "torch.zeros(2, 5, 32)")
    assert raised == [line_of(contradiction, "self.gru(x)")]


MHA = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(64, 4, batch_first=True)
        self.cross = nn.MultiheadAttention(64, 4, kdim=16, vdim=16)

    def forward(self, x):
        y, w = self.attn(x, x, x)
        reveal_shape(x)
        reveal_shape(y)
        reveal_shape(w)
        return y

    def attend(self, q, m):
        z, _ = self.cross(q, m, m)
        reveal_shape(q)
        reveal_shape(m)
        reveal_shape(z)
        return z


def main(x):
    net = Net()
    net(x)
    net.attend(x.transpose(0, 1), torch.zeros(x.shape[1], x.shape[0], 16))
"""


def test_attention_fixes_the_embedding_of_the_query_and_kdim_of_the_key() -> None:
    reveals, errors, _ = check(MHA)
    assert reveals[line_of(MHA, "reveal_shape(x)")] == "[*batch l 64]"
    assert reveals[line_of(MHA, "reveal_shape(q)")] == "[*batch 64]"
    assert reveals[line_of(MHA, "reveal_shape(m)")] == "[*batch_m 16]"
    # The output carries the query's run of dims (its last one the embedding).
    assert reveals[line_of(MHA, "reveal_shape(y)")] == "[*batch l 64]"
    assert reveals[line_of(MHA, "reveal_shape(w)")] == "[*batch l l]"
    assert reveals[line_of(MHA, "reveal_shape(z)")] == "[*batch 64]"
    assert errors == set()
    seen, raised = run_torch(MHA, "torch.zeros(2, 5, 64)", "torch.zeros(2, 5, 32)")
    assert raised == [None, line_of(MHA, "self.attn(x, x, x)")]
    agree(reveals, seen)
    contradiction = MHA.replace("        return y\n", "        return nn.Linear(16, 4)(x)\n", 1)
    learnt = same_errors_as_annotated(contradiction, "x", "*batch l 64")
    assert learnt == {(line_of(contradiction, "nn.Linear(16, 4)(x)"), "TS101")}
    _, raised = run_torch(contradiction, "torch.zeros(2, 5, 64)")
    assert raised == [line_of(contradiction, "nn.Linear(16, 4)(x)")]


POOL = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        p = self.pool(x)
        reveal_shape(x)
        reveal_shape(p)
        return p


def main(x):
    Net()(x)
"""


def test_pooling_fixes_the_spatial_dims_and_a_channel_dim() -> None:
    reveals, errors, _ = check(POOL)
    assert reveals[line_of(POOL, "reveal_shape(x)")] == "[*batch c h w]"
    assert reveals[line_of(POOL, "reveal_shape(p)")] == "[*batch c h//2 w//2]"
    assert errors == set()
    seen, raised = run_torch(POOL, "torch.zeros(2, 3, 8, 6)", "torch.zeros(3, 8, 6)", "torch.zeros(8, 6)")
    assert raised == [None, None, line_of(POOL, "self.pool(x)")], "3-d and 4-d inputs only"
    agree(reveals, seen)
    contradiction = POOL.replace("        return p\n", "        return x.view(-1)[0] + x.sum(dim=3)\n", 1)
    learnt = same_errors_as_annotated(contradiction, "x", "*batch c h w")
    _, raised = run_torch(contradiction, "torch.zeros(3, 8, 6)")
    assert raised == [line_of(contradiction, "x.sum(dim=3)")], "a 3-d input has no dim 3"
    assert learnt == set(), "dim 3 exists when there is a batch dim: no error, as with the annotation"


PERMUTE = """
def f(x):
    y = x.permute(0, 2, 1)
    reveal_shape(x)
    reveal_shape(y)
    return y


def main(x):
    f(x)
"""


def test_permute_fixes_the_rank() -> None:
    reveals, errors, result = check(PERMUTE)
    assert reveals[line_of(PERMUTE, "reveal_shape(x)")] == "[d0 d1 d2]"
    assert reveals[line_of(PERMUTE, "reveal_shape(y)")] == "[d0 d2 d1]"
    assert errors == set()
    assert annotation_specs([inferred_parameters(result)["f"]["x"].value.shape]) == ["d0 d1 d2"]
    seen, raised = run_torch(PERMUTE, "torch.zeros(2, 3, 4)", "torch.zeros(2, 3)")
    assert raised == [None, line_of(PERMUTE, "x.permute")]
    agree(reveals, seen)
    contradiction = PERMUTE.replace("    return y\n", "    return x.permute(1, 0)\n", 1)
    learnt = same_errors_as_annotated(contradiction, "x", "d0 d1 d2")
    assert learnt == {(line_of(contradiction, "x.permute(1, 0)"), "TS107")} or len(learnt) == 1
    _, raised = run_torch(contradiction, "torch.zeros(2, 3, 4)")
    assert raised == [line_of(contradiction, "x.permute(1, 0)")]


THROUGH = """
class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)

    def forward(self, x):
        y = self.conv(x)
        return x + y


def stem(v):
    return nn.Linear(16, 8)(v)


def maybe(v, flag):
    if flag:
        return v
    return nn.Linear(16, 8)(v)


def passes_on(v):
    return stem(v)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(3)

    def forward(self, x):
        y = self.block(x)
        reveal_shape(x)
        reveal_shape(y)
        return y


def f(z):
    out = passes_on(z)
    reveal_shape(z)
    return out


def g(z):
    out = maybe(z, True)
    reveal_shape(z)
    return out


def main(x):
    Net()(x)
    f(torch.zeros(2, 16))
"""


def test_a_parameter_learns_through_calls_of_the_projects_functions_and_modules() -> None:
    """Passed to a project module whose ``forward`` starts with a convolution, or to a function that
    passes it on to one that starts with a linear layer, a parameter learns what that first use
    requires (transitively); a use that not every call reaches (after an early ``return``) teaches
    nothing."""
    reveals, errors, result = check(THROUGH)
    assert reveals[line_of(THROUGH, "reveal_shape(x)")] == "[*batch 3 h w]"
    assert reveals[line_of(THROUGH, "reveal_shape(y)")] == "[*batch 3 h w]"
    lines = (HEAD + textwrap.dedent(THROUGH)).splitlines()
    z_lines = [i for i, s in enumerate(lines, 1) if "reveal_shape(z)" in s]
    assert reveals[z_lines[0]] == "[*batch 16]", "f's z: through passes_on, then stem"
    assert reveals[z_lines[1]] != "[*batch 16]", "g's z: maybe may return before its linear layer"
    assert errors == set()
    seen, raised = run_torch(THROUGH, "torch.zeros(2, 3, 8, 8)", "torch.zeros(3, 8, 8)", "torch.zeros(2, 4, 8, 8)")
    assert raised == [None, None, line_of(THROUGH, "y = self.conv(x)")], "torch refuses another channel count"
    agree(reveals, seen)
    params = inferred_parameters(result)
    assert annotation_specs([p.value.shape for p in params["Net.forward"].values()]) == ["*batch 3 h w"]
    assert annotation_specs([p.value.shape for p in params["f"].values()]) == ["*batch 16"]
    contradiction = THROUGH.replace("        reveal_shape(y)\n", "        nn.Conv2d(4, 2, 3)(x)\n", 1)
    learnt = same_errors_as_annotated(contradiction, "x", "*batch 3 h w")
    assert learnt == {(line_of(contradiction, "nn.Conv2d(4, 2, 3)(x)"), "TS101")}
    _, raised = run_torch(contradiction, "torch.zeros(2, 3, 8, 8)")
    assert raised == [line_of(contradiction, "nn.Conv2d(4, 2, 3)(x)")]


SIZED_BY_THE_CONSTRUCTOR = """
class Net(nn.Module):
    def __init__(self, c, d, h):
        super().__init__()
        self.conv = nn.Conv2d(c, 8, 3)
        self.norm = nn.BatchNorm2d(c)
        self.rnn = nn.GRU(d, h, batch_first=True)
        self.fc = nn.Linear(d, 4)

    def forward(self, img, maps, seq, v):
        a = self.conv(img)
        reveal_shape(img)
        reveal_shape(a)
        self.norm(maps)
        reveal_shape(maps)
        out, _ = self.rnn(seq)
        reveal_shape(seq)
        y = self.fc(v)
        reveal_shape(v)
        reveal_shape(y)
        return a


def main(x):
    Net(3, 6, 5)(*x)
"""


def test_layers_sized_by_constructor_arguments_teach_the_rank_and_name_the_size() -> None:
    """In the generic analysis of ``forward`` a layer's size from ``__init__``'s argument is not known:
    the parameter still learns the rank the layer takes, the size a fresh name."""
    reveals, errors, result = check(SIZED_BY_THE_CONSTRUCTOR)
    assert reveals[16] == "[*batch c h w]"
    assert reveals[17] == "[*batch 8 h-2 w-2]"
    assert reveals[19] == "[b c' h' w']"
    assert reveals[21] == "[*batch_seq l d]"
    assert reveals[23] == "[*batch_v in_features]"
    assert reveals[24] == "[*batch_v 4]"
    assert errors == set()
    good = "torch.zeros(2, 3, 9, 9), torch.zeros(2, 3, 4, 4), torch.zeros(2, 7, 6), torch.zeros(5, 6)"
    seen, raised = run_torch(
        SIZED_BY_THE_CONSTRUCTOR,
        f"({good})",
        "(torch.zeros(3, 9, 9), torch.zeros(1, 3, 4, 4), torch.zeros(7, 6), torch.zeros(6))",
        "(torch.zeros(9, 9), torch.zeros(2, 3, 4, 4), torch.zeros(2, 7, 6), torch.zeros(5, 6))",
        "(torch.zeros(2, 3, 9, 9), torch.zeros(3, 4, 4), torch.zeros(2, 7, 6), torch.zeros(5, 6))",
    )
    assert raised == [None, None, 15, 18], "a rank the layer does not take raises at its first use"
    agree(reveals, seen)
    learned = inferred_parameters(result)["Net.forward"]
    assert annotation_specs([learned["img"].value.shape]) == ["*batch c h w"]
