"""Loops of symbolic length that add up ints (issue 15): ``ch = in_ch; for i in range(n_layers): ch
+= growth`` is ``in_ch + n_layers*growth`` after the loop; appends nested in a loop over a literal
list count each item; a list of lambdas appended in such a loop keeps them as a choice (NeRF's
positional encoding: ``tests/realistic/programs/nerf_volume_render.py``).

Truth from torch: each program runs with several concrete sizes (zero passes included), and every
shape torch shows at a ``reveal_shape`` is the checker's claim with those sizes put in its symbols;
a bug's line is where torch raises.  Where the amount is not one value for every pass, the int
stays a fresh size, as before.
"""

from __future__ import annotations

import re

import pytest
import sympy

from tests.infer.test_param_learning import agree, check, run_torch

pytestmark = pytest.mark.torch


def evaluated(claim: str, sizes: dict[str, int]) -> list[int] | None:
    """The claimed shape with ``sizes`` put in its symbols (``None``: a dim holds another symbol)."""
    out = []
    for dim in claim.strip("[]").split():
        e = sympy.sympify(dim.replace("'", "_p"), locals={k: sympy.Symbol(k) for k in sizes})
        e = e.subs({sympy.Symbol(k): v for k, v in sizes.items()})
        if not e.is_Integer:
            return None
        out.append(int(e))
    return out


def runs(body: str, call: str, sizes: list[dict[str, int]]) -> list[dict[int, list[list[int]]]]:
    """Run ``body``'s code with ``main(x)`` calling ``call`` formatted with each of ``sizes``."""
    seen = []
    for s in sizes:
        shown, raised = run_torch(body + f"\n\ndef main(x):\n    {call.format(**s)}\n", "None")
        assert raised == [None], (s, raised)
        seen.append(shown)
    return seen


SUMS = """
def sizes(n: int, growth: int, base: int):
    ch = base
    for i in range(n):
        ch += growth
    reveal_shape(torch.zeros(ch))
    width = base
    for _ in range(n):
        width = width + 2 * growth + 1
    reveal_shape(torch.zeros(width))
    c = 3
    for j in range(2, n + 2):
        c += base
    reveal_shape(torch.zeros(c))
    d = 1
    for k in range(0, n, 3):
        d += 2
    reveal_shape(torch.zeros(d))
    e = 1
    for row in torch.zeros(n, 2):
        e += 4
    reveal_shape(torch.zeros(e))
    f = base
    for i in range(n):
        for p in [1, 2, 3]:
            f += growth
        f -= 1
        f = f + 1
    reveal_shape(torch.zeros(f))
    g = 5
    for i in range(12):
        g += growth
    reveal_shape(torch.zeros(g))
    h = base
    for i in range(n):
        for j in range(growth):
            h += 2
    reveal_shape(torch.zeros(h))
"""

SIZES = [dict(n=n, growth=g, base=b) for n, g, b in ((0, 3, 2), (1, 0, 5), (4, 3, 2), (7, 5, 1))]


def test_an_int_the_loop_adds_the_same_amount_to_is_start_plus_passes_times_it() -> None:
    """Each pass adds one amount (``growth``, ``2*growth+1``, ``base``; three ``growth`` from an inner
    loop over a literal list; what an inner loop of symbolic length adds): after ``n`` passes (of
    ``range(n)``, ``range(2, n+2)``, ``range(0, n, 3)``, a tensor's rows, ``range(12)``) the int is
    the start plus ``n`` times it.  Each was a fresh size."""
    reveals, errors, _ = check(SUMS)
    assert errors == set()
    lines = sorted(reveals)
    assert [reveals[k] for k in lines] == [
        "[base+growth*n]",
        "[base+n*(2*growth+1)]",
        "[base*n+3]",
        "[2*n-2*((2*n)//3)+1]",
        "[4*n+1]",
        "[base+3*growth*n]",
        "[12*growth+5]",
        "[base+2*growth*n]",
    ], reveals
    for s, shown in zip(SIZES, runs(SUMS, "sizes({n}, {growth}, {base})", SIZES)):
        for line, shapes in shown.items():
            assert all(evaluated(reveals[line], s) == shape for shape in shapes), (s, line, reveals[line], shapes)


NOT_SUMS = """
class Counter:
    def __init__(self, k):
        self.k = k

    def bump(self):
        self.k = self.k + 1


def sizes(n: int, growth: int, base: int):
    counter = Counter(growth)
    m = base
    for i in range(n):
        m += counter.k
        counter.bump()
    reveal_shape(torch.zeros(m))
    e, k = base, growth
    for i in range(n):
        e += k
        k += 1
    reveal_shape(torch.zeros(e))
    a = base
    for i in range(n):
        a = a + i
    reveal_shape(torch.zeros(a))
    b = base
    for i in range(n):
        if i % 2 == 0:
            b += growth
    reveal_shape(torch.zeros(b))
    c = base
    for i in range(n):
        if c > 100:
            break
        c += growth
    reveal_shape(torch.zeros(c))
    d = base
    for i in range(n):
        if i == 1:
            continue
        d += growth
    reveal_shape(torch.zeros(d))
    steps = [growth, base, 1]
    f = 0
    for i in range(n):
        f += steps[i % 3]
    reveal_shape(torch.zeros(f))
    g = base
    for i in range(n):
        g += growth
        g *= 2
    reveal_shape(torch.zeros(g))
    h = base
    for i in range(n):
        h = h + h
    reveal_shape(torch.zeros(h))
"""


def test_an_amount_that_may_differ_from_pass_to_pass_leaves_the_int_as_before() -> None:
    """The loop variable's value, an increment on some passes only (under an ``if``, after a
    ``break``/``continue``), an amount the loop changes, read from a list by the loop variable,
    another binding of the int (``*= 2``, ``h + h``), an attribute a method call in the body
    changes: a fresh size (or unknown), as before."""
    reveals, errors, _ = check(NOT_SUMS)
    assert errors == set()
    assert len(reveals) == 9, reveals
    for line, claim in reveals.items():
        assert re.fullmatch(r"\[([A-Za-z_]\w*'*|\?|\.\.\.)\]", claim), (line, claim)
    sizes = [dict(n=n, growth=3, base=2) for n in (0, 3, 6)]
    for shown in runs(NOT_SUMS, "sizes({n}, {growth}, {base})", sizes):
        agree(reveals, shown)


APPENDS = """
def sizes(n: int):
    x = torch.randn(5, 3)
    xs = [x]
    for i in range(n):
        for s in (1, 2):
            xs.append(x * s)
        for t in range(3):
            xs.append(x + t)
    reveal_shape(torch.zeros(len(xs)))
    fns = [lambda t: t]
    width = 3
    for freq in torch.linspace(0.0, 2.0, steps=n):
        for p_fn in [torch.sin, torch.cos]:
            fns.append(lambda t, p_fn=p_fn, freq=freq: p_fn(t * freq))
            width += 3
    reveal_shape(torch.zeros(width))
    reveal_shape(torch.cat([fn(x) for fn in fns], -1))
"""


def test_appends_in_a_loop_over_a_literal_list_count_each_item() -> None:
    """Two appends in a loop over ``(1, 2)`` and three in one over ``range(3)``, on each of ``n``
    passes: ``5*n + 1`` items.  A list of lambdas appended so (NeRF's encoding functions) holds a
    choice of them: each called, the results joined, so the ``cat`` of their results over ``x`` is
    as wide as the widths counted beside them.  Both were unknown."""
    body = SUMS.split("def sizes")[0] + APPENDS
    reveals, errors, _ = check(body)
    assert errors == set()
    lines = sorted(reveals)
    assert [reveals[k] for k in lines] == ["[5*n+1]", "[6*n+3]", "[5 6*n+3]"], reveals
    for n in (0, 1, 4):
        (shown,) = runs(body, "sizes({n})", [dict(n=n)])
        for line, shapes in shown.items():
            claim = reveals[line]
            assert all(evaluated(claim, {"n": n}) == shape for shape in shapes), (n, line, claim, shapes)


MODEL = """
class Dense(nn.Module):
    def __init__(self, in_ch, growth, n_layers):
        super().__init__()
        ch = in_ch
        for _ in range(n_layers):
            ch += growth
        self.head = nn.Linear(ch, 10)

    def forward(self, x):
        return self.head(x)


def run(b: int, n_layers: int, growth: int):
    net = Dense(3, growth, n_layers)
    x = torch.randn(b, 3 + n_layers * growth)
    reveal_shape(net(x))
"""


def test_a_linear_layer_sized_by_such_a_loop_is_checked() -> None:
    """``nn.Linear(ch, 10)`` with ``ch`` summed over ``n_layers`` passes: fed a tensor of that width
    it checks clean; fed one that is one wider (the seeded bug) it is the error torch raises, for
    every size.  The layer's width was a fresh size, the bug an obligation."""
    reveals, errors, _ = check(MODEL)
    assert errors == set()
    assert reveals[max(reveals)] == "[b 10]", reveals
    sizes = [dict(b=b, n=n, g=g) for b, n, g in ((2, 0, 4), (3, 5, 2))]
    for shown in runs(MODEL, "run({b}, {n}, {g})", sizes):
        agree(reveals, shown)
    bug = MODEL.replace("torch.randn(b, 3 + n_layers * growth)", "torch.randn(b, 4 + n_layers * growth)")
    raising = bug.splitlines().index("        return self.head(x)") + 5  # HEAD's four lines, 1-based
    _, errors, _ = check(bug)
    assert errors == {(raising, "TS101")}, errors
    for b, n, g in ((2, 0, 4), (3, 5, 2)):
        _, raised = run_torch(bug + f"\n\ndef main(x):\n    run({b}, {n}, {g})\n", "None")
        assert raised == [raising]
