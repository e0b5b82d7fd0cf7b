"""Every nn module class of the table against torch: build it from sizes, call it, compare shapes."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .harness import compare
from .modules import MODULES

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


@pytest.mark.parametrize("name", sorted(MODULES))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_module_matches_torch(name: str, data: st.DataObject) -> None:
    compare(MODULES[name](data))
