"""tensorshape.runtime: checks, bindings across tensors, the decorator, the switch, torch.compile."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from tensorshape import runtime
from tensorshape.runtime import ShapeCheckError, check, check_shapes, shapecheck

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

from jaxtyping import Float, Int  # noqa: E402
from torch import Tensor  # noqa: E402


def z(*shape: int) -> object:
    return torch.zeros(shape)


def test_bindings_across_tensors_and_messages() -> None:
    b = check_shapes({"x": (z(4, 5), "b d"), "w": (z(5, 3), "d k")})
    assert b.values == {"b": 4, "d": 5, "k": 3}
    with pytest.raises(ShapeCheckError) as e:
        check_shapes({"x": (z(4, 5), "b d"), "y": (z(5, 5), "b d")}, where="model.py:12")
    msg = str(e.value)
    assert msg.startswith("model.py:12: ")
    assert "b=4 from x, but y has 5 at dim 0" in msg
    assert e.value.spec == "b d" and e.value.actual == (5, 5) and e.value.bindings["b"] == 4
    assert isinstance(e.value, RuntimeError)


@pytest.mark.parametrize(
    ("shape", "spec", "ok"),
    [
        ((2, 3, 4), "*batch n", True),
        ((4,), "*batch n", True),
        ((), "*batch n", False),
        ((3, 7), "n 2*n+1", True),
        ((3, 8), "n 2*n+1", False),
        ((1, 5), "#b d", True),
        ((2, 5), "_ 5", True),
        ((2, 6), "_ 5", False),
        ((2, 3, 4), "... 4", True),
        ((6, 2), "b data=d", True),
        ((6, 2), "jagged=n d", True),
        ((), "", True),
        ((1,), "", False),
        ((4, 4), "n min(n,5)", True),
    ],
)
def test_spec_language(shape: tuple[int, ...], spec: str, ok: bool) -> None:
    if ok:
        check(z(*shape), spec)
    else:
        with pytest.raises(ShapeCheckError):
            check(z(*shape), spec)


def test_variadic_groups_bind() -> None:
    check_shapes({"x": (z(2, 3, 7), "*b n"), "y": (z(2, 3), "*b")})
    with pytest.raises(ShapeCheckError, match=r"\*b=\(2, 3\) from x, but y has \(2, 4\)"):
        check_shapes({"x": (z(2, 3, 7), "*b n"), "y": (z(2, 4), "*b")})


def test_decorator_checks_arguments_and_return() -> None:
    @shapecheck
    def f(
        x: Float[Tensor, "b d"], w: Float[Tensor, "d k"], bias: Float[Tensor, " k"] | None = None
    ) -> Float[Tensor, "b k"]:
        return x @ w

    assert f(z(4, 5), z(5, 3)).shape == (4, 3)
    assert f(z(4, 5), w=z(5, 3), bias=None).shape == (4, 3)
    with pytest.raises(ShapeCheckError, match="d=5 from x, but w has 6 at dim 0"):
        f(z(4, 5), z(6, 3))

    @shapecheck
    def g(x: Float[Tensor, "b d"]) -> Float[Tensor, "b d"]:
        return x.T

    with pytest.raises(ShapeCheckError, match="return"):
        g(z(4, 5))
    assert "test_runtime.py" in (pytest.raises(ShapeCheckError, g, z(2, 3)).value.where or "")


def test_decorator_refs_to_arguments() -> None:
    @shapecheck
    def first(x: Float[Tensor, "n d"], k: int) -> Float[Tensor, "{k} d"]:
        return x[:k]

    assert first(z(5, 2), 3).shape == (3, 2)


def test_switch_api() -> None:
    runtime.disable()
    try:
        check(z(2), "3")  # no error: disabled
        check_shapes({"x": (z(2), "3")})
    finally:
        runtime.enable()
    with pytest.raises(ShapeCheckError):
        check(z(2), "3")


def test_environment_switch_returns_the_function_itself() -> None:
    code = (
        "import torch; from jaxtyping import Float; from torch import Tensor\n"
        "from tensorshape.runtime import shapecheck, check\n"
        "def f(x: Float[Tensor, 'n']): return x\n"
        "assert shapecheck(f) is f\n"
        "check(torch.zeros(2), '3')\n"
        "print('off')\n"
    )
    env = dict(os.environ, TENSORSHAPE_RUNTIME="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "off"


def test_int_annotations_are_ignored_and_int_tensors_checked() -> None:
    @shapecheck
    def h(idx: Int[Tensor, " n"], n: int) -> Int[Tensor, " n"]:
        return idx

    h(torch.zeros(3, dtype=torch.long), 3)


def test_torch_compile_runs_checked_functions() -> None:
    @shapecheck
    def f(x: Float[Tensor, "b d"], w: Float[Tensor, "d k"]) -> Float[Tensor, "b k"]:
        return torch.relu(x @ w)

    compiled = torch.compile(f, backend="eager")
    x, w = torch.randn(4, 5), torch.randn(5, 3)
    assert torch.allclose(compiled(x, w), f(x, w))
    # The checks are traced into the graph's guards: a bad shape still raises.
    with pytest.raises(ShapeCheckError):
        compiled(x, torch.randn(6, 3))
