"""``self.training``: a module built by the program is in training mode until ``.eval()`` (or
``.train(False)``) is called on it or on a parent, and its ``forward`` is analysed in the mode the
code uses; where the mode is not known both branches are joined.  Torch is the judge of each shape.
"""

from __future__ import annotations

import pytest
from tensorshape.infer import check_source

PROGRAM = """\
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, 4)
        self.cache = [torch.empty(0) for _ in range(2)]

    def forward(self, x):
        y = self.proj(x)
        if not self.training:
            self.cache[0] = y.sum(0, keepdim=True)
            y = y + self.cache[0]
        return y if self.training else (y.mean(0), y)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = Head(8)

    def forward(self, x):
        return self.head(x)


def main():
    x = torch.randn(5, 8)
    net = Net()
    out = net(x)
    reveal_shape(out)
    net.eval()
    pooled, full = net(x)
    reveal_shape(pooled)
    net.train()
    reveal_shape(net(x))
    head = Head(8).train(False)
    reveal_shape(head(x)[0])


main()
"""


def _reveals(source: str) -> dict[int, str]:
    result = check_source(source)
    assert result.errors == []
    return {d.span.line: d.message.split("revealed shape: ", 1)[1] for d in result.diagnostics if d.code.id == "TS900"}


def test_forward_is_analysed_in_the_mode_the_program_sets() -> None:
    torch = pytest.importorskip("torch")
    ns: dict[str, object] = {"reveal_shape": lambda t: None}
    exec(compile(PROGRAM.replace("main()\n", ""), "<program>", "exec"), ns)
    net, head, x = ns["Net"](), ns["Head"](8), torch.randn(5, 8)  # type: ignore[operator]
    assert net(x).shape == (5, 4)
    net.eval()
    assert net(x)[0].shape == (4,)
    net.train()
    assert net(x).shape == (5, 4)
    assert head.train(False)(x)[0].shape == (4,)
    reveals = _reveals(PROGRAM)
    assert reveals[32] == "[5 4]"
    assert reveals[35] == "[4]"
    assert reveals[37] == "[5 4]"
    assert reveals[39] == "[4]"


GENERIC = """\
import torch
from torch import nn


class Head(nn.Module):
    def forward(self, x: torch.Tensor):
        return x if self.training else x.mean(0)


def use(head: Head, x):
    return head(x)
"""


def test_an_unknown_mode_joins_both_branches_without_error() -> None:
    assert check_source(GENERIC).errors == []
