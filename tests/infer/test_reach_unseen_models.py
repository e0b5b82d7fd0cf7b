"""What three unseen realistic programs exposed (issue 15: a LLaMA decoder, NeRF, an FPN with a
RetinaNet head, ``tests/realistic/programs``): lambdas with default arguments, loops over a tensor's
rows, slices counted from the end of a symbolic axis, the tensor after a reshape that always fails,
and a size condition on one size's remainder.

Truth from torch: each program runs with real torch and every shape it shows at a
``reveal_shape`` fits the checker's claim (``test_param_learning.agree``); a bug's line is where
torch raises.
"""

from __future__ import annotations

import pytest

from tests.infer.test_param_learning import agree, check, run_torch

pytestmark = pytest.mark.torch


TYPED = "from jaxtyping import Float\nfrom torch import Tensor\n"

LAMBDAS = """
def main(x):
    fns = [lambda t: t]
    for p_fn in [torch.sin, torch.cos]:
        fns.append(lambda t, p_fn=p_fn, scale=2.0: p_fn(t * scale))
    reveal_shape(fns[1](x))
    reveal_shape(torch.cat([fn(x) for fn in fns], -1))
    alpha = lambda raw, dists, act_fn=F.relu: 1.0 - torch.exp(-act_fn(raw) * dists)
    reveal_shape(alpha(x[..., 0], torch.ones(7)))
    only = lambda t, *, k=2: t.repeat(1, k)
    reveal_shape(only(x))
    reveal_shape(only(x, k=3))
"""


def test_a_lambda_takes_its_defaults_from_where_it_was_made() -> None:
    """``lambda x, fn=fn: fn(x * freq)`` in a loop (NeRF's positional encoding): each lambda keeps its
    own pass's default; called without it, the body runs with it (it was unknown)."""
    body = TYPED + LAMBDAS.replace("def main(x):", "def main(x: Float[Tensor, '7 3']):")
    reveals, errors, _ = check(body)
    assert errors == set()
    assert reveals[12] == "[7 3]" and reveals[13] == "[7 9]", reveals
    assert reveals[15] == "[7]" and reveals[17] == "[7 6]" and reveals[18] == "[7 9]", reveals
    seen, raised = run_torch(body, "torch.randn(7, 3)")
    assert raised == [None]
    agree(reveals, seen)


ROWS = """
def main(x):
    bands = 2.0 ** torch.linspace(0.0, 3.0, steps=4)
    width, fns = 3, []
    for freq in bands:
        fns.append(lambda t, freq=freq: torch.sin(t * freq))
        width += 3
    y = torch.cat([x] + [fn(x) for fn in fns], -1)
    reveal_shape(y)
    reveal_shape(torch.zeros(5, width))
    kept = []
    for r in x:
        if r.sum() > 100.0:
            break
        kept.append(r)
    reveal_shape(torch.stack(kept))
"""


def test_a_loop_over_a_short_tensor_runs_once_per_row() -> None:
    """``for freq in torch.linspace(0, 3, 4)``: four passes, as over ``range(4)``, so what each adds
    is counted (``width`` is 15; it was a fresh size, and the cat's width unknown).  A loop that may
    ``break`` still gives no count."""
    body = TYPED + ROWS.replace("def main(x):", "def main(x: Float[Tensor, '7 3']):")
    reveals, errors, _ = check(body)
    assert errors == set()
    assert reveals[15] == "[7 15]" and reveals[16] == "[5 15]", reveals
    assert reveals[22] == "[? 3]", reveals
    seen, raised = run_torch(body, "torch.randn(7, 3)")
    assert raised == [None]
    agree(reveals, seen)


FROM_THE_END = """
def main(x):
    n = x.shape[-1]
    dists = x[..., 1:] - x[..., :-1]
    reveal_shape(dists)
    mids = 0.5 * (x[..., 1:] + x[..., :-1])
    upper = torch.cat([mids, x[..., -1:]], -1)
    reveal_shape(upper)
    reveal_shape(x[..., -2:])
"""


def test_a_slice_from_the_end_of_a_symbolic_axis_agrees_with_one_from_the_start() -> None:
    """NeRF's stratified sampling on ``z_vals`` of ``n_samples`` columns: ``z[..., 1:]`` and
    ``z[..., :-1]`` are both ``n-1`` long (``:-1`` was ``max(0,n-1)``, so their sum broadcast to
    an unknown size), and the midpoints with the last column are ``n`` again."""
    body = TYPED + FROM_THE_END.replace("def main(x):", "def main(x: Float[Tensor, 'r n']):")
    reveals, errors, _ = check(body)
    assert errors == set()
    assert reveals[11] == "[r n-1]" and reveals[14] == "[r n]" and reveals[15] == "[r 2]", reveals
    seen, raised = run_torch(body, "torch.randn(4, 8)", "torch.randn(2, 3)")
    assert raised == [None, None]
    agree(reveals, seen)


KV_VIEW = """
def main(x):
    bsz, seqlen, _ = x.shape
    xk = x.view(bsz, seqlen, 4, 16).transpose(1, 2)
    b, h, s, d = xk.shape
    keys = xk[:, :, None].expand(b, h, 2, s, d).reshape(b, h * 2, s, d)
    q = torch.randn(bsz, 4, seqlen, 16)
    return q @ keys.transpose(2, 3)
"""


def test_a_reshape_that_always_fails_is_reported_once() -> None:
    """Keys split into 4 heads where the projection gave 2 (a grouped-query attention bug): torch
    raises at the view, and the line after it, which used the sizes asked for, is not reported too
    (it was: a false error on a line torch never reaches)."""
    body = TYPED + KV_VIEW.replace("def main(x):", "def main(x: Float[Tensor, '2 12 32']):")
    _, errors, _ = check(body)
    assert errors == {(10, "TS106")}, errors
    _, raised = run_torch(body, "torch.randn(2, 12, 32)")
    assert raised == [10]


PYRAMID = """
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


def main(images: Float[Tensor, "b 3 h w"]):
    c4 = F.max_pool2d(images, 3, stride=16, padding=1)
    c5 = F.max_pool2d(images, 3, stride=32, padding=1)
    up = F.interpolate(c5, scale_factor=2, mode="nearest")
    return c4 + up
"""


def test_sizes_equal_only_for_some_remainders_are_a_condition_not_an_error() -> None:
    """An FPN's top-down pathway doubling the stride-32 map: ``2*((h+31)//32)`` equals the stride-16
    map's ``(h+15)//16`` for some image sizes (64: both 4) and not others (80: 6 vs 5), so it is a
    ``size-condition`` warning naming the remainders, not the error it was (TS104)."""
    from tensorshape.infer import check_source

    result = check_source(PYRAMID, "prog.py")
    assert not result.errors, [d.message for d in result.errors]
    warnings = [d for d in result.diagnostics if d.code.id == "TS115"]
    line = PYRAMID.splitlines().index("    return c4 + up") + 1
    assert len(warnings) == 1 and warnings[0].span.line == line, [d.message for d in result.diagnostics]
    assert "`h % 32` must be 0 or 17 to 31" in warnings[0].message, warnings[0].message
    import torch
    import torch.nn.functional as F

    def run(h: int) -> bool:
        x = torch.zeros(1, 3, h, h)
        c4 = F.max_pool2d(x, 3, stride=16, padding=1)
        c5 = F.max_pool2d(x, 3, stride=32, padding=1)
        try:
            c4 + F.interpolate(c5, scale_factor=2, mode="nearest")
        except RuntimeError:
            return False
        return True

    for h in range(33, 160):
        assert run(h) == (h % 32 == 0 or h % 32 >= 17), h


TOP_DOWN = """
def main(x):
    feats = []
    for _ in range(3):
        x = F.max_pool2d(x, 2)
        feats.append(x)
    last = feats[-1]
    results = [last]
    for idx in range(len(feats) - 2, -1, -1):
        last = feats[idx] + F.interpolate(last, size=feats[idx].shape[-2:], mode="nearest")
        results.insert(0, last)
    results.insert(-1, results[0])
    results.insert(10, feats[0][:, :1])
    reveal_shape(results[0])
    reveal_shape(results[-1])
    reveal_shape(results[-2])
    reveal_shape(torch.cat([r.flatten(1) for r in results], 1))
"""


def test_an_insert_at_a_known_place_keeps_a_list_of_known_length() -> None:
    """An FPN's top-down pass ``results.insert(0, ...)``: the list keeps each level's shape in its
    place (it was a list of unknown length whose items were joined: ``[2 8 ? ?]``); an index past the
    end appends, as Python's ``insert`` does."""
    body = TYPED + TOP_DOWN.replace("def main(x):", "def main(x: Float[Tensor, '2 8 16 16']):")
    reveals, errors, _ = check(body)
    assert errors == set()
    assert reveals[20] == "[2 8 8 8]" and reveals[21] == "[2 1 8 8]", reveals
    assert reveals[22] == "[2 8 2 2]" and reveals[23] == "[2 1248]", reveals
    seen, raised = run_torch(body, "torch.randn(2, 8, 16, 16)")
    assert raised == [None]
    agree(reveals, seen)
