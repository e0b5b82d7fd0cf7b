"""``"timm/" + name`` of two known strings is the string they make (issue 22): timm's ViT module
builds its QuickGELU pretrained configurations with ``c["hf_hub_id"] = "timm/" + n``, and a string
of unknown value there made the weights' presence unknown, so its registry of pretrained
configurations lost its keys and ``create_model("vit_small_patch16_224")`` was unknown.  A key built
by concatenation reads the registry; a size chosen by one is exact.  Checked against torch."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import torch
from tensorshape import reveal_shape

widths = {"timm/small": 8, "timm/base": 12}


"""

CASES = {
    "a_concatenated_key_reads_the_registry": """
        name = "small"
        reveal_shape(torch.zeros(2, widths["timm/" + name]))
    """,
    "a_key_built_in_a_loop": """
        tables = {}
        for n in ["small", "base"]:
            key = "timm/" + n
            if key == "timm/base":
                tables[key + "_x"] = widths[key] * 2
            else:
                tables[key + "_x"] = widths[key]
        reveal_shape(torch.zeros(tables["timm/base_x"], tables["timm/small_x"]))
    """,
    "a_concatenated_key_chooses_a_wrong_size": """
        name = "base"
        torch.zeros(3, widths["timm/" + name]) + torch.zeros(3, 8)  # E: TS102
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("string_concat"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)
