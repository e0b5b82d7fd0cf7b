"""An installed package's own check of the caller's sizes that raises (issue 22 item 3).

transformers' ``ViTEmbeddings.forward`` checks the image size itself: ``if height !=
self.image_size[0] or width != self.image_size[1]: raise ValueError(...)``.  With the caller's
sizes known that test is true, and the program stops there: reported at the user's call (as a
library's failing ``assert`` is), unless a ``try`` under way may catch it.  Checked against torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.libraries.conftest import CheckWithSite

EMBED = """
import torch.nn as nn


class PatchEmbed(nn.Module):
    def __init__(self, image_size, patch_size, width):
        super().__init__()
        self.image_size = (image_size, image_size)
        self.proj = nn.Conv2d(3, width, kernel_size=patch_size, stride=patch_size)

    def forward(self, images):
        batch, channels, height, width = images.shape
        if height != self.image_size[0] or width != self.image_size[1]:
            raise ValueError(f"image size {height}*{width} is not {self.image_size}")
        return self.proj(images).flatten(2).transpose(1, 2)
"""

USER = """
import torch
from tinylib.embed import PatchEmbed

embed = PatchEmbed(64, 16, 32)
tokens = embed(torch.randn(2, 3, 96, 96))
"""


def _torch_line(tmp_path: Path, user: str) -> int | None:
    """The line of the user's file torch raises from (``None``: it runs)."""
    (tmp_path / "tinylib").mkdir(exist_ok=True)
    (tmp_path / "tinylib" / "__init__.py").write_text("")
    (tmp_path / "tinylib" / "embed.py").write_text(EMBED)
    (tmp_path / "main.py").write_text(user)
    out = subprocess.run([sys.executable, "main.py"], capture_output=True, text=True, cwd=tmp_path)
    if out.returncode == 0:
        return None
    rows = [r for r in out.stderr.splitlines() if 'main.py", line' in r]
    return int(rows[-1].split("line ")[1].split(",")[0])


def test_the_check_is_reported_at_the_users_call(tmp_path: Path, check_with_site: CheckWithSite) -> None:
    assert _torch_line(tmp_path, USER) == 6
    found = check_with_site(USER, {"tinylib": {"embed": EMBED}})
    errors = [(line, code, message) for line, code, message in found if code == "TS101"]
    assert [(line, code) for line, code, _ in errors] == [(6, "TS101")], found
    assert "this check always raises" in errors[0][2] and "96 vs 64" in errors[0][2], errors
    assert "raised inside tinylib/embed.py:" in errors[0][2], errors


@pytest.mark.parametrize(
    "user",
    [
        # The size it was built for: no error.
        USER.replace("96, 96", "64, 64"),
        # A ``try`` that may catch it.
        USER.replace(
            "tokens = embed(torch.randn(2, 3, 96, 96))\n",
            "try:\n    tokens = embed(torch.randn(2, 3, 96, 96))\nexcept ValueError:\n    tokens = None\n",
        ),
    ],
)
def test_no_error_where_it_does_not_raise_or_is_caught(
    tmp_path: Path, check_with_site: CheckWithSite, user: str
) -> None:
    assert _torch_line(tmp_path, user) is None
    found = check_with_site(user, {"tinylib": {"embed": EMBED}})
    assert [d for d in found if d[1] == "TS101"] == [], found
