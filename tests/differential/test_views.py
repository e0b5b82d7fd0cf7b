"""``view`` after ``transpose``/``permute`` against torch: an error exactly when torch needs a copy, and
the same strides when it does not (docs/torch-checks.md, "view" and memory layout)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tensorshape.model.diagnostics import Severity
from tensorshape.model.shape import Shape
from tensorshape.model.values import IntV, TensorV, TupleV, Value
from tensorshape.rules import engine
from tensorshape.rules.context import Arg, RuleContext

from .checks import CHAINS

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def _ints(xs: list[int]) -> list[Arg]:
    return [Arg(IntV(x)) for x in xs]


def _factor(data: st.DataObject, total: int) -> list[int]:
    out: list[int] = []
    for _ in range(data.draw(st.integers(0, 3))):
        d = data.draw(st.sampled_from([d for d in range(1, total + 1) if total % d == 0]))
        out.append(d)
        total //= d
    out.append(total)
    return data.draw(st.permutations(out))


def run_chain_torch(shape: tuple[int, ...], steps: tuple[tuple[str, tuple[int, ...]], ...]) -> str:
    """torch's message for the chain (empty when it runs)."""
    t = torch.zeros(shape)
    try:
        for name, args in steps:
            t = getattr(t, name)(*args)
    except RuntimeError as e:
        return f"RuntimeError: {e}"
    return ""


@pytest.mark.parametrize("case", sorted(CHAINS))
def test_chains_raise_and_the_rule_reports_them(case: str) -> None:
    shape, steps = CHAINS[case]
    assert run_chain_torch(shape, steps), f"{case}: torch does not raise"
    _, ctx = _run([(n, list(a)) for n, a in steps], list(shape))
    assert any(d.severity is Severity.ERROR for d in ctx.diagnostics), case


def _run(steps: list[tuple[str, list[int]]], shape: list[int]) -> tuple[Value, RuleContext]:
    ctx = RuleContext()
    x = engine.call_function("torch.zeros", [Arg(TupleV(tuple(IntV(d) for d in shape)))], {}, ctx)
    assert isinstance(x, TensorV) and x.strides is not None
    for name, args in steps:
        got = engine.call_method(Arg(x), name, _ints(args), {}, ctx)
        assert got is not None
        x = got
    return x, ctx


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_view_after_permute_matches_torch(data: st.DataObject) -> None:
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4), label="shape")
    steps: list[tuple[str, list[int]]] = []
    for _ in range(data.draw(st.integers(1, 3), label="steps")):
        kind = data.draw(st.sampled_from(["permute", "transpose", "view", "reshape", "contiguous"]))
        steps.append((kind, []))  # filled in below, against torch's current shape
    t = torch.zeros(shape)
    plan: list[tuple[str, list[int]]] = []
    for kind, _ in steps:
        if kind == "permute":
            args = list(data.draw(st.permutations(range(t.dim()))))
        elif kind == "transpose":
            args = [data.draw(st.integers(0, t.dim() - 1)), data.draw(st.integers(0, t.dim() - 1))]
        elif kind in ("view", "reshape"):
            args = _factor(data, t.numel())
        else:
            args = []
        plan.append((kind, args))
        try:
            t = getattr(t, kind)(*args)
        except RuntimeError as e:
            assert kind == "view" and "view size is not compatible" in str(e), e
            got, ctx = _run(plan, shape)
            errors = [d for d in ctx.diagnostics if d.severity is Severity.ERROR]
            assert errors, f"missed error: torch raises on {plan} from {shape}; the rule gives {got}"
            return
    got, ctx = _run(plan, shape)
    errors = [d.message for d in ctx.diagnostics if d.severity is Severity.ERROR]
    assert not errors, f"false error on {plan} from {shape}: {errors}"
    assert isinstance(got, TensorV) and got.shape == Shape(tuple(t.shape))
    if got.strides is not None and t.numel() > 1:
        # size-1 dims may carry any stride: compare the others
        ours = [s for s, d in zip(got.strides.values, t.shape) if d != 1]
        theirs = [s for s, d in zip(t.stride(), t.shape) if d != 1]
        assert ours == theirs, f"{plan} from {shape}: strides {got.strides.values}, torch {t.stride()}"
