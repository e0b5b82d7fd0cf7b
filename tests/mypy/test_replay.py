"""Which fine-grained target a shape error is reported in (the daemon re-checks targets with errors)."""

from __future__ import annotations

import pytest
from mypy import build
from mypy.modulefinder import BuildSource
from mypy.options import Options
from tensorshape_mypy.replay import targets_of

pytestmark = pytest.mark.mypy

SOURCE = """\
import os
try:
    def a() -> int:
        def inner() -> None:
            pass
        return 1
except ImportError:
    pass
class C:
    x = 1
    def m(self) -> None:
        pass
    @property
    def p(self) -> int:
        return 2
if os.name:
    def b() -> None:
        pass
y = 3
"""


def test_each_line_is_in_the_target_mypy_gives_its_errors() -> None:
    options = Options()
    options.incremental = False
    options.preserve_asts = True
    result = build.build([BuildSource("m.py", "m", SOURCE)], options)
    target = targets_of(result.files["m"])
    got = [target(line) for line in range(1, SOURCE.count("\n") + 1)]
    # Nested functions are their enclosing function's target; class bodies and decorators the module's.
    assert got == ["m", "m"] + ["m.a"] * 4 + ["m"] * 4 + ["m.C.m"] * 2 + ["m", "m.C.p", "m.C.p", "m"] + ["m.b"] * 2 + [
        "m"
    ]
