"""tensorshape's Vollo verdicts against the real compiler (skipped when vollo-compiler is not installed)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from .cases import CASES, Case
from .test_vollo_rules import tensorshape_verdict

pytestmark = [pytest.mark.vollo, pytest.mark.torch]
pytest.importorskip("vollo_compiler")
pytest.importorskip("vollo_torch")
torch = pytest.importorskip("torch")


def _model(case: Case) -> Any:
    ns: dict[str, Any] = {}
    exec(compile(case.source(), f"<{case.name}>", "exec"), ns)
    return ns["Model"]()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_agrees_with_compiler(case: Case) -> None:
    from .compiler import verdict

    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, why = verdict(_model(case), torch.randn(*case.shape))
    if got == "op-unsupported":
        pytest.skip(f"vollo-torch cannot translate an op of this case: {why}")
    assert tensorshape_verdict(case) == got, why
