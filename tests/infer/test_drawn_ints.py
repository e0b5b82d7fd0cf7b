"""Ints drawn in a known range (issue 16): ``random.randint(a, b)``, ``random.randrange``,
``int(torch.randint(low, high, (1,)))``, ``.item()`` and ``.tolist()`` of it are fresh ints with the
facts that bound them, so a crop at a random offset (``img[:, i : i + size]``, torchvision's
``RandomCrop`` written by hand) keeps its ``size`` where ``i + size`` cannot pass the edge, and is
not claimed where it can.  Checked against torch (``torch_cases``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tensorshape.infer import check_source

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import random

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from tensorshape import reveal_shape


"""

CASES = {
    "random_crop_transform_in_a_loader": """
        class RandomCrop:
            def __init__(self, size, padding=0):
                self.size = size
                self.padding = padding

            def __call__(self, img):
                if self.padding > 0:
                    img = F.pad(img, (self.padding,) * 4)
                _, h, w = img.shape
                i = int(torch.randint(0, h - self.size + 1, (1,)))
                j = int(torch.randint(0, w - self.size + 1, size=(1,)))
                return img[:, i : i + self.size, j : j + self.size]


        class Pictures(Dataset):
            def __init__(self, n, transform):
                self.data = torch.rand(n, 3, 32, 32)
                self.transform = transform

            def __len__(self):
                return len(self.data)

            def __getitem__(self, index):
                return self.transform(self.data[index])


        loader = DataLoader(Pictures(10, RandomCrop(32, padding=4)), batch_size=4, shuffle=True)
        for images in loader:
            reveal_shape(images)
    """,
    "item_and_tolist_offsets": """
        def crop(img, size):
            _, h, w = img.shape
            top = torch.randint(0, h - size + 1, (1,)).item()
            i, j = torch.randint(0, 9, (2,)).tolist()
            left = torch.randint(w - size + 1, (1,), generator=torch.Generator().manual_seed(0)).item()
            reveal_shape(img[:, top : top + size, left : left + size])
            return img[..., i : i + size, j : j + size]


        reveal_shape(crop(torch.rand(3, 40, 40), 32))
    """,
    "python_random_offsets": """
        def window(x, n):
            i = random.randint(0, x.size(-1) - n)
            k = random.randrange(x.size(0) - 2 + 1)
            return x[k : k + 2, i : i + n]


        reveal_shape(window(torch.rand(5, 50), 20))
    """,
    "an_offset_that_can_pass_the_edge_is_not_claimed": """
        x = torch.rand(2, 40)
        for _ in range(20):
            i = random.randint(0, 40 - 31)  # up to 9: a window of 32 may hold fewer
            part = x[:, i : i + 32]
            assert part.shape[1] <= 32
        print(part.reshape(2, -1).shape)
    """,
    "a_crop_viewed_with_the_uncropped_size": """
        img = torch.rand(3, 40, 40)
        i = int(torch.randint(0, 40 - 32 + 1, (1,)))
        j = int(torch.randint(0, 40 - 32 + 1, (1,)))
        patch = img[:, i : i + 32, j : j + 32]
        flat = patch.reshape(3, 40 * 40)  # E: TS106
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("drawn_ints"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)


def _reveals(body: str) -> list[str]:
    src = HEADER + body
    return [
        d.message.removeprefix("revealed shape: ")
        for d in check_source(src, "t.py").diagnostics
        if d.code.id == "TS900"
    ]


def test_a_window_that_can_overrun_is_clamped() -> None:
    """``random.randint(0, 9)`` then ``x[:, i : i + 32]`` of 40 columns: torch gives 31 columns for
    ``i == 9``, so the length is not 32."""
    (shown,) = _reveals("x = torch.rand(2, 40)\ni = random.randint(0, 9)\nreveal_shape(x[:, i : i + 32])\n")
    assert shown != "[2 32]" and shown.startswith("[2 ")


def test_randint_drawn_without_its_range_stays_unknown() -> None:
    """``torch.randint`` whose ``high`` is not known gives no facts: the window is clamped."""
    (shown,) = _reveals("def f(x, hi):\n    i = int(torch.randint(0, hi, (1,)))\n    reveal_shape(x[i : i + 4])\n")
    assert "4" != shown.strip("[]")
    (kept,) = _reveals(
        "def g(x):\n    i = int(torch.randint(0, x.size(0) - 3, (1,)))\n    reveal_shape(x[i : i + 4])\n"
    )
    assert kept.startswith("[4")


def test_labels_drawn_as_a_list_of_unknown_length() -> None:
    """``torch.randint(0, 10, (n,)).tolist()`` (a fake dataset's targets) of a size not known, or of
    more elements than are tracked one by one, is a plain list of ints (it was an internal error)."""
    src = HEADER + (
        "def targets(n, size):\n"
        "    labels = torch.randint(0, 10, (n,)).tolist()\n"
        "    unsized = torch.randint(0, 10, size).tolist()\n"
        "    many = torch.randint(0, 10, (100,)).tolist()\n"
        "    return torch.tensor(labels[:4] + many[:4])\n"
        "\n"
        "reveal_shape(targets(7, (3, 2)))\n"
    )
    diagnostics = check_source(src, "t.py").diagnostics
    assert [d.code.id for d in diagnostics if d.code.id != "TS900"] == []
    assert [d.message for d in diagnostics if d.code.id == "TS900"]


def test_a_symbolic_start_past_a_stop_in_range_is_empty() -> None:
    """``x[r:8]`` and ``x[r:]`` of a 10-long axis with ``r`` an int the code does not bound: torch
    gives ``max(8 - r, 0)`` and ``max(10 - r, 0)`` items (0, never a negative length, for ``r`` past
    the stop)."""
    import torch

    body = "def f(r: int):\n    x = torch.zeros(10)\n    reveal_shape(x[r:8])\n    reveal_shape(x[r:])\n"
    assert _reveals(body) == ["[max(0,8-r)]", "[max(0,10-r)]"]
    for r in range(0, 14):
        assert torch.zeros(10)[r:8].shape[0] == max(0, 8 - r)
        assert torch.zeros(10)[r:].shape[0] == max(0, 10 - r)
