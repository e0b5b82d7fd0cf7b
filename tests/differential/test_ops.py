"""Every op of the table against torch: the same output shape, or an error exactly when torch raises."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tensorshape.rules.stubs import load_table

from . import cases
from .cases import FAMILIES, _Skip, family_of
from .harness import compare

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def _ops() -> list[tuple[str, str]]:
    out = []
    for q in sorted(load_table().ops):
        if q.rsplit(".", 1)[0] in load_table().classes:
            continue  # module classes: test_modules.py
        fam = family_of(q)
        if fam is not None and q not in cases.EXCLUDED:
            out.append((q, fam))
    return out


OPS = _ops()


@pytest.mark.parametrize(("qualname", "family"), OPS, ids=[q for q, _ in OPS])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_op_matches_torch(qualname: str, family: str, data: st.DataObject) -> None:
    try:
        call = FAMILIES[family](data, qualname)
    except _Skip:
        return
    compare(call, partial_ok=family in cases.PARTIAL_OK)
