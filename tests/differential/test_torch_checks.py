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
