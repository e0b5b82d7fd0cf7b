"""Constructs met in whole unannotated programs (tests/wholeprograms, issue 16), against torch
(see ``torch_cases.py`` for how a case is judged)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import random

import numpy as np
import torch
from tensorshape import reveal_shape
"""

CASES = {
    # mixup as its authors write it: ``lam`` is a float on both paths of a condition not known
    # (an option's value), so ``lam * x`` keeps the batch's shape.
    "float_joined_from_two_paths_scales_a_tensor": """
        def mixup(x, y, alpha):
            lam = random.betavariate(alpha, alpha) if alpha > 0 else 1.0
            index = torch.randperm(x.size(0))
            mixed = lam * x + (1 - lam) * x[index, :]
            return mixed, y, y[index], lam

        def step(alpha):
            images, targets = torch.randn(8, 3, 4, 4), torch.randint(0, 10, (8,))
            mixed, ya, yb, lam = mixup(images, targets, alpha)
            reveal_shape(mixed)
            reveal_shape(yb)
            scale = 0.5 if alpha > 1 else 2.0
            reveal_shape(scale * mixed.mean(0))

        step(random.random())
    """,
    # A dataset that samples its points with numpy, as PointNet's do: the arrays' shapes through
    # draws, advanced indexing, reductions over an axis, broadcasting and ``from_numpy``.
    "numpy_sample_of_a_point_cloud": """
        rng = np.random.RandomState(0)
        clouds = [rng.randn(64, 3) * rng.uniform(0.5, 2.0) for _ in range(4)]
        labels = rng.randint(0, 10, size=4)

        def sample(index, npoints):
            pts = clouds[index]
            choice = np.random.choice(len(pts), npoints, replace=True)
            point_set = pts[choice, :]
            point_set = point_set - np.expand_dims(np.mean(point_set, axis=0), 0)
            dist = np.max(np.sqrt(np.sum(point_set**2, axis=1)), 0)
            point_set = point_set / dist
            theta = np.random.uniform(0, np.pi * 2)
            rotation = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
            point_set[:, [0, 2]] = point_set[:, [0, 2]].dot(rotation)
            point_set += np.random.normal(0, 0.02, size=point_set.shape)
            points = torch.from_numpy(point_set.astype(np.float32))
            cls = torch.from_numpy(np.array([labels[index]]).astype(np.int64))
            return points, cls, point_set

        points, cls, point_set = sample(1, 32)
        reveal_shape(torch.from_numpy(point_set.T.copy()))
        reveal_shape(torch.tensor(point_set.reshape(-1, 1, 3).mean(axis=1, keepdims=True)))
        reveal_shape(points)
        reveal_shape(cls)
        reveal_shape(torch.from_numpy(np.concatenate([np.zeros((2, 3)), np.ones((5, 3))], axis=0)))
        reveal_shape(torch.from_numpy(np.stack([np.zeros(3)] * 4, axis=1)))
        reveal_shape(points.unsqueeze(0).transpose(2, 1))
    """,
    # The audio tutorial's collate function: ``tensors += [waveform]`` on every pass over the batch
    # (a starred target in the loop) appends one item, so the padded batch and the stacked targets
    # have the batch's rows (and the last batch's).
    "collate_extends_lists_by_a_literal_each_pass": """
        from torch.nn.utils.rnn import pad_sequence
        from torch.utils.data import DataLoader, Dataset

        class Clips(Dataset):
            def __init__(self, n):
                self.lengths = [50 + i % 7 for i in range(n)]

            def __len__(self):
                return len(self.lengths)

            def __getitem__(self, n):
                return torch.randn(1, self.lengths[n]), 16000, n % 3, "speaker", n % 5

        def collate_fn(batch):
            tensors, targets = [], []
            for waveform, _, label, *_ in batch:
                tensors += [waveform.t()]
                targets += [torch.tensor(label)]
            return pad_sequence(tensors, batch_first=True).permute(0, 2, 1), torch.stack(targets)

        for x, y in DataLoader(Clips(20), batch_size=8, collate_fn=collate_fn):
            reveal_shape(x)
            reveal_shape(y)
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("program_constructs"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)
