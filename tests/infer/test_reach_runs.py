"""Sizes holding a run of unknown length beyond the ``view``/``reshape`` methods (issue 15):
``torch.reshape(x, (*x.shape[:-1], 3, -1))``, ``x.expand(*s, d)``, ``x.new_zeros((*s, d))`` and its
kin, ``torch.zeros(*x.shape[:-1], d)``; a list of known length taken back with ``pop()``;
``torch.kron`` of any ranks.

Truth from torch: each program runs on inputs of several ranks, every shape torch shows at a
``reveal_shape`` fits the checker's claim there, and an error is reported exactly where torch
raises for every rank.
"""

from __future__ import annotations

import pytest

from tests.infer.test_param_learning import agree, check, run_torch

pytestmark = pytest.mark.torch

HEAD = "from jaxtyping import Float\nfrom torch import Tensor\n"

VIEWS = HEAD + """
def main(x: Float[Tensor, '*b 12']):
    m = x[..., :1]
    reveal_shape(torch.reshape(x, (*x.shape[:-1], 3, -1)))
    reveal_shape(m.expand(*m.shape[:-1], 7))
    reveal_shape(m.expand(*x.shape[:-1], -1))
    reveal_shape(x.new_zeros((*x.shape[:-1], 5)))
    reveal_shape(x.new_ones(*x.shape[:-1], 5))
    reveal_shape(x.new_full((*x.shape[:-1], 2), 1.0))
    reveal_shape(x.new_empty(x.shape[:-1]))
    reveal_shape(torch.zeros(*x.shape[:-1], 6))
    reveal_shape(torch.ones((*x.shape[:-1], 6), dtype=torch.long))
    return x
"""


def test_sizes_with_a_run_keep_it_in_every_form() -> None:
    reveals, errors, _ = check(VIEWS)
    assert errors == set()
    first = min(reveals)
    assert [reveals[first + k] for k in range(9)] == [
        "[*b 3 4]", "[*b 7]", "[*b 1]", "[*b 5]", "[*b 5]", "[*b 2]", "[*b]", "[*b 6]", "[*b 6]",
    ], reveals
    seen, raised = run_torch(VIEWS, "torch.zeros(12)", "torch.zeros(2, 12)", "torch.zeros(2, 3, 12)")
    assert raised == [None, None, None]
    agree(reveals, seen)


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("torch.reshape(x, (*x.shape[:-1], 5, -1))", "TS106"),
        ("x.expand(*x.shape[:-1], 7)", "TS102"),
        ("torch.zeros(*x.shape[:-1], -2)", "TS108"),
        ("x.new_zeros((*x.shape[:-1], -3))", "TS108"),
    ],
)
def test_sizes_with_a_run_torch_rejects_for_every_rank_are_errors(line: str, code: str) -> None:
    body = HEAD + f"\ndef main(x: Float[Tensor, '*b 12']):\n    y = {line}\n    return y\n"
    _, errors, _ = check(body)
    assert {c for _, c in errors} == {code}, errors
    _, raised = run_torch(body, "torch.zeros(12)", "torch.zeros(2, 12)", "torch.zeros(2, 3, 12)")
    assert all(r is not None for r in raised), raised


UNET = """
class Up(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.norm = nn.GroupNorm(4, c_in)
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1)

    def forward(self, x):
        return self.conv(self.norm(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.ModuleList([nn.Conv2d(4, 8, 3, padding=1), nn.Conv2d(8, 16, 3, padding=1)])
        self.up = nn.ModuleList([Up(32, 8), Up(16, 4)])

    def forward(self, h):
        skips = []
        for conv in self.down:
            h = conv(h)
            skips.append(h)
        for up in self.up:
            h = torch.cat([h, skips.pop()], dim=1)
            reveal_shape(h)
            h = up(h)
        return h


def main(x):
    reveal_shape(Net()(torch.zeros(2, 4, 8, 8)))
"""


def test_a_list_of_known_length_gives_back_its_items_with_pop() -> None:
    """A UNet's decoder takes its skips back in reverse: each ``pop()`` is that skip, not a join."""
    _, errors, result = check(UNET)
    assert errors == set()
    seen, raised = run_torch(UNET, "None")
    assert raised == [None]
    shown = {d.span.line: d.message for d in result.diagnostics if d.code.id == "TS900"}
    # the loop's reveal has one shape per skip (with the caller's sizes), as torch shows them
    for line, shapes in seen.items():
        for s in shapes:
            assert f"[{' '.join(map(str, s))}]" in shown[line], (line, s, shown[line])
    assert "?" not in shown[min(seen)], shown
    bad = UNET.replace("Up(16, 4)", "Up(8, 4)")
    _, errors, _ = check(bad)
    assert {c for _, c in errors} == {"TS101"}, errors
    _, raised = run_torch(bad, "None")
    assert raised[0] is not None


KRON = """
def main(a, b):
    reveal_shape(torch.kron(a, b))
"""


@pytest.mark.parametrize(("a", "b"), [("(2, 3, 4)", "(5, 6)"), ("(3,)", "(2, 2)"), ("()", "(2,)"), ("(2, 3)", "(4, 5)")])
def test_kron_of_any_ranks(a: str, b: str) -> None:
    """``torch.kron`` pads the operand with fewer dims with leading 1s (a 3-d one was a false TS103)."""
    body = KRON.replace("def main(a, b):", f"def main(a, b):\n    a = torch.zeros({a})\n    b = torch.zeros({b})")
    reveals, errors, _ = check(body)
    assert errors == set()
    seen, raised = run_torch(body, "None, None")
    assert raised == [None]
    agree(reveals, seen)
    assert "?" not in next(iter(reveals.values()))


# torchvision's ``clip_boxes_to_image`` and timm's ``rot``: a view to ``x.shape`` of an unannotated
# ``x`` from a tensor whose shape holds a run known nothing about.  The two runs may have any lengths:
# no error (reach-exact-10 took them for the same run and reported TS106 on both libraries).
ANONYMOUS_RUNS = """
def main(x):
    y = torch.stack([-x[..., 1::2], x[..., ::2]], -1)
    reveal_shape(y)
    z = y.reshape(x.shape)
    reveal_shape(z)
    return z
"""


def test_two_runs_known_nothing_about_are_not_the_same_run() -> None:
    reveals, errors, _ = check(ANONYMOUS_RUNS)
    assert errors == set()
    seen, raised = run_torch(ANONYMOUS_RUNS, "torch.zeros(4)", "torch.zeros(3, 4)", "torch.zeros(2, 3, 6)")
    assert raised == [None, None, None]
    y_line = min(reveals)
    assert reveals[y_line] == "[... 2]"
    assert seen[y_line] and all(s[-1] == 2 for s in seen[y_line])
