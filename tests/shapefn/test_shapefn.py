"""Shape functions: derivation, emitted Python and JSON, the CLI."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest
from tensorshape.cli.main import main
from tensorshape.shapefn import Dynamic, OutDict, OutTensor, OutTuple, ShapeFunctionUnavailable, derive

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"


def _derive_src(src: str, qualname: str, tmp_path: Path, **inputs: str) -> object:
    p = tmp_path / "m.py"
    p.write_text(textwrap.dedent(src))
    return derive(p, qualname, inputs)


def test_transformer_block_shape_function_checks_divisibility() -> None:
    fn = derive(EX / "transformer_block.py", "MultiHeadAttention.forward")
    src = fn.python_source()
    tree = ast.parse(src)
    imported = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert imported == []  # standard library only, and not even that
    f = fn.compile()
    assert f((2, 16, 256), d_model=256, n_heads=8) == (2, 16, 256)
    assert f([3, 5, 12], d_model=12, n_heads=4) == (3, 5, 12)
    with pytest.raises(ValueError, match="d_model % n_heads"):
        f((2, 16, 10), d_model=10, n_heads=4)
    with pytest.raises(ValueError, match="Linear"):
        f((2, 16, 256), d_model=128, n_heads=8)
    with pytest.raises(ValueError, match="expected 3 dims"):
        f((2, 256), d_model=256, n_heads=8)


def test_symbolic_conv_arithmetic_with_input_override() -> None:
    fn = derive(EX / "cnn.py", "SmallCNN.forward", {"x": "b c h w"})
    f = fn.compile()
    assert f((4, 3, 32, 32), n_classes=10) == (4, 10)
    assert f((4, 3, 16, 64), n_classes=7) == (4, 7)  # the same flattened size
    with pytest.raises(ValueError, match="in_features=4096"):
        f((4, 3, 40, 40), n_classes=10)
    with pytest.raises(ValueError, match="3 channels"):
        f((4, 1, 32, 32), n_classes=10)


def test_tuple_dict_variadic_and_data_dependent_outputs(tmp_path: Path) -> None:
    fn = _derive_src(
        """
        import torch
        from jaxtyping import Float
        from torch import Tensor

        def f(x: Float[Tensor, "*batch n d"], z: Float[Tensor, "m d"], n_out: int):
            w = torch.zeros(n_out, x.shape[-1])
            y = x @ w.T
            picked = z[z.sum(-1) > 0]
            return {"y": y, "pair": (x.flatten(-2), picked), "idx": torch.arange(0, n_out)}
        """,
        "f",
        tmp_path,
    )
    out = fn.expressions()  # type: ignore[attr-defined]
    assert isinstance(out, OutDict)
    pair = dict(out.items)["pair"]
    assert isinstance(pair, OutTuple)
    picked = pair.items[1]
    assert isinstance(picked, OutTensor) and picked.dims is not None and isinstance(picked.dims[0], Dynamic)
    assert picked.dims[0].reason == "data-dependent"
    f = fn.compile()  # type: ignore[attr-defined]
    got = f((2, 3, 5, 4), (9, 4), n_out=6)
    assert got == {"y": (2, 3, 5, 6), "pair": ((2, 3, 20), (None, 4)), "idx": (6,)}
    assert f((7, 4), (1, 4), n_out=1)["pair"][0] == (28,)
    with pytest.raises(ValueError, match="dim 1 is 5, expected d"):
        f((7, 4), (1, 5), n_out=1)


def test_json_form_is_plain_data() -> None:
    fn = derive(EX / "transformer_block.py", "Block.forward")
    data = json.loads(json.dumps(fn.to_json()))
    assert data["version"] == 1 and data["function"] == "Block.forward"
    assert data["scalars"] == ["d_model", "n_heads"]
    assert data["output"] == {"tensor": [{"expr": "b", "python": "b"}, {"expr": "t", "python": "t"}, {"expr": "d", "python": "d"}]}
    assert {"rel": "divisible", "message": "assert d_model % n_heads == 0"}.items() <= data["constraints"][0].items()


def test_errors_are_reported_not_raised(tmp_path: Path) -> None:
    with pytest.raises(ShapeFunctionUnavailable, match="no function"):
        derive(EX / "mlp.py", "Nope.forward")
    with pytest.raises(ShapeFunctionUnavailable, match="reports 1 error"):
        _derive_src(
            """
            import torch
            def f():
                return torch.zeros(2, 3) @ torch.zeros(4, 5)
            """,
            "f",
            tmp_path,
        )
    with pytest.raises(ShapeFunctionUnavailable, match="--input x"):
        derive(EX / "mlp.py", "MLP.forward", {"x": "b, d"})


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fn.py"
    assert main(["shapefn", f"{EX / 'mlp.py'}::MLP.forward", "-o", str(out)]) == 0
    ns: dict[str, object] = {}
    exec(out.read_text(), ns)
    assert ns["mlp_forward_shape"]((32, 784), d_in=784, n_classes=10) == (32, 10)  # type: ignore[operator]
    assert main(["shapefn", f"{EX / 'mlp.py'}::MLP.forward", "--emit", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "mlp_forward_shape"
    assert main(["shapefn", f"{EX / 'mlp.py'}"]) == 2
    assert main(["shapefn", f"{EX / 'mlp.py'}::Missing"]) == 1
    assert main(["shapefn", f"{EX / 'mlp.py'}::MLP.forward", "--input", "oops"]) == 2
