"""Every diagnostic code is documented."""

from __future__ import annotations

import re

from tensorshape.model import codes

from tests.expectations import ROOT


def test_every_code_has_a_doc_section() -> None:
    text = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^## (TS\d{3}) ([a-z0-9-]+)", text, re.M))
    expected = {(c.id, c.name) for c in codes.ALL_CODES.values()}
    assert expected <= documented, sorted(expected - documented)
