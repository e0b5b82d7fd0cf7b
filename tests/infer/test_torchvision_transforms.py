"""torchvision's transforms and datasets as the data rules model them, against torchvision itself
(see ``torch_cases.py`` for how a case is judged).

torchvision 0.28's wheel registers fake kernels for its C++ detection ops (``nms``) at import,
and the CPU build of torch 2.13 that the tests use has no such ops: the runner
(``tests/realistic/run_with_torch.py``) defines the missing op names before running the cases
(the models and transforms used here never call them).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms
from tensorshape import reveal_shape

"""

CASES = {
    "tensor_image_transforms": """
        img = torch.rand(3, 40, 60)
        reveal_shape(transforms.Resize(32)(img))
        reveal_shape(transforms.Resize((20, 24))(img))
        reveal_shape(transforms.CenterCrop(16)(img))
        reveal_shape(transforms.RandomCrop((8, 12))(img))
        reveal_shape(transforms.RandomResizedCrop(24)(img))
        reveal_shape(transforms.Grayscale()(img))
        reveal_shape(transforms.Grayscale(num_output_channels=3)(img))
        reveal_shape(transforms.Normalize((0.5, 0.5, 0.5), (0.2, 0.2, 0.2))(img))
        reveal_shape(transforms.RandomHorizontalFlip()(img))
    """,
    "compose_on_a_batch": """
        tf = transforms.Compose([transforms.Resize(36), transforms.CenterCrop(32), transforms.Normalize((0.5,), (0.5,))])
        batch = torch.rand(4, 1, 48, 40)
        reveal_shape(tf(batch))
    """,
    "fake_data_through_a_loader": """
        class Images(torch.utils.data.Dataset):
            def __init__(self, n, transform=None):
                self.n = n
                self.transform = transform

            def __len__(self):
                return self.n

            def __getitem__(self, i):
                img = torch.rand(3, 50, 70)
                if self.transform is not None:
                    img = self.transform(img)
                return img, i % 3

        tf = transforms.Compose([transforms.Resize(40), transforms.CenterCrop(32)])
        loader = DataLoader(Images(10, tf), batch_size=4)
        for x, y in loader:
            reveal_shape(x)
            reveal_shape(y)
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if importlib.util.find_spec("torchvision") is None:
        pytest.skip("torchvision is not installed")
    return write_cases(tmp_path_factory.mktemp("torchvision"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torchvision(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)
