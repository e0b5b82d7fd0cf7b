"""``xs.index(x)`` and ``xs.count(x)`` of a list or tuple are ints (issue 16): the audio tutorial's
``torch.tensor(labels.index(word))`` is a 0-d tensor (a label batch stacks to ``[batch]``), and
the value is computed where the list and the argument are known.  Checked against torch."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import torch
from tensorshape import reveal_shape

labels = ["backward", "bed", "bird", "cat"]


"""

CASES = {
    "label_index_in_a_collate_function": """
        def label_to_index(word):
            return torch.tensor(labels.index(word))


        def collate_fn(batch):
            tensors, targets = [], []
            for waveform, label in batch:
                tensors += [waveform]
                targets += [label_to_index(label)]
            return torch.stack(tensors), torch.stack(targets)


        reveal_shape(label_to_index("bird"))
        x, y = collate_fn([(torch.rand(1, 5), "bed"), (torch.rand(1, 5), "cat"), (torch.rand(1, 5), "bed")])
        reveal_shape(y)
    """,
    "known_index_and_count_are_sizes": """
        k = labels.index("cat")
        reveal_shape(torch.zeros(k, labels.count("bed") + 1))
        reveal_shape(torch.zeros(("a", "b", "a").count("a")))
    """,
    "an_index_used_as_a_wrong_size": """
        k = labels.index("cat")
        torch.zeros(2, k) + torch.zeros(2, 4)  # E: TS102
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("sequence_methods"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)
