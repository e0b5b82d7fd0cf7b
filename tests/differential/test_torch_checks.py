"""torch's own argument checks (docs/torch-checks.md): each modelled check has a named call that makes
torch raise it, the rule reports an error there and agrees with torch on the near misses, and the
inventory lists every check the scan of torch's Python sources finds."""

from __future__ import annotations

import pytest

from .checks import CASES, CHAINS, NOT_IMPLEMENTED, OK
from .harness import compare, run_rule, run_torch
from .torch_checks import load_inventory, scan, table_ops

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


@pytest.mark.parametrize("case", sorted(CASES))
def test_torch_raises_and_the_rule_reports_it(case: str) -> None:
    call = CASES[case]
    assert run_torch(call).status == "error", f"{case}: torch does not raise on {call!r}"
    compare(call)


@pytest.mark.parametrize("case", sorted(NOT_IMPLEMENTED))
def test_unsupported_combinations_are_reported(case: str) -> None:
    # torch raises NotImplementedError, which the differential harness counts as a call it cannot bind.
    call = NOT_IMPLEMENTED[case]
    want = run_torch(call)
    assert want.status == "bad-call", want
    assert run_rule(call).status == "error"


@pytest.mark.parametrize("case", sorted(OK))
def test_near_misses_pass(case: str) -> None:
    call = OK[case]
    assert run_torch(call).status == "ok", f"{case}: torch raises on {call!r}"
    compare(call)


def _head(message: str) -> str:
    """The literal text of a message before its first formatted value."""
    return message.split("{}")[0].strip().rstrip(":").strip()


def test_the_inventory_lists_every_check_torch_makes() -> None:
    found = {(f"torch/{s.file}", s.function, s.message) for s, _ in scan(*table_ops()).values()}
    listed = {(e.where, e.function, e.message) for e in load_inventory() if e.source == "python"}
    assert sorted(found - listed) == [], "checks torch makes that the inventory does not list"
    assert sorted(listed - found) == [], "inventory entries torch no longer has"


def test_each_modelled_check_has_a_case_that_raises_it() -> None:
    cases = {**CASES, **NOT_IMPLEMENTED}
    for e in load_inventory():
        if e.case in CHAINS:
            from .test_views import run_chain_torch

            assert _head(e.message).lower() in run_chain_torch(*CHAINS[e.case]).lower(), e
            continue
        assert e.kind in ("shape", "other", "internal"), e
        if e.modelled:
            assert e.case in cases, f"modelled without a case: {e}"
        if e.case is None:
            continue
        assert e.case in cases, f"no such case: {e.case}"
        got = run_torch(cases[e.case]).message
        head = _head(e.message)
        assert head.lower() in got.lower(), f"{e.case} raises {got!r}, not the check {e.message!r}"


_UNSEEN = '''
import torch
import torch.nn.functional as F
from torch import nn


def resize(x: torch.Tensor, size: tuple[int, int], interpolation: str, corners) -> torch.Tensor:
    # mode and align_corners the analysis cannot see: no claim on them
    y = F.interpolate(torch.zeros(4, 1, 8, 8), size=size, mode=interpolation, align_corners=False)
    return F.interpolate(y, size=size, scale_factor=corners)


class Block(nn.Module):
    def __init__(self, cfg) -> None:
        super().__init__()
        self.attn = nn.MultiheadAttention(8, 2, batch_first=cfg.batch_first)
        self.rnn = nn.GRU(8, 4, batch_first=cfg.batch_first)
        self.norm = nn.InstanceNorm1d(8, track_running_stats=cfg.track)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = torch.zeros(2, 3, 8)
        out, _ = self.attn(q, q, q, key_padding_mask=torch.zeros(2, 3, dtype=torch.bool))
        h, _ = self.rnn(q, torch.zeros(1, 3, 4))
        return self.norm(torch.zeros(2, 8, 1))
'''


def test_arguments_the_analysis_cannot_see_get_no_claim() -> None:
    """A check that depends on a value the analysis does not know (a mode from a parameter, a layout
    flag from a config) is not reported: only torch's verdict for the values the code allows counts."""
    from tensorshape.infer.api import check_source

    result = check_source(_UNSEEN)
    assert [d.message for d in result.errors] == []
