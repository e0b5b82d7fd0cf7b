"""Sizes from command-line options (``argparse``), against torch run with the defaults
(see ``torch_cases.py`` for how a case is judged)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from tensorshape import reveal_shape

"""

CASES = {
    "option_is_a_size_with_its_default": """
        parser = argparse.ArgumentParser(description="demo")
        parser.add_argument("--hidden-size", type=int, default=32, help="width")
        parser.add_argument("-b", "--batch-size", type=int, default=4)
        parser.add_argument("--lr", type=float, default=1e-3)
        parser.add_argument("--no-cuda", action="store_true", default=False)
        args = parser.parse_args()

        net = nn.Sequential(nn.Linear(10, args.hidden_size), nn.ReLU(), nn.Linear(args.hidden_size, 2))
        x = torch.randn(args.batch_size, 10)
        reveal_shape(x)
        reveal_shape(net(x))
    """,
    "mismatch_with_the_default_is_a_warning": """
        parser = argparse.ArgumentParser()
        parser.add_argument("--hidden", type=int, default=100)
        args = parser.parse_args()
        model = nn.Sequential(nn.Linear(784, args.hidden), nn.ReLU(), nn.Linear(128, 10))
        out = model(torch.randn(2, 784))  # E: TS121
    """,
    "dest_and_set_defaults": """
        def get_args():
            p = argparse.ArgumentParser()
            group = p.add_argument_group("model")
            group.add_argument("--width", dest="n_embd", type=int, default=24)
            p.set_defaults(n_head=4)
            return p.parse_args()

        args = get_args()
        q = torch.randn(args.n_head, args.n_embd)
        reveal_shape(q)
        heads = q.view(args.n_head, args.n_head, -1)
    """,
    "default_batch_size_and_the_last_batch": """
        parser = argparse.ArgumentParser()
        parser.add_argument("--batch-size", type=int, default=16)
        args, _ = parser.parse_known_args()
        loader = DataLoader(TensorDataset(torch.randn(40, 784)), batch_size=args.batch_size)
        for (x,) in loader:
            reveal_shape(x)
            img = x.view(args.batch_size, 28, 28)  # E: TS120
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("options"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)
