"""Shapes kept through program structure (issue 15 items 2, 5 second half and 7), checked against torch.

- an annotated callee's result is its annotation made precise by its body run with the
  caller's values; arguments that break the annotation are the caller's error only;
- attributes copied from a config are one symbol in every method of the class, and a
  method's own sizes never take their names;
- a module built as ``Model()`` is analysed with its ``__init__`` defaults as sizes.

Each program also runs under torch: the shapes the checker reveals and the line it
reports are compared with what torch does.
"""

from __future__ import annotations

import sys
import textwrap
import traceback
import types
from typing import Any

import pytest
from tensorshape.infer import CheckSettings, check_source

pytestmark = pytest.mark.torch


def check(source: str) -> tuple[dict[int, list[str]], set[tuple[int, str]]]:
    result = check_source(source, "prog.py", CheckSettings())
    reveals: dict[int, list[str]] = {}
    for d in result.diagnostics:
        if d.code.id == "TS900":
            reveals.setdefault(d.span.line, []).append(d.message.removeprefix("revealed shape: "))
    return reveals, {(d.span.line, d.code.id) for d in result.errors}


def run_torch(source: str) -> tuple[dict[int, list[list[int]]], int | None]:
    """Run ``source``'s ``main()`` with torch: shapes seen by ``reveal_shape`` per line, and the raising line."""
    torch = pytest.importorskip("torch")
    seen: dict[int, list[list[int]]] = {}

    def reveal_shape(x: Any) -> Any:
        seen.setdefault(sys._getframe(1).f_lineno, []).append(list(x.shape))
        return x

    import tensorshape

    saved = tensorshape.reveal_shape
    tensorshape.reveal_shape = reveal_shape  # type: ignore[assignment]
    torch.manual_seed(0)
    module = types.ModuleType("prog")
    sys.modules["prog"] = module  # dataclasses look their module up
    try:
        exec(compile(source, "prog.py", "exec"), module.__dict__)
        module.main()
    except Exception as e:  # noqa: BLE001 - where torch raises is the result
        lines = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == "prog.py"]
        return seen, lines[-1] if lines else None
    finally:
        tensorshape.reveal_shape = saved
        del sys.modules["prog"]
    return seen, None


def _program(body: str) -> str:
    return textwrap.dedent(body).lstrip("\n")


# -- item 2: annotated callees ------------------------------------------------------------------

PROJ = _program(
    """
    import torch
    import torch.nn as nn
    from jaxtyping import Float
    from torch import Tensor
    from tensorshape import reveal_shape


    class Proj(nn.Module):
        def __init__(self, d: int):
            super().__init__()
            self.fc = nn.Linear(d, 64)

        def forward(self, x: Float[Tensor, "b d"]) -> Float[Tensor, "b out"]:
            return self.fc(x)


    def first3(x: Float[Tensor, "b d"]) -> Float[Tensor, "b k"]:
        return x[:, :3]


    def pair(x: Float[Tensor, "b d"]) -> tuple[Float[Tensor, "b d"], Float[Tensor, "b n"]]:
        return x, torch.cat([x, x], dim=1)[:, :5]


    def main():
        p = Proj(16)
        y = p(torch.randn(8, 16))
        reveal_shape(y)
        z = first3(torch.randn(8, 16))
        reveal_shape(z)
        a, b = pair(torch.randn(2, 7))
        reveal_shape(b)
    """
)


def test_annotated_callee_result_keeps_the_sizes_its_body_computes() -> None:
    reveals, errors = check(PROJ)
    assert errors == set(), "a name only the return annotation uses is bound by the body"
    truth, raised = run_torch(PROJ)
    assert raised is None
    for line, shapes in truth.items():
        assert reveals[line] == ["[" + " ".join(map(str, shapes[0])) + "]"], line


WRONG_ARGS = _program(
    """
    import torch
    from jaxtyping import Float
    from torch import Tensor


    def project(x: Float[Tensor, "b 4"]) -> Float[Tensor, "b 3"]:
        return x @ torch.ones(4, 3)


    def scale(x: Float[Tensor, "b 4"]):
        return x @ torch.ones(4, 3)


    def main():
        project(torch.randn(8, 5))
    """
)


@pytest.mark.parametrize("callee", ["project", "scale"])
def test_wrong_arguments_are_the_callers_error_only(callee: str) -> None:
    source = WRONG_ARGS.replace("project(torch.randn(8, 5))", f"{callee}(torch.randn(8, 5))")
    _, errors = check(source)
    call_line = source.splitlines().index(f"    {callee}(torch.randn(8, 5))") + 1
    assert errors == {(call_line, "TS101")}, "reported at the call, nothing in the callee's correct body"
    _, raised = run_torch(source)
    assert raised is not None, "torch raises (inside the callee, for the caller's wrong argument)"
    suppressed = source.replace(f"{callee}(torch.randn(8, 5))", f"{callee}(torch.randn(8, 5))  # tensorshape: ignore")
    assert check(suppressed)[1] == set(), "a suppression at the call silences it"


def test_a_body_that_breaks_its_return_annotation_is_reported_once_in_the_callee() -> None:
    source = _program(
        """
        import torch
        from jaxtyping import Float
        from torch import Tensor
        from tensorshape import reveal_shape


        def head(x: Float[Tensor, "b d"]) -> Float[Tensor, "b 3"]:
            return x[:, :4]


        def main():
            y = head(torch.randn(2, 8))
            reveal_shape(y)
        """
    )
    reveals, errors = check(source)
    assert errors == {(8, "TS101")}
    assert reveals[13] == ["[2 3]"], "the caller trusts the annotation where the body contradicts it"


# -- item 5 (second half): config attributes ------------------------------------------------------------

ATTENTION = _program(
    """
    from dataclasses import dataclass

    import torch
    import torch.nn as nn
    from tensorshape import reveal_shape


    @dataclass
    class Config:
        d_model: int = 32
        n_head: int = 4


    class Attention(nn.Module):
        def __init__(self, cfg):
            super().__init__()
            self.d = cfg.d_model
            self.n_head = cfg.n_head
            self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
            self.scale = torch.ones(cfg.n_head, 1, 1)

        def split(self, x):
            b, t, _ = x.shape
            return x.view(b, t, self.n_head, -1).transpose(1, 2)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(x).split(self.d, dim=2)
            q = self.split(q)
            reveal_shape(q)
            att = (q @ self.split(k).transpose(-2, -1)) * self.scale
            reveal_shape(att)
            y = (att @ self.split(v)).transpose(1, 2).reshape(b, t, self.d)
            reveal_shape(torch.zeros(self.n_head, self.d // self.n_head))
            return y

        def heads_of(self, x):
            b, n_head, t, d = x.shape
            reveal_shape(torch.zeros(self.n_head, n_head))
            return x * self.scale


    def main():
        attn = Attention(Config())
        attn(torch.randn(2, 5, 32))
        attn.heads_of(torch.randn(2, 4, 5, 8))
    """
)


def test_config_attributes_are_one_symbol_in_every_method() -> None:
    reveals, errors = check(ATTENTION)
    assert errors == set()
    # ``split`` unpacks ``x.shape`` again: its ``b'``/``t'`` are new names for the same sizes.
    assert reveals[30] == ["[b' n_head t' d_model//n_head]; [2 4 5 8] (with a caller's sizes)"]
    assert reveals[32] == ["[b' n_head t' t']; [2 4 5 5] (with a caller's sizes)"]
    assert reveals[34] == ["[n_head d_model//n_head]; [4 8] (with a caller's sizes)"], (
        "self.d // self.n_head relates to the view's -1"
    )
    # The method's own ``n_head`` (a dim of its argument) is another size than ``self.n_head``.
    assert reveals[39] == ["[n_head n_head']; [4 4] (with a caller's sizes)"]
    truth, raised = run_torch(ATTENTION)
    assert raised is None
    env = {"n_head": 4, "d_model": 32, "b_": 2, "t_": 5}
    for line in (30, 32, 34):
        dims = reveals[line][0].split("; ")[0][1:-1].replace("'", "_").split()
        assert [eval(d, {}, env) for d in dims] == truth[line][0], line  # noqa: S307 - our own rendering


# -- item 7: constructor defaults ---------------------------------------------------------------------

DEFAULTS = _program(
    """
    import torch
    import torch.nn as nn
    from tensorshape import reveal_shape


    class Classifier(nn.Module):
        def __init__(self, emb_dim: int = 128, hidden: int = 64, n_classes: int = 10):
            super().__init__()
            self.embed = nn.Linear(emb_dim, hidden)
            self.head = nn.Linear(emb_dim, n_classes)

        def forward(self, x):
            h = self.embed(x)
            reveal_shape(h)
            return self.head(h)


    def train(model, batches):
        for x in batches:
            model(x)


    def main():
        model = Classifier()
        train(model, [torch.randn(4, 128)])
    """
)


def test_defaults_of_a_model_built_without_arguments_are_its_sizes() -> None:
    reveals, errors = check(DEFAULTS)
    _, raised = run_torch(DEFAULTS)
    assert raised == 15
    assert errors == {(15, "TS101")}, "the two defaults disagree: an error where torch raises"
    assert reveals[14][0].split("; ")[0] in ("[... 64]", "[? 64]", "[*batch 64]")


def test_defaults_are_not_assumed_when_a_call_passes_the_parameter() -> None:
    source = DEFAULTS.replace("model = Classifier()", "model = Classifier(emb_dim=64)").replace(
        "torch.randn(4, 128)", "torch.randn(4, 64)"
    )
    _, errors = check(source)
    _, raised = run_torch(source)
    assert raised is None
    assert errors == set()


def test_defaults_are_not_assumed_for_a_class_passed_as_a_value() -> None:
    source = _program(
        """
        import torch
        import torch.nn as nn


        class Block(nn.Module):
            def __init__(self, inplanes: int = 16, planes: int = 32):
                super().__init__()
                self.a = nn.Linear(inplanes, planes)
                self.b = nn.Linear(inplanes, planes)

            def forward(self, x):
                return self.b(self.a(x))


        def make(block, n):
            return nn.Sequential(*[block(8, 8) for _ in range(n)])


        def main():
            net = make(Block, 2)
            Block(8, 8)
            net(torch.randn(2, 8))
        """
    )
    _, errors = check(source)
    _, raised = run_torch(source)
    assert raised is None
    assert errors == set(), "Block is also built elsewhere (make's `block(8, 8)`): its defaults say nothing"


def test_attributes_a_construction_helper_sets_before_returning_reach_the_instance() -> None:
    source = _program(
        """
        import torch
        import torch.nn as nn
        from tensorshape import reveal_shape


        class Net(nn.Module):
            def __init__(self, width):
                super().__init__()
                self.inplanes = width
                self.a = self._make(16)
                self.b = self._make(32)

            def _make(self, planes):
                layer = nn.Conv2d(self.inplanes, planes, 3, padding=1)
                self.inplanes = planes
                return layer

            def forward(self, x):
                return self.b(self.a(x))


        def main():
            net = Net(8)
            y = net(torch.randn(2, 8, 5, 5))
            reveal_shape(y)
        """
    )
    reveals, errors = check(source)
    truth, raised = run_torch(source)
    assert raised is None
    assert errors == set(), "`self.inplanes = planes` before `return` is seen by the second call"
    assert reveals[25] == ["[2 32 5 5]"] and truth[25] == [[2, 32, 5, 5]]
