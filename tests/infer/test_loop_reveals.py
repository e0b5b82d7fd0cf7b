"""A ``reveal_shape`` inside a loop shows each pass's view, at module level as in a function."""

from __future__ import annotations

import pytest
from tensorshape.infer import check_source


def _reveals(source: str) -> dict[int, str]:
    result = check_source(source)
    assert result.errors == []
    return {d.span.line: d.message.split("revealed shape: ", 1)[1] for d in result.diagnostics if d.code.id == "TS900"}


LOOPS = """\
import torch

x = torch.zeros(2, 3)
for i in range(3):
    x = torch.cat([x, x], 0)
    reveal_shape(x)


def f():
    y = torch.zeros(2, 3)
    for i in range(3):
        y = torch.cat([y, y], 0)
        reveal_shape(y)
    return y
"""


def test_a_loop_reveals_each_iteration_at_module_level_as_in_a_function() -> None:
    # Before, only the first iteration's view was shown ([4 3]), at module level and in a function.
    torch = pytest.importorskip("torch")
    seen = []
    x = torch.zeros(2, 3)
    for _ in range(3):
        x = torch.cat([x, x], 0)
        seen.append(f"[{' '.join(str(s) for s in x.shape)}]")
    reveals = _reveals(LOOPS)
    assert reveals[6] == reveals[13] == "; ".join(seen) == "[4 3]; [8 3]; [16 3]"
