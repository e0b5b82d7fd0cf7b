"""Trace a torch program through the CLI, write the annotations, and run the result under jaxtyping."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tensorshape.cli.main import main

PROGRAM = '''"""A small model, unannotated, as people write it."""
import argparse

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, d_model: int, heads: int = 2):
        super().__init__()
        self.proj = nn.Linear(d_model, 2 * d_model)  # keep this comment
        self.heads = heads

    def forward(self, x, mask=None):
        b, t, d = x.shape
        h = self.proj(x)
        return h.view(b, t, 2, d), h.mean(dim=1)


def pool(features, lengths):
    return features.sum(dim=1) / lengths.unsqueeze(-1)


def combine(xs, named, scale=1.0):
    return torch.stack(xs).sum(0) * scale + named["a"]


def split(x, n):
    return tuple(x.chunk(n, dim=-1))


def step(model, x, target):
    full, pooled = model(x)
    loss = ((pooled - target) ** 2).mean()
    loss.backward()
    return loss


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args()
    model = Encoder(8)
    for i in range(args.steps):
        batch = 2 + i
        x = torch.randn(batch, 4 + i, 8)
        step(model, x, torch.randn(batch, 16))
        pool(x, torch.full((batch,), 4.0 + i))
        if i:
            combine([x] * (i + 1), {"a": x, "b": x}, torch.ones(8))
        else:
            combine([x], {"a": x})
        split(x, 1 + i % 2)


if __name__ == "__main__":
    main()
'''

CHECK = """
import sys
from jaxtyping import install_import_hook
sys.argv = ["train.py"]
with install_import_hook("train", "beartype.beartype"):
    import train
train.main()
import torch
try:
    train.pool(torch.randn(2, 3, 8), torch.ones(5))
except Exception as e:
    print("rejected", type(e).__name__)
"""


def test_trace_write_then_jaxtyping_accepts_every_traced_call(tmp_path: Path, monkeypatch: object) -> None:
    prog = tmp_path / "train.py"
    prog.write_text(PROGRAM, encoding="utf-8")
    mp = monkeypatch
    mp.chdir(tmp_path)  # type: ignore[attr-defined]
    code = main(["annotate", "--trace", "--write", "--", sys.executable, "train.py", "--steps", "3"])
    assert code == 0
    out = prog.read_text(encoding="utf-8")
    # ``d`` is the constructor's ``d_model`` (8 in every call): a name, not the literal
    assert 'def forward(self, x: Float[Tensor, "b t d"], mask=None) -> tuple[' in out
    assert (
        'def combine(xs: list[Float[Tensor, "b t 8"]], named: dict[str, Float[Tensor, "b t 8"]], '
        'scale: Float[Tensor, " 8"] | float = 1.0) -> Float[Tensor, "b t 8"]:'
    ) in out
    assert 'def split(x: Float[Tensor, "b t 8"], n) -> tuple[Float[Tensor, "b t m"], ...]:' in out
    assert "# keep this comment" in out
    assert 'def pool(features: Float[Tensor, "b t 8"], lengths: Float[Tensor, " b"]) -> Float[Tensor, "b 8"]:' in out
    assert "from jaxtyping import Float\nimport torch\nfrom torch import Tensor, nn\n" in out
    run = subprocess.run([sys.executable, "-c", CHECK], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "rejected" in run.stdout  # the annotations do check: a wrong call is refused
    # applying the saved trace again changes nothing
    assert main(["annotate", "--from-trace", "tensorshape-trace.jsonl", "--write"]) == 0
    assert prog.read_text(encoding="utf-8") == out
