"""``tensorshape check``: formats, exit codes, configuration, suppressions, cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tensorshape.cli.main import main

BUG = textwrap.dedent(
    """\
    import torch
    x = torch.randn(3, 4)
    y = x @ torch.randn(5, 6)
    """
)
CLEAN = "import torch\nx = torch.randn(3, 4) @ torch.randn(4, 2)\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "bug.py").write_text(BUG)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_text_output_with_code_frame(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "bug.py", "--color", "never")
    assert code == 1
    assert "bug.py:3:9: error: matmul: cannot multiply [3 4] by [5 6]" in out
    assert "3 | y = x @ torch.randn(5, 6)" in out
    assert "^^^^^" in out and "= hint:" in out
    assert out.endswith("\n\nFound 1 error in 1 file (checked 1 source file)\n")


def test_summary_reads_like_mypy(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "check", "clean.py")
    assert out == "Success: no issues found in 1 source file\n"
    (project / "bug2.py").write_text(BUG + "z = torch.randn(2, 3) @ torch.randn(4, 5)\n")
    _, out, _ = run(capsys, "check", ".")
    assert out.endswith("\nFound 3 errors in 2 files (checked 3 source files)\n")


def test_exit_codes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "check", "clean.py")[0] == 0
    assert run(capsys, "check", "bug.py")[0] == 1
    assert run(capsys, "check", "missing.py")[0] == 2
    with pytest.raises(SystemExit) as e:
        main(["check", "--format", "yaml"])
    assert e.value.code == 2


def test_json_format(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", ".", "--format", "json")
    data = json.loads(out)
    assert data["version"] == 1
    (d,) = data["diagnostics"]
    assert {k: d[k] for k in ("line", "column", "end_line", "end_column", "code", "severity")} == {
        "line": 3,
        "column": 9,
        "end_line": 3,
        "end_column": 26,
        "code": "TS101",
        "severity": "error",
    }
    assert d["path"].endswith("bug.py") and d["message"] and d["hint"]
    assert data["summary"]["files"] == 2 and data["summary"]["errors"] == 1


def test_github_format(project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    _, out, _ = run(capsys, "check", "bug.py", "--format", "github")
    assert out.startswith("::error file=bug.py,line=3,col=9,endLine=3,endColumn=26,title=TS101 shape-mismatch::matmul")


def test_github_annotation_paths_are_relative_to_the_repository(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from a sub-folder (a monorepo's package): GitHub matches annotations by repository path."""
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    (project / ".git").mkdir()
    pkg = project / "pkg"
    pkg.mkdir()
    (pkg / "bug.py").write_text(BUG)
    monkeypatch.chdir(pkg)
    _, out, _ = run(capsys, "check", "bug.py", "--format", "github")
    assert out.startswith("::error file=pkg/bug.py,line=3,")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(project))
    (project / ".git").rmdir()
    _, out, _ = run(capsys, "check", "bug.py", "--format", "github")
    assert out.startswith("::error file=pkg/bug.py,line=3,")


def test_sarif_format_basics(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "check", "bug.py", "--format", "sarif")
    doc = json.loads(out)
    assert doc["version"] == "2.1.0"
    run_ = doc["runs"][0]
    rules = {r["id"] for r in run_["tool"]["driver"]["rules"]}
    (res,) = run_["results"]
    assert res["ruleId"] == "TS101" and res["ruleId"] in rules
    loc = res["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "bug.py", "uriBaseId": "%SRCROOT%"}
    assert loc["region"]["startLine"] == 3 and loc["region"]["startColumn"] == 9
    assert res["partialFingerprints"]["primaryLocationLineHash"]


def test_config_severity_paths_and_excludes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "sub").mkdir()
    (project / "sub" / "other.py").write_text(BUG)
    (project / "pyproject.toml").write_text(
        textwrap.dedent(
            """\
            [tool.tensorshape]
            paths = ["."]
            exclude = ["sub/*"]
            severity = { "shape-mismatch" = "warning" }
            """
        )
    )
    code, out, _ = run(capsys, "check", "--format", "json")
    data = json.loads(out)
    assert code == 0, "a warning does not fail the run"
    assert [(d["path"].endswith("bug.py"), d["severity"]) for d in data["diagnostics"]] == [(True, "warning")]


def test_bad_config_is_a_usage_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "pyproject.toml").write_text("[tool.tensorshape]\nseverity = { TS999 = 'error' }\n")
    code, _, err = run(capsys, "check", "bug.py")
    assert code == 2 and "TS005" in err and "TS999" in err
    (project / "pyproject.toml").write_text("[tool.tensorshape]\nfrobnicate = 1\n")
    code, _, err = run(capsys, "check", "bug.py")
    assert code == 2 and "frobnicate" in err


def test_disable_flag_and_suppression_comment(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "check", "bug.py", "--disable", "TS101")[0] == 0
    (project / "bug.py").write_text(BUG.replace("(5, 6)\n", "(5, 6)  # tensorshape: ignore[shape-mismatch]\n"))
    assert run(capsys, "check", "bug.py")[0] == 0


def test_type_ignore_comment_and_bare_type_ignore_setting(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "bug.py").write_text(BUG.replace("(5, 6)\n", "(5, 6)  # type: ignore[TS101]\n"))
    assert run(capsys, "check", "bug.py")[0] == 0
    (project / "bug.py").write_text(BUG.replace("(5, 6)\n", "(5, 6)  # type: ignore\n"))
    assert run(capsys, "check", "bug.py")[0] == 1
    (project / "pyproject.toml").write_text("[tool.tensorshape]\nbare_type_ignore = true\n")
    assert run(capsys, "check", "bug.py")[0] == 0  # the setting is part of the cache key


def test_statistics(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "check", "clean.py", "--statistics")
    assert "Tensor expressions:" in out and "fully known" in out


UNMODELLED = """\
import torch


def f(x: torch.Tensor):
    a = torch.special.xlog1py(x, x)
    b = torch.special.xlog1py(a, a)
    return x.frobnicate() + b
"""


def test_statistics_rank_unmodelled_ops_and_unknown_causes(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Torch functions and methods without a rule are listed most frequent first, and the causes of
    unknown shapes, each with the first place it was met; the JSON summary has the same, and a
    cached result keeps the examples."""
    (project / "odd.py").write_text(UNMODELLED)
    _, out, _ = run(capsys, "check", "odd.py", "--statistics")
    ops = out.split("without a rule (most frequent first):\n", 1)[1].splitlines()
    assert ops[0].split() == ["2", "torch.special.xlog1py", "e.g.", "odd.py:5:9"]
    assert ops[1].split() == ["1", "Tensor.frobnicate", "e.g.", "odd.py:7:12"]
    assert "Top causes of unknown shapes:" in out and "3  annotated  e.g. odd.py:5:31" in out
    for _ in range(2):  # the second run reads the cache
        data = json.loads(run(capsys, "check", "odd.py", "--format", "json")[1])["summary"]
        assert list(data["unmodelled_ops"]) == ["torch.special.xlog1py", "Tensor.frobnicate"]
        assert data["unmodelled_ops"]["Tensor.frobnicate"] == {"count": 1, "example": "odd.py:7:12"}
        assert data["unknown_causes"]["annotated"] == {"count": 3, "example": "odd.py:5:31"}


def test_syntax_error_and_undecodable_files(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "broken.py").write_text("def f(:\n    pass\n")
    (project / "latin.py").write_bytes(b"# -*- coding: utf-8 -*-\nx = '\xff\xfe'\n")
    code, out, _ = run(capsys, "check", "broken.py", "latin.py", "--format", "json")
    data = json.loads(out)
    got = sorted((Path(d["path"]).name, d["code"], d["line"]) for d in data["diagnostics"])
    assert got == [("broken.py", "TS003", 1), ("latin.py", "TS003", 2)]  # the undecodable byte's line
    assert code == 1


def test_cache_hits_and_invalidation(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "lib.py").write_text("import torch\ndef make():\n    return torch.zeros(3, 4)\n")
    (project / "use.py").write_text("import torch\nfrom lib import make\ny = make() @ torch.randn(4, 2)\n")
    assert run(capsys, "check", "use.py", "lib.py")[0] == 0
    entries = list((project / "cache" / "tensorshape").rglob("*.json"))
    assert len(entries) == 2
    before = {p: p.stat().st_mtime_ns for p in entries}
    assert run(capsys, "check", "use.py", "lib.py")[0] == 0
    assert {p: p.stat().st_mtime_ns for p in entries} == before, "a warm run reads the cache and writes nothing"
    # Changing a dependency invalidates the dependent file's entry.
    (project / "lib.py").write_text("import torch\ndef make():\n    return torch.zeros(3, 5)\n")
    code, out, _ = run(capsys, "check", "use.py", "lib.py", "--format", "json")
    assert code == 1 and json.loads(out)["diagnostics"][0]["path"].endswith("use.py")
    assert run(capsys, "check", "use.py", "lib.py", "--no-cache")[0] == 1


def test_cache_dir_flag_and_no_cache(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "check", "clean.py", "--cache-dir", str(project / "c2"))
    assert list((project / "c2").rglob("*.json"))
    run(capsys, "check", "bug.py", "--no-cache", "--cache-dir", str(project / "c3"))
    assert not (project / "c3").exists()


def test_parallel_run_matches_serial(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(12):
        (project / f"m{i}.py").write_text(BUG if i % 3 == 0 else CLEAN)
    _, serial, _ = run(capsys, "check", ".", "--format", "json", "--no-cache", "-j", "1")
    _, parallel, _ = run(capsys, "check", ".", "--format", "json", "--no-cache", "-j", "2")
    assert json.loads(serial)["diagnostics"] == json.loads(parallel)["diagnostics"]
    assert len(json.loads(serial)["diagnostics"]) == 5


def test_no_progress_bar_when_piped(project: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(project / "cache")}
    proc = subprocess.run(
        [sys.executable, "-m", "tensorshape.cli.main", "check", "bug.py"],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 1
    assert "\r" not in proc.stderr and "[#" not in proc.stderr


def test_codes_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "codes")
    assert code == 0 and "TS101  shape-mismatch" in out


def test_shard_summaries_add_ranked_causes() -> None:
    """Shards' ranked maps add up: counts summed, the first shard's example kept, re-ranked."""
    from tensorshape.report.summary import add_summaries

    a = {
        "unmodelled_ops": {
            "torch.a": {"count": 1, "example": "x.py:1:1"},
            "torch.b": {"count": 2, "example": "x.py:2:1"},
        }
    }
    b = {"unmodelled_ops": {"torch.a": {"count": 3, "example": "y.py:5:1"}}}
    got = add_summaries([a, b])["unmodelled_ops"]
    assert list(got.items()) == [
        ("torch.a", {"count": 4, "example": "x.py:1:1"}),
        ("torch.b", {"count": 2, "example": "x.py:2:1"}),
    ]
