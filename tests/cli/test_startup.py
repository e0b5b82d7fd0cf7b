"""Start-up: what ``tensorshape check`` imports when it has nothing to parse (issue 20 item 3)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tensorshape.cli.runner import _blank_result
from tensorshape.cli.serialize import dump_result
from tensorshape.infer.api import check_file

#: Reports which heavy modules a ``tensorshape check`` run imported.
PROBE = """
import json, sys
from tensorshape.cli.main import main
code = main(sys.argv[1:])
heavy = ["libcst", "sympy", "tensorshape.infer.api", "tensorshape.rules.engine"]
print(json.dumps({"code": code, "imported": [m for m in heavy if m in sys.modules]}))
"""


def _probe(tmp_path: Path, *args: str) -> dict[str, object]:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    out = subprocess.run(
        [sys.executable, "-c", PROBE, "check", *args], env=env, cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.parametrize("text", ["", "\n", "\n\n  \n", "\r\n\t\r\n"])
def test_blank_file_result_is_the_analysis_result(tmp_path: Path, text: str) -> None:
    p = tmp_path / "blank.py"
    p.write_bytes(text.encode())
    fast = _blank_result(str(p))
    assert fast is not None
    assert dump_result(fast) == dump_result(check_file(str(p)))


@pytest.mark.parametrize("text", ["x = 1\n", "# a comment\n", "\x0c\n", "pass"])
def test_a_file_with_anything_else_is_analysed(tmp_path: Path, text: str) -> None:
    p = tmp_path / "code.py"
    p.write_text(text)
    assert _blank_result(str(p)) is None


def test_blank_file_needs_no_parser(tmp_path: Path) -> None:
    (tmp_path / "empty.py").write_text("")
    assert _probe(tmp_path, "empty.py") == {"code": 0, "imported": []}


def test_cached_files_need_no_parser(tmp_path: Path) -> None:
    (tmp_path / "bug.py").write_text("import torch\nx = torch.randn(3, 4) @ torch.randn(5, 6)\n")
    (tmp_path / "ok.py").write_text("import torch\nx = torch.randn(3, 4) @ torch.randn(4, 2)\n")
    first = _probe(tmp_path, "-j1", ".")
    assert first["code"] == 1 and "libcst" in first["imported"]  # type: ignore[operator]
    assert _probe(tmp_path, "-j1", ".") == {"code": 1, "imported": []}


def test_int_sizes_need_no_sympy(tmp_path: Path) -> None:
    """sympy (0.3 s of imports) is imported where symbols meet: a file whose sizes are all ints never does."""
    (tmp_path / "ok.py").write_text("import torch\nx = torch.randn(3, 4) @ torch.randn(4, 2)\n")
    assert _probe(tmp_path, "ok.py") == {
        "code": 0,
        "imported": ["libcst", "tensorshape.infer.api", "tensorshape.rules.engine"],
    }
