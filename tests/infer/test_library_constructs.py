"""The constructs model libraries are built from, and the edits fine-tuning makes (issue 22 items 2-3).

Each case is user-style code checked against torch (see ``torch_cases``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import torch
import torch.nn as nn
from tensorshape import reveal_shape


class Classifier(nn.Module):
    def __init__(self, width=16, num_classes=10):
        super().__init__()
        self.stem = nn.Linear(4, width)
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.fc(self.stem(x))


class Wide(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Linear(4, 32)
        self.classifier = nn.Sequential(nn.Linear(32, 24), nn.ReLU(), nn.Linear(24, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        return self.head(x)


class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(4, 32)
        self.heads = Heads()

    def forward(self, x):
        return self.heads(self.embed(x))


"""

CASES = {
    "new_head": """
        model = Classifier()
        x = torch.randn(2, 4)
        reveal_shape(model(x))
        model.fc = nn.Linear(16, 3)
        reveal_shape(model(x))
        """,
    "new_head_wrong_in_features": """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Linear(4, 16)
                self.fc = nn.Linear(16, 10)

            def forward(self, x):
                return self.fc(self.body(x))  # E: TS101


        model = Net()
        model.fc = nn.Linear(512, 3)
        model(torch.randn(2, 4))
        """,
    "other_instance_keeps_its_head": """
        a = Classifier()
        b = Classifier()
        a.fc = nn.Linear(16, 2)
        reveal_shape(a(torch.randn(3, 4)))
        reveal_shape(b(torch.randn(3, 4)))
        """,
    "sequential_last_replaced": """
        model = Wide()
        model.classifier[-1] = nn.Linear(24, 5)
        reveal_shape(model(torch.randn(2, 4)))
        """,
    "sequential_last_replaced_wrong": """
        head = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 10))
        head[2] = nn.Linear(24, 5)
        head(torch.randn(2, 4))  # E: TS101
        """,
    "nested_head_replaced": """
        model = Transformer()
        model.heads.head = nn.Linear(32, 7)
        reveal_shape(model(torch.randn(2, 4)))
        """,
    "no_grad_eval_block": """
        model = Classifier(num_classes=6)
        model.eval()
        with torch.no_grad():
            out = model(torch.randn(5, 4))
            reveal_shape(out)
        """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("library_constructs"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)
