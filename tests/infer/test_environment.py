"""Environment variables the program reads are taken as unset (issue 22): timm builds `NaFlexVit`
instead of its ViT when `TIMM_USE_NAFLEXVIT` is "true".  `os.environ.get(name, default)` and
`os.getenv(name, default)` are the default, and `name in os.environ` is false; every such read is
counted (`environment_assumed`).  Checked against torch, run with the variables unset."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tensorshape.cli.main import main

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import os

import torch
import torch.nn as nn
from tensorshape import reveal_shape

_BIG = os.environ.get("TS_TEST_USE_BIG", "false").lower() == "true"
_W = int(os.getenv("TS_TEST_WIDTH", "8"))


"""

CASES = {
    "a_default_chooses_the_layer": """
        layer = nn.Linear(4, 16) if _BIG else nn.Linear(4, _W)
        reveal_shape(layer(torch.randn(2, 4)))
    """,
    "a_variable_not_in_the_environment": """
        x = torch.randn(2, 8)
        if "TS_TEST_FLAG" in os.environ:
            x = x.sum(0)
        reveal_shape(x)
    """,
    "a_wrong_size_under_the_default": """
        layer = nn.Linear(4, 16) if _BIG else nn.Linear(4, _W)
        layer(torch.randn(2, 4)) + torch.zeros(2, 16)  # E: TS102
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("environment"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("TS_TEST_USE_BIG", "TS_TEST_WIDTH", "TS_TEST_FLAG"):
        monkeypatch.delenv(var, raising=False)
    assert_agrees_with_torch(files[name], files)


def test_each_read_is_counted(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert "TS_TEST_FLAG" not in os.environ
    main(["check", str(files["a_variable_not_in_the_environment"]), "--no-cache", "-j", "1", "--format", "json"])
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["environment_assumed"] == 3, summary
