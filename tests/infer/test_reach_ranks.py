"""Runs of dims of unknown length (issue 15): ``x.view(*x.shape[:-1], 4, -1)`` on a tensor of
unknown rank, parameters whose first use fixes only a minimum rank (``x.size(1)``), and shapes
whose run comes after known dims (``[d0 d1 *batch]``), which those parameters now hold.

Truth from torch: each program runs on inputs of several ranks; every shape torch shows at a
``reveal_shape`` fits the checker's claim there (see ``test_param_learning.fits``), and an input
the claim excludes makes torch raise at the line that taught it.
"""

from __future__ import annotations

import pytest

from tests.infer.test_param_learning import agree, check, run_torch

pytestmark = pytest.mark.torch

def agree_runs(reveals: dict[int, str], seen: dict[int, list[list[int]]]) -> None:
    """:func:`agree`, an anonymous run (``...``) any run of dims, ``?`` any size (``opaque``: any shape)."""
    renamed = {k: "[*run]" if v == "opaque" else v.replace("...", "*run").replace("?", "_") for k, v in reveals.items()}
    agree(renamed, seen)


HEADS = """
def main(x):
    q = x.view(*x.shape[:-1], 4, -1)
    reveal_shape(q)
    r = q.reshape(*q.shape[:-2], -1)
    reveal_shape(r)
    return r
"""


def test_a_view_keeps_the_run_of_a_shape_slice() -> None:
    """Heads split off the last dim of a tensor of any rank: the run stays, the last dim is split,
    and torch agrees on every rank (the inferred dim is the last one over 4)."""
    body = HEADS.replace("def main(x):", "def main(x: Float[Tensor, '*b d']):")
    body = "from jaxtyping import Float\nfrom torch import Tensor\n" + body
    reveals, errors, _ = check(body)
    assert reveals[10] == "[*b 4 d//4]" and reveals[12] == "[*b 4*(d//4)]", reveals
    assert errors == set()
    seen, raised = run_torch(body, "torch.zeros(8)", "torch.zeros(2, 12)", "torch.zeros(2, 3, 16)")
    assert raised == [None, None, None]
    agree(reveals, seen)
    assert seen[10] == [[4, 2], [2, 4, 3], [2, 3, 4, 4]] and seen[12] == [[8], [2, 12], [2, 3, 16]]


def test_a_view_of_a_tensor_of_unknown_rank_keeps_a_run() -> None:
    """``x: Tensor`` (no shape): the result still has the 4 and a last dim after some run."""
    body = "from torch import Tensor\n" + HEADS.replace("def main(x):", "def main(x: Tensor):")
    reveals, errors, _ = check(body)
    assert reveals[9] == "[... 4 ?]" and errors == set()
    seen, raised = run_torch(body, "torch.zeros(8)", "torch.zeros(2, 3, 16)", "torch.zeros(2, 6)")
    assert raised == [None, None, 8], "the last dim must divide by 4: torch raises for 6"
    agree_runs(reveals, seen)


def test_a_view_whose_last_dim_does_not_divide_is_an_error() -> None:
    body = "from jaxtyping import Float\nfrom torch import Tensor\n" + HEADS.replace(
        "def main(x):", "def main(x: Float[Tensor, '*b 6']):"
    )
    _, errors, _ = check(body)
    assert errors == {(9, "TS106")}
    _, raised = run_torch(body, "torch.zeros(6)", "torch.zeros(5, 2, 6)")
    assert raised == [9, 9], "6 elements never split into 4 rows, whatever the leading dims"


FLATTEN_HEAD = """
def main(x):
    y = x.reshape(-1, *x.shape[2:])
    reveal_shape(y)
    return y
"""


def test_a_view_that_merges_the_leading_dims_keeps_the_run_after_them() -> None:
    body = "from jaxtyping import Float\nfrom torch import Tensor\n" + FLATTEN_HEAD.replace(
        "def main(x):", "def main(x: Float[Tensor, 'a c *s']):"
    )
    reveals, errors, _ = check(body)
    assert reveals[10] == "[a*c *s]" and errors == set()
    seen, raised = run_torch(body, "torch.zeros(2, 3)", "torch.zeros(2, 3, 4, 5)")
    assert raised == [None, None]
    assert seen[10] == [[6], [6, 4, 5]]
    agree(reveals, seen)


MIN_RANK = """
def main(x, y, z, w, s):
    n = x.size(1)
    reveal_shape(x)
    m = y.shape[2]
    reveal_shape(y)
    f = torch.flatten(z, 0, 1)
    reveal_shape(z)
    reveal_shape(f)
    t = w.transpose(1, 2)
    reveal_shape(w)
    reveal_shape(t)
    u = s.transpose(0, -1)
    reveal_shape(s)
    return n + m
"""


@pytest.mark.parametrize("annotate", [False, True], ids=["unannotated", "bare-tensor"])
def test_a_first_use_that_fixes_a_minimum_rank_teaches_it(annotate: bool) -> None:
    body = MIN_RANK
    if annotate:
        body = "from torch import Tensor\n" + body.replace("(x, y, z, w, s)", "(x: Tensor, y: Tensor, z: Tensor, w: Tensor, s: Tensor)")
    line = 9 if annotate else 8
    reveals, errors, result = check(body)
    assert errors == set()
    reveals = {k: v.replace("'", "") for k, v in reveals.items()}  # fresh names: d0, d0', d0''...
    assert reveals[line] == "[d0 d1 *batch]"
    assert reveals[line + 2] == "[d0 d1 d2 *batch_y]"
    assert reveals[line + 4] == "[d0 d1 *batch_z]" and reveals[line + 5] == "[d0*d1 *batch_z]"
    assert reveals[line + 7] == "[d0 d1 d2 *batch_w]" and reveals[line + 8] == "[d0 d2 d1 *batch_w]"
    assert reveals[line + 10] in ("opaque", "[...]"), "a 0-d tensor takes dims 0 and -1: nothing is learnt"
    assert result.stats["learned-parameters"] == 4
    ok = "torch.zeros(2, 3), torch.zeros(2, 3, 4), torch.zeros(2, 3), torch.zeros(2, 3, 4), torch.zeros(())"
    big = "torch.zeros(2, 3, 5), torch.zeros(2, 3, 4, 6), torch.zeros(2, 3, 7), torch.zeros(2, 3, 4, 1), torch.ones(5)"
    short = "torch.zeros(2), torch.zeros(2, 3, 4), torch.zeros(2, 3), torch.zeros(2, 3, 4), torch.zeros(())"
    seen, raised = run_torch(body, f"*({ok})", f"*({big})", f"*({short})")
    assert raised == [None, None, line - 1], "a 1-d x has no size(1)"
    assert seen[line + 5] == [[6], [6, 7]]
    agree_runs(reveals, seen)


def test_a_later_layer_checks_a_parameter_that_learnt_its_minimum_rank() -> None:
    """``[d0 d1 *batch]`` meets ``nn.Linear(784, 10)``: its last dim is in the run (or is ``d1``),
    so the result keeps ``d0`` and a run before the 10, never the whole run (a rank too many)."""
    body = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(784, 10)

    def forward(self, x):
        n = x.size(1)
        y = self.fc(x)
        reveal_shape(y)
        z = torch.ones(3, 5) @ x
        return y


def main(x):
    Net()(x)
"""
    reveals, errors, _ = check(body)
    assert reveals[14] == "[d0 ... 10]" and errors == set(), (reveals, errors)
    seen, raised = run_torch(body, "torch.zeros(2, 784)", "torch.zeros(5, 3, 784)", "torch.zeros(2, 5, 784)")
    assert raised == [15, 15, None], "[3 5] @ x needs x's second-to-last dim to be 5"
    agree_runs(reveals, seen)
    assert seen[14] == [[2, 10], [5, 3, 10], [2, 5, 10]]


def test_characters_of_a_literal_string_give_a_comprehension_its_length() -> None:
    body = """
def encode(stoi, prompt):
    ids = torch.tensor([[stoi[c] for c in prompt]], dtype=torch.long)
    reveal_shape(ids)
    return ids


def main(x):
    encode({c: i for i, c in enumerate("abcdef")}, "abc")
"""
    reveals, errors, result = check(body)
    views = [d.message for d in result.diagnostics if d.code.id == "TS900"]
    assert any("[1 3] (with a caller's sizes)" in v for v in views), views
    seen, _ = run_torch(body, "0")
    assert seen[8] == [[1, 3]]


FIXED_RANK = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 8, 3)

    def forward(self, x):
        c = x.size(2)
        y = self.conv(x)
        reveal_shape(x)
        return y


def main(x, w, s):
    n = x.size(1)
    y = torch.bmm(x, w)
    reveal_shape(x)
    t = s.size(0)
    z = s.permute(0, 2, 1)
    reveal_shape(s)
    Net()(z)
    return y
"""


def test_a_use_that_fixes_the_rank_completes_a_minimum_rank() -> None:
    """``x.size(1)`` teaches ``[d0 d1 *batch]``; ``torch.bmm(x, w)`` then runs only for 3 dims, so
    ``x`` is ``[d0 d1 d2]`` after it (as ``s`` after ``s.permute(0, 2, 1)``, and a 1-d conv's input
    that has 3 dims around its run).  Torch agrees on every input, and raises at the call that
    fixed the rank for any other."""
    reveals, errors, _ = check(FIXED_RANK)
    reveals = {k: v.replace("'", "") for k, v in reveals.items()}
    assert errors == set(), errors
    assert reveals[14] == "[d0 d1 d2]", reveals  # the conv's input: [d0 d1 d2 *batch] before
    assert reveals[21] == "[d0 d1 d2]" and reveals[24] == "[d0 d1 d2]", reveals
    ok = "torch.zeros(2, 3, 4), torch.zeros(2, 4, 5), torch.zeros(2, 9, 4)"
    seen, raised = run_torch(FIXED_RANK, ok)
    assert raised == [None]
    agree(reveals, seen)
    longer = "torch.zeros(2, 3, 4, 1), torch.zeros(2, 4, 5), torch.zeros(2, 9, 4)"
    shorter = "torch.zeros(2, 3, 4), torch.zeros(2, 4, 5), torch.zeros(2, 9, 4, 1)"
    _, raised = run_torch(FIXED_RANK, longer, shorter)
    assert raised == [20, 23], "bmm raises for a 4-d x, permute for a 4-d s"
