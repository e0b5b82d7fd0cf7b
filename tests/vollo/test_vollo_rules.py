"""The Vollo analysis on each case: tensorshape's verdict with and without allow_dynamic_weights."""

from __future__ import annotations

import pytest
from tensorshape.infer.api import CheckSettings, check_source
from tensorshape.rules.context import Options

from .cases import CASES, Case

pytestmark = pytest.mark.vollo


def vollo_errors(case: Case, adw: bool) -> list[str]:
    r = check_source(case.source(), "model.py", CheckSettings(Options(vollo=True, allow_dynamic_weights=adw)))
    return [f"{d.code.name}: {d.message}" for d in r.errors]


def tensorshape_verdict(case: Case) -> str:
    if not vollo_errors(case, False):
        return "ok"
    return "dynamic" if not vollo_errors(case, True) else "unsupported"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_verdict(case: Case) -> None:
    errors = vollo_errors(case, False)
    assert all(e.startswith("vollo-") for e in errors), errors  # no shape errors in the cases themselves
    assert tensorshape_verdict(case) == case.expected, errors
