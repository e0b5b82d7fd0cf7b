"""``check --shard K/N`` and ``merge-reports``: a sharded run gives the diagnostics of a single run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tensorshape.cli.files import collect_files
from tensorshape.cli.main import main
from tensorshape.cli.runner import shard

from tests.expectations import ROOT

COMMON = ["check", "examples", "--no-cache", "-j", "1", "--color", "never"]


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def test_shards_split_by_folder_into_a_partition(at_root: None) -> None:
    files = collect_files(["examples"], ROOT)
    for n in (1, 2, 3, 5):
        parts = [shard(files, k, n) for k in range(1, n + 1)]
        assert sorted(f for p in parts for f in p) == sorted(files)
        assert sum(len(p) for p in parts) == len(files)
        assert parts == [shard(list(files), k, n) for k in range(1, n + 1)]  # the same split every time
    one, two = shard(files, 1, 2), shard(files, 2, 2)
    assert one and two
    folders = [{f.parent for f in p} for p in (one, two)]
    assert not folders[0] & folders[1], "a folder's files stay in one shard"


def test_two_json_shards_merge_into_the_single_run(
    at_root: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, single = _run(capsys, *COMMON, "--format", "json")
    assert code == 1
    reports = []
    for k in (1, 2):
        out = tmp_path / f"shard-{k}.json"
        _run(capsys, *COMMON, "--format", "json", "--shard", f"{k}/2", "-o", str(out))
        reports.append(str(out))
    assert {json.loads(Path(r).read_text())["summary"]["files"] for r in reports} != {21}
    code, merged = _run(capsys, "merge-reports", *reports)
    assert code == 1
    assert json.loads(merged) == json.loads(single)
    _, single_text = _run(capsys, *COMMON)
    code, merged_text = _run(capsys, "merge-reports", *reports, "--format", "text")
    assert merged_text == single_text and single_text.endswith("(checked 21 source files)\n")
    code, annotations = _run(capsys, "merge-reports", *reports, "--format", "github")
    assert code == 1 and annotations.count("::error ") == json.loads(single)["summary"]["errors"]


def test_two_sarif_shards_merge_into_one_run(at_root: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, single = _run(capsys, *COMMON, "--format", "sarif")
    reports = []
    for k in (1, 2):
        out = tmp_path / f"shard-{k}.sarif"
        _run(capsys, *COMMON, "--format", "sarif", "--shard", f"{k}/2", "-o", str(out))
        reports.append(str(out))
    code, merged = _run(capsys, "merge-reports", *reports)
    assert code == 1
    doc, want = json.loads(merged), json.loads(single)
    (run,) = doc["runs"]
    assert run["results"] == want["runs"][0]["results"]
    assert run["tool"] == want["runs"][0]["tool"]


def test_bad_shard_and_bad_reports(at_root: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for spec in ("3/2", "0/2", "1", "a/b"):
        with pytest.raises(SystemExit) as e:
            main(["check", "examples", "--shard", spec])
        assert e.value.code == 2
    capsys.readouterr()
    junk = tmp_path / "junk.json"
    junk.write_text("[1, 2]")
    assert main(["merge-reports", str(junk)]) == 2
    assert "neither a JSON report" in capsys.readouterr().err
    sarif, js = tmp_path / "a.sarif", tmp_path / "a.json"
    sarif.write_text(json.dumps({"runs": []}))
    js.write_text(json.dumps({"version": 1, "diagnostics": [], "summary": {}}))
    assert main(["merge-reports", str(sarif), str(js)]) == 2
    assert main(["merge-reports", str(sarif), "--format", "text"]) == 2
    assert main(["merge-reports", str(js)]) == 0


def test_shards_fill_one_shared_cache_that_a_full_run_reads(
    at_root: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "shared-cache"
    cached = ["check", "examples", "-j", "1", "--color", "never", "--cache-dir", str(shared)]
    for k in (1, 2):
        _run(capsys, *cached, "--shard", f"{k}/2", "--format", "json")
    entries = list(shared.rglob("*.json"))
    assert len(entries) == len(collect_files(["examples"], ROOT))  # one entry per file, from both shards
    stamps = {p: p.stat().st_mtime_ns for p in entries}
    _, warm = _run(capsys, *cached, "--format", "json")
    _, cold = _run(capsys, *COMMON, "--format", "json")
    assert json.loads(warm) == json.loads(cold)
    assert {p: p.stat().st_mtime_ns for p in shared.rglob("*.json")} == stamps, "every result came from the cache"
