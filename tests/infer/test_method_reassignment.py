"""An attribute a method other than ``__init__`` reassigns (``reset_head`` swapping ``self.fc``): on an
instance the program builds it holds what construction gave it until that method runs on that
instance, and what the method assigned after; an instance passed to code that may run it unseen
reads such attributes as unknown.  Torch is the judge of each shape."""

from __future__ import annotations

import pytest
from tensorshape.infer import check_source

PROGRAM = """\
import torch
from torch import nn

import tuner


class Net(nn.Module):
    def __init__(self, n=10):
        super().__init__()
        self.body = nn.Linear(8, 16)
        self.fc = nn.Linear(16, n)

    def reset_head(self, n):
        self.fc = nn.Linear(16, n)

    def forward(self, x):
        return self.fc(self.body(x))


class Widening(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)

    def _widen(self):
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        a = self.fc(x)
        self._widen()
        return a, self.fc(x)


def edit(m):
    m.reset_head(2)


def main():
    x = torch.randn(2, 8)
    model = Net()
    reveal_shape(model(x))
    model.reset_head(6)
    reveal_shape(model(x))
    reveal_shape(Net()(x))
    first, second = Widening()(x)
    reveal_shape(first)
    reveal_shape(second)
    net = Net()
    alias = net
    alias.reset_head(4)
    reveal_shape(net(x))
    edited = Net()
    edit(edited)
    reveal_shape(edited(x))
    tuned = Net()
    tuner.adapt(tuned)
    reveal_shape(tuned(x))
    widening = Widening()
    widening(x)
    reveal_shape(widening(x)[0])
    maybe = Net()
    if x.sum() > 0:
        maybe.reset_head(3)
    reveal_shape(maybe(x))
    first = Net()
    second = Net()
    first.reset_head(7)
    reveal_shape(second(x))


main()
"""

#: The reveals in order: torch's shape, or ``None`` where the analysis must not claim one.
EXPECTED = [(2, 10), (2, 6), (2, 10), (2, 3), (2, 5), None, None, None, (2, 5), None, (2, 10)]


def _reveals(source: str) -> list[str]:
    result = check_source(source)
    assert result.errors == []
    return [
        d.message.split("revealed shape: ", 1)[1]
        for d in sorted(result.diagnostics, key=lambda d: d.span.line)
        if d.code.id == "TS900"
    ]


def test_torch_agrees_with_the_expected_shapes() -> None:
    torch = pytest.importorskip("torch")
    import sys
    import types

    seen: list[tuple[int, ...]] = []
    tuner = types.ModuleType("tuner")
    tuner.adapt = lambda m: m.reset_head(9)  # type: ignore[attr-defined]
    sys.modules["tuner"] = tuner
    try:
        ns: dict[str, object] = {"reveal_shape": lambda t: seen.append(tuple(t.shape))}
        exec(compile(PROGRAM, "<program>", "exec"), ns)
    finally:
        del sys.modules["tuner"]
    assert torch.Size(seen[0]) == (2, 10)
    known = [e for e in EXPECTED]
    assert [s for s, e in zip(seen, known) if e is not None] == [e for e in known if e is not None]
    assert seen[5] == (2, 4) and seen[6] == (2, 2) and seen[7] == (2, 9) and seen[9] in ((2, 3), (2, 10))


def test_reassigned_attribute_is_the_constructors_until_the_method_runs() -> None:
    shown = _reveals(PROGRAM)
    assert len(shown) == len(EXPECTED)
    for got, want in zip(shown, EXPECTED):
        if want is None:
            # Reset through an alias, passed to code that may run ``reset_head``, reset on one path
            # only: never one width (the alias is not rebound: one object may be two instances).
            assert got not in ("[2 10]", "[2 3]", "[2 2]", "[2 9]", "[2 4]"), shown
        else:
            assert got == f"[{want[0]} {want[1]}]", shown


def test_generic_self_keeps_the_reassigned_attribute_unknown() -> None:
    # A method analysed without a caller: ``self.fc`` may have been swapped by ``reset_head`` before.
    source = PROGRAM.split("class Widening", 1)[0].replace(
        "return self.fc(self.body(x))", "y = self.fc(self.body(x))\n        reveal_shape(y)\n        return y"
    )
    assert _reveals(source) == ["unknown"]
