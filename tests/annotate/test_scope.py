"""Which files ``annotate`` traces and annotates: ``--include``/``--exclude`` and ``[tool.tensorshape.annotate]``.

The traced program uses a tiny ``torch`` module of its own (the tracer recognises a tensor by its
type's module and name), so what is checked is the choice of files, through the CLI as a user runs it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from tensorshape.annotate.trace import matches, resolve_pattern
from tensorshape.cli.main import main

from tests.annotate.test_trace import _interpreters

FAKE_TORCH = """
class Tensor:
    def __init__(self, *shape, dtype="torch.float32"):
        self.shape = tuple(shape)
        self.dtype = dtype
"""

MODEL = """from torch import Tensor


def double(x):
    return Tensor(x.shape[0], 2 * x.shape[1])
"""

HELPER = """from torch import Tensor


def helper(x):
    return Tensor(*x.shape)
"""

TOOL = """import sys

sys.path.insert(0, sys.argv[1])
from torch import Tensor


def tool(x):
    return Tensor(*x.shape)


tool(Tensor(2, 3))
tool(Tensor(4, 3))
"""

SUB = """from torch import Tensor


def child(x):
    return Tensor(*x.shape)


child(Tensor(5, 6))
"""

RUN = """import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
from gen_table import table
from model import double
from torch import Tensor
from vendor.helper import helper


def main():
    for b in (2, 3):
        double(Tensor(b, 4))
        helper(Tensor(b, 4))
        table(Tensor(b, 4))
    here = os.path.dirname(os.path.abspath(__file__))
    fake = os.environ["FAKE_TORCH"]
    for script in (os.path.join(here, "..", "other", "tool.py"), os.path.join(here, "..", "src", "sub.py")):
        subprocess.run([sys.executable, script, fake], check=True)


main()
"""

CONFIG = """[tool.tensorshape.annotate]
include = ["src", "scripts/*.py"]
exclude = ["src/vendor", "gen_*.py"]
"""


def _project(tmp: Path) -> tuple[Path, Path]:
    fake = tmp / "fake"
    fake.mkdir()
    (fake / "torch.py").write_text(FAKE_TORCH, encoding="utf-8")
    proj = tmp / "proj"
    for d in ("src/vendor", "scripts", "other"):
        (proj / d).mkdir(parents=True)
    (proj / "src" / "model.py").write_text(MODEL, encoding="utf-8")
    (proj / "src" / "gen_table.py").write_text(HELPER.replace("helper", "table"), encoding="utf-8")
    (proj / "src" / "vendor" / "__init__.py").write_text("", encoding="utf-8")
    (proj / "src" / "vendor" / "helper.py").write_text(HELPER, encoding="utf-8")
    (proj / "src" / "sub.py").write_text(SUB, encoding="utf-8")
    (proj / "other" / "tool.py").write_text(TOOL, encoding="utf-8")
    (proj / "scripts" / "run.py").write_text(RUN, encoding="utf-8")
    return proj, fake


def _traced(proj: Path) -> set[str]:
    lines = (proj / "tensorshape-trace.jsonl").read_text(encoding="utf-8").splitlines()
    return {os.path.relpath(json.loads(line)["file"], os.path.realpath(proj)) for line in lines}


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project, configured, as the current folder, its programs finding the tiny ``torch``."""
    proj, fake = _project(tmp_path)
    (proj / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    monkeypatch.chdir(proj)
    monkeypatch.setenv("PYTHONPATH", str(fake))
    monkeypatch.setenv("FAKE_TORCH", str(fake))
    return proj


@pytest.mark.parametrize("exe", _interpreters())
def test_the_configured_include_and_exclude_choose_what_is_traced_and_written(proj: Path, exe: str) -> None:
    """On every interpreter found (``sys.setprofile`` below 3.12, ``sys.monitoring`` from 3.12)."""
    # sub.py's child runs in a subprocess and is included (traced); tool.py's, outside the roots, is not
    code = main(["annotate", "--trace", "--write", "--", exe, "scripts/run.py"])
    assert code == 0
    assert _traced(proj) == {"src/model.py", "src/sub.py", "scripts/run.py"}
    assert 'def double(x: Float[Tensor, "batch 4"]) -> Float[Tensor, "batch 8"]:' in (proj / "src/model.py").read_text()
    assert 'def child(x: Float[Tensor, "5 6"])' in (proj / "src/sub.py").read_text()
    # excluded files, by folder and by a glob of the name, get no annotation
    assert (proj / "src/vendor/helper.py").read_text() == HELPER
    assert (proj / "src/gen_table.py").read_text() == HELPER.replace("helper", "table")
    assert (proj / "other/tool.py").read_text() == TOOL


def test_the_command_line_overrides_the_include_and_adds_excludes(
    proj: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --include replaces the configured include: only other/ (a subprocess) and the vendor folder,
    # which the configuration still excludes
    code = main(
        ["annotate", "--trace", "--include", "other", "--include", "src/vendor", "--", sys.executable, "scripts/run.py"]
    )
    assert code == 0
    assert _traced(proj) == {"other/tool.py"}
    assert 'def tool(x: Float[Tensor, "batch 3"])' in capsys.readouterr().out
    # a saved trace is filtered too: the whole project traced, then sub.py left out when applied
    (proj / "pyproject.toml").unlink()
    assert main(["annotate", "--trace", "--", sys.executable, "scripts/run.py"]) == 0
    assert {"src/model.py", "src/sub.py", "other/tool.py", "src/vendor/helper.py"} <= _traced(proj)
    capsys.readouterr()
    assert (
        main(["annotate", "--from-trace", "tensorshape-trace.jsonl", "--exclude", "src/sub.py", "--exclude", "other"])
        == 0
    )
    diff = capsys.readouterr().out
    assert "b/src/model.py" in diff and "b/src/vendor/helper.py" in diff
    assert "sub.py" not in diff and "tool.py" not in diff


def test_an_invalid_annotate_table_is_a_configuration_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.tensorshape.annotate]\nincludes = ['src']\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["annotate", "--from-trace", "t.jsonl"]) == 2
    assert "unknown [tool.tensorshape.annotate] keys: includes" in capsys.readouterr().err
    (tmp_path / "pyproject.toml").write_text("[tool.tensorshape.annotate]\nexclude = 3\n", encoding="utf-8")
    assert main(["annotate", "--from-trace", "t.jsonl"]) == 2
    assert "[tool.tensorshape.annotate] exclude must be a list of strings" in capsys.readouterr().err


def test_patterns_match_folders_globs_and_names(tmp_path: Path) -> None:
    root = str(tmp_path)
    real = os.path.realpath(root)
    src = resolve_pattern("src", root)
    assert src == os.path.join(real, "src")
    assert matches(os.path.join(real, "src", "a", "m.py"), [src])
    assert not matches(os.path.join(real, "srcx", "m.py"), [src])  # a folder, not a prefix of a name
    glob = resolve_pattern("models/*_net.py", root)
    assert matches(os.path.join(real, "models", "conv_net.py"), [glob])
    assert not matches(os.path.join(real, "models", "conv.py"), [glob])
    tree = resolve_pattern("pkg/*/tests", root)  # a glob of folders: the files under them
    assert matches(os.path.join(real, "pkg", "a", "tests", "t.py"), [tree])
    name = resolve_pattern("test_*.py", root)  # no folder: the file's name, anywhere
    assert name == "test_*.py"
    assert matches(os.path.join(real, "deep", "test_x.py"), [name])
    assert not matches(os.path.join(real, "deep", "x_test.py"), [name])


def test_the_annotate_table_is_read_with_the_rest_of_the_configuration(proj: Path) -> None:
    from tensorshape.cli.config import load_config

    cfg = load_config(None, proj)
    assert cfg.annotate_include == ["src", "scripts/*.py"]
    assert cfg.annotate_exclude == ["src/vendor", "gen_*.py"]
    assert main(["check", "src/model.py"]) == 0  # `check` reads the same file and accepts the table


POOL = """def pool(feats):
    b, n, c = feats.shape
    return feats.sum(1) / n
"""


def test_proposals_without_a_trace_leave_the_excluded_files_of_a_folder_alone(
    proj: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (proj / "src" / "head.py").write_text(POOL, encoding="utf-8")
    (proj / "src" / "vendor" / "head.py").write_text(POOL, encoding="utf-8")
    assert main(["annotate", "src"]) == 0
    diff = capsys.readouterr().out
    assert "b/src/head.py" in diff and 'def pool(feats: Shaped[Tensor, "b n c"])' in diff
    assert "vendor" not in diff  # the configuration excludes src/vendor
    assert main(["annotate", "src/vendor/head.py"]) == 0  # a file named is always done
    assert "b/src/vendor/head.py" in capsys.readouterr().out
