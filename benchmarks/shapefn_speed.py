"""Evaluate an emitted shape function vs. running the model on meta tensors (today's alternative).

    python benchmarks/shapefn_speed.py

Prints microseconds per call for each example model and the ratio.
"""

from __future__ import annotations

import importlib.util
import timeit
from pathlib import Path
from typing import Any

import torch
from tensorshape.shapefn import derive

EX = Path(__file__).resolve().parents[1] / "examples"


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, EX / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> None:
    mlp, cnn, tb = _load("mlp"), _load("cnn"), _load("transformer_block")
    with torch.device("meta"):
        cases = [
            ("MLP.forward", derive(EX / "mlp.py", "MLP.forward").compile(), ((32, 784),), {"d_in": 784, "n_classes": 10},
             mlp.MLP(), (32, 784)),
            ("SmallCNN.forward", derive(EX / "cnn.py", "SmallCNN.forward", {"x": "b c h w"}).compile(), ((8, 3, 32, 32),),
             {"n_classes": 10}, cnn.SmallCNN().eval(), (8, 3, 32, 32)),
            ("Block.forward", derive(EX / "transformer_block.py", "Block.forward").compile(), ((4, 64, 256),),
             {"d_model": 256, "n_heads": 8}, tb.Block(), (4, 64, 256)),
        ]
    print(f"{'function':<20}{'shape fn us':>13}{'meta run us':>13}{'ratio':>9}")
    for name, fn, args, kwargs, model, shape in cases:
        n = 2000
        t_fn = timeit.timeit(lambda: fn(*args, **kwargs), number=n) / n * 1e6  # noqa: B023
        x = torch.empty(shape, device="meta")
        with torch.device("meta"), torch.no_grad():
            m = 50
            model(x)  # warm up
            t_meta = timeit.timeit(lambda: model(x), number=m) / m * 1e6  # noqa: B023
            assert fn(*args, **kwargs) == tuple(model(x).shape)
        print(f"{name:<20}{t_fn:>13.2f}{t_meta:>13.1f}{t_meta / t_fn:>8.0f}x")


if __name__ == "__main__":
    main()
