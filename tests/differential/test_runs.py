"""Every op and module class of the table on shapes holding a run of unknown length, against torch
with the run at lengths 0 to 3 (see :mod:`tests.differential.runs`; ``benchmarks/differential_report.py``
prints the whole sweep's figures)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from . import runs
from .harness import Call, T
from .runs import TR, RunCase

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

DRAWS = runs.draws()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DRAWS))
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_verdict_holds_for_every_run_length(name: str, data: st.DataObject) -> None:
    case = runs.draw_case(data, DRAWS[name])
    if case is None:
        return
    verdict = runs.check(case)
    assert verdict.status in ("agree", "missed", "bad-call"), verdict.detail


RUNS = ((), (2,), (3, 1), (1, 2, 2))


def _case(qualname: str, *args: object, kind: str = "function", init: tuple[object, ...] = ()) -> RunCase:
    return RunCase(Call(kind, qualname, tuple(args), {}, init), RUNS, "")


#: What the sweep found (each was a wrong shape, a crash or a false error before its fix).
FOUND = {
    # kron's stub allowed 2-d operands only: a run was taken as no dims at all
    "kron, a trailing run": _case("torch.kron", TR((3, 2), ()), T((4, 4))),
    "kron, a leading run": _case("torch.kron", TR((), (4, 1)), T((2, 1))),
    "kron, both runs": _case("torch.kron", TR((4,), ()), TR((4,), ())),
    # a 1-d or 2-d weight: the output's rank is not known
    "linear, a weight with a run": _case("torch.nn.functional.linear", TR((1,), ()), TR((1,), ()), None),
    # a spec ``*b c h w`` against ``[1 2 *s]``: ``b`` took the 1 although ``s`` may be one dim
    "pixel_shuffle, known dims before the run": _case("torch.nn.functional.pixel_shuffle", TR((1, 2), ()), 1),
    # einops' layers raise KeyError for a rank they have no recipe for
    "Rearrange, a rank with no recipe": _case(
        "einops.layers.torch.Rearrange", TR((2,), (3,)), kind="module", init=("b c -> c b",)
    ),
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_what_the_sweep_found(name: str) -> None:
    verdict = runs.check(FOUND[name])
    assert verdict.status == "agree", verdict.detail
