"""The elements of small tensors computed from constants (issue 22: torchvision's RegNet computes its
stage widths with ``torch.arange``, ``log``, ``round`` and ``.int().tolist()``).

Truth from torch: each program runs, and every shape torch shows at a ``reveal_shape`` is the
checker's claim.  Where the values could be stale (a tensor changed in place, or handed to code
that could change it) or an ulp of torch's own ``log`` could change an int read from them, the
checker must not claim a size: unknown, never a wrong one.
"""

from __future__ import annotations

import pytest

from tests.infer.test_param_learning import agree, check, fits, run_torch

pytestmark = pytest.mark.torch

REGNET = """
def main(x):
    depth, w_0, w_a, w_m, quant = 16, 48, 27.89, 2.09, 8
    widths_cont = torch.arange(depth) * w_a + w_0
    block_capacity = torch.round(torch.log(widths_cont / w_0) / math.log(w_m))
    block_widths = (torch.round(torch.divide(w_0 * torch.pow(w_m, block_capacity), quant)) * quant).int().tolist()
    num_stages = len(set(block_widths))
    split_helper = zip(block_widths + [0], [0] + block_widths, block_widths + [0], [0] + block_widths)
    splits = [w != wp or r != rp for w, wp, r, rp in split_helper]
    stage_widths = [w for w, t in zip(block_widths, splits[:-1]) if t]
    stage_depths = torch.diff(torch.tensor([d for d, t in enumerate(splits) if t])).int().tolist()
    reveal_shape(torch.zeros(stage_widths[0], stage_widths[-1], num_stages))
    reveal_shape(torch.zeros(*stage_depths))
    reveal_shape(torch.zeros(sorted(block_widths)[-1], len(set([3, 1, 3]))))
"""


def _agree_or_unknown(reveals: dict[int, str], seen: dict[int, list[list[int]]]) -> None:
    """Every shape torch shows is the checker's claim, or the checker claims none (``unknown``)."""
    for line, shapes in seen.items():
        assert line in reveals, f"line {line}: torch shows {shapes}, the checker says nothing"
        assert reveals[line] == "unknown" or all(fits(reveals[line], s) for s in shapes), (line, shapes, reveals)


def _exact(body: str) -> dict[int, str]:
    reveals, errors, _ = check("import math\n" + body)
    assert not errors
    seen, raised = run_torch("import math\n" + body, "None")
    assert raised == [None]
    agree(reveals, seen)
    return reveals


def test_regnet_stage_widths_are_computed_as_torch_computes_them() -> None:
    reveals = _exact(REGNET)
    assert sorted(reveals.values()) == ["[1 3 6 6]", "[440 2]", "[48 440 4]"]


FLOAT32 = """
def main(x):
    a = (torch.tensor([0.29, 0.53, 0.58]) * 100).int().tolist()
    reveal_shape(torch.zeros(*a))
    b = (torch.arange(1, 4) / 4 * 8 - 1).long().tolist()
    reveal_shape(torch.zeros(*b))
    c = torch.tensor([7, 2]) // 2 + torch.tensor([1, 1]) % 2 * 3
    reveal_shape(torch.zeros(*c.tolist(), int(c.sum()), c.prod().item()))
    d = torch.tensor([3.7, -2.5]).trunc().abs() + 1
    reveal_shape(torch.zeros(*d.int().tolist()))
"""


def test_float32_arithmetic_gives_torchs_ints_not_float64s() -> None:
    # float64 would give 28, 53, 57: torch's float32 gives 29, 52, 58.
    reveals = _exact(FLOAT32)
    assert sorted(reveals.values()) == ["[1 3 5]", "[29 52 58]", "[4 3]", "[6 4 10 24]"]


NEAR = """
def main(x):
    ratio = torch.log(torch.tensor([8.0, 27.0])) / math.log(3.0)
    reveal_shape(torch.zeros(*ratio.floor().int().tolist()))
    reveal_shape(torch.zeros(*torch.round(ratio).int().tolist()))
"""


def test_an_int_an_ulp_of_log_could_change_is_not_claimed() -> None:
    # log(27)/log(3) is 3 up to an ulp: its floor is 2 or 3 depending on torch's kernel; its round is 3
    # either way.
    reveals, errors, _ = check("import math\n" + NEAR)
    seen, raised = run_torch("import math\n" + NEAR, "None")
    assert not errors and raised == [None]
    _agree_or_unknown(reveals, seen)
    assert "[2 3]" in reveals.values()
    floors = [r for r in reveals.values() if r != "[2 3]"]
    assert floors and all(r == "unknown" or "?" in r for r in floors), reveals


STALE = """
def bump(t):
    t.add_(1)


def in_place(x):
    w = torch.arange(2, 4)
    w.mul_(2)
    reveal_shape(torch.zeros(*w.tolist()))


def augmented(x):
    w = torch.arange(2, 4)
    v = w
    v += 1
    reveal_shape(torch.zeros(*w.tolist()))


def stored(x):
    w = torch.arange(2, 4)
    w[0] = 5
    reveal_shape(torch.zeros(*w.tolist()))


def through_a_callee(x):
    w = torch.arange(2, 4)
    bump(w)
    reveal_shape(torch.zeros(*w.tolist()))


def bump_all(d):
    d["w"].add_(1)


def through_a_dict(x):
    w = torch.arange(2, 4)
    d = {"w": w}
    bump_all(d)
    reveal_shape(torch.zeros(*d["w"].tolist()))


def returned(x):
    w = torch.arange(2, 4)
    return w


def main(x):
    in_place(x)
    augmented(x)
    stored(x)
    through_a_callee(x)
    through_a_dict(x)
    r = returned(x)
    bump(r)
    reveal_shape(torch.zeros(*r.tolist()))
"""


def test_contents_a_change_in_place_could_make_stale_are_not_claimed() -> None:
    reveals, errors, _ = check(STALE)
    assert not errors
    seen, raised = run_torch(STALE, "None")
    assert raised == [None]
    _agree_or_unknown(reveals, seen)
    assert len(reveals) == 6
    for line, claim in reveals.items():
        # torch's sizes are 4 6 / 3 4 / 5 3 / 3 4 / 3 4: the unchanged 2 3 would be wrong.
        assert claim != "[2 3]", (line, claim)


TRUTH = """
def main(x):
    layers = []
    se_ratio, none_ratio = 0.25, 0.0
    if se_ratio:
        layers.append(nn.Linear(8, round(se_ratio * 32)))
    if none_ratio:
        layers.append(nn.Linear(8, 99))
    net = nn.Sequential(*layers)
    reveal_shape(net(torch.randn(2, 8)))
    named = {}
    named["a"] = nn.Linear(8, 6)
    if se_ratio:
        named["b"] = nn.Linear(6, 5)
    reveal_shape(nn.Sequential(OrderedDict(named))(torch.randn(2, 8)))
    reveal_shape(torch.zeros(round(2.5), round(3.5), int(round(7.25, 1) * 2)))
"""


def test_floats_have_a_truth_value_and_round_is_pythons() -> None:
    # (and ``OrderedDict(d)`` of a plain dict is a copy of it, in its order)
    reveals = _exact("from collections import OrderedDict\n" + TRUTH)
    assert sorted(reveals.values()) == ["[2 4 14]", "[2 5]", "[2 8]"]
