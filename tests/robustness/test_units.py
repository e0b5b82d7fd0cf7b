"""The pieces that keep hostile input bounded, tested in process."""

from __future__ import annotations

import io
import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from tensorshape.cli import runner
from tensorshape.cli.config import ConfigError, check_settings, load_config
from tensorshape.cli.serialize import dump_result, load_result
from tensorshape.infer.api import CheckSettings, FileResult, check_source
from tensorshape.infer.deadline import DEFAULT_FILE_TIMEOUT
from tensorshape.infer.nesting import MAX_DEPTH, scan_nesting
from tensorshape.infer.project import parse_source
from tensorshape.lsp.framing import SafeReader
from tensorshape.model import codes
from tensorshape.model.diagnostics import Severity
from tensorshape.model.dims import Unknown, UnknownSource
from tensorshape.report.summary import summarize
from tensorshape.unify import arith

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    "src",
    [
        "x = 1" + " and 1" * 300,
        "x = " + "f(" * 150 + ")" * 150,
        "x = a" + ".b" * 300,
        "x = " + "-" * 300 + "1",
        "x = " + "lambda: " * 300 + "1",
        "x = (" + "'a'\n" * 600 + ")",
        "x = f" + "()" * 300,
    ],
)
def test_deep_text_is_found_before_parsing(src: str) -> None:
    deep = scan_nesting(src)
    assert deep is not None and deep.line >= 1
    tree, failure = parse_source(src)
    assert tree is None and failure is not None and failure.skipped


@pytest.mark.parametrize("path", sorted(EXAMPLES.rglob("*.py")), ids=lambda p: p.name)
def test_real_code_is_not_too_deep(path: Path) -> None:
    assert scan_nesting(path.read_text(encoding="utf-8")) is None


def test_flat_sequences_and_strings_do_not_count() -> None:
    many = "x = [" + ", ".join(f"a.b{i} + c" for i in range(20_000)) + "]\n"
    assert scan_nesting(many) is None
    quoted = "s = '" + "(" * 500 + "'\nt = '''" + "[[[" * 500 + "'''\n# " + "{" * 500 + "\n"
    assert scan_nesting(quoted) is None
    assert scan_nesting("x = a" + " + b" * (MAX_DEPTH - 5)) is None
    assert scan_nesting("table = (" + "'\\x00'\n" * 256 + ")") is None  # a byte table, as in real code
    assert scan_nesting("p = " + " + ".join("3*a**2*b*c**4" for _ in range(150))) is None


def test_skipped_file_is_a_warning_counted_in_statistics() -> None:
    r = check_source("x = 1" + " and 1" * 8000 + "\n")
    assert [d.code for d in r.diagnostics] == [codes.FILE_SKIPPED]
    assert r.stats["skipped-files"] == 1
    invalid = check_source("x = (" * 300 + "\n")
    assert [d.code for d in invalid.diagnostics] == [codes.SYNTAX_ERROR]


def test_int_arithmetic_is_bounded() -> None:
    too = Unknown(UnknownSource.TOO_COMPLEX)
    assert arith.dpow(10, 10**10) == too
    assert arith.dpow(2, 2**16) == too
    assert arith.dpow(2, 10) == 1024
    assert arith.dpow(1, 10**50) == 1 and arith.dpow(-1, 10**50 + 1) == -1
    assert arith.mul(2**200, 2**200) == too
    r = check_source("import torch\nn = 10**10**10\nx = torch.zeros(n)\ny = [x] * 10**9\nz = torch.zeros(10**5000)\n")
    assert r.errors == []


def test_diamond_ladder_lookup_is_linear() -> None:
    lines = ["class A0:\n    def h(self): return 1"]
    for i in range(1, 60):
        lines.append(f"class B{i}(A{i - 1}): pass\nclass C{i}(A{i - 1}): pass\nclass A{i}(B{i}, C{i}): pass")
    lines.append("x = A59().h()\nreveal_shape(x)")
    r = check_source("\n".join(lines) + "\n")
    assert not [d for d in r.diagnostics if d.code is codes.INTERNAL_ERROR]


def test_cache_entry_of_wrong_types_is_rejected() -> None:
    good = dump_result(FileResult("m.py", [], stats={"known": 1}))
    assert load_result(json.loads(json.dumps(good))).stats == {"known": 1}
    for bad in (
        [],
        None,
        {**good, "stats": ["x"]},
        {**good, "stats": {"known": "1"}},
        {**good, "diagnostics": [{"code": 5, "span": "x"}]},
        {**good, "dependencies": [[1, 2]]},
    ):
        with pytest.raises(ValueError):
            load_result(bad)  # type: ignore[arg-type]


def _frames(data: bytes) -> tuple[list[Any], list[Any]]:
    """Messages handed to pygls, and replies sent by the reader itself."""
    replies: list[Any] = []
    reader = SafeReader(
        io.BytesIO(data), None, lambda d: d, lambda b: replies.append(json.loads(b.split(b"\r\n\r\n", 1)[1]))
    )
    got = []
    while True:
        header = reader._readline()
        if not header:
            break
        assert reader._readline() == b"\r\n"
        got.append(json.loads(reader._take()))
    return got, replies


def _frame(obj: object) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_lsp_reader_recovers_at_the_next_frame() -> None:
    ping = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    noise = [
        b"\x00\xff garbage\r\n\r\n",
        b"Content-Length: abc\r\n\r\n{}",
        b"Content-Type: x\r\n\r\n{}",
        b'Content-Length: 5\r\n\r\n{"jsonrpc":"2.0"}',
    ]
    for junk in noise:
        got, _ = _frames(junk + _frame(ping))
        assert got == [ping], junk


def test_lsp_reader_answers_what_it_drops() -> None:
    got, replies = _frames(b"Content-Length: 5\r\n\r\n{{{{{" + _frame([1, 2]) + _frame({"jsonrpc": "2.0", "id": "q"}))
    assert [r["error"]["code"] for r in replies] == [-32700, -32600]
    assert got == [{"jsonrpc": "2.0", "id": "q"}]  # a response: pygls's to match
    got, _ = _frames(b"Content-Length: 99999999999\r\n\r\n{}" + _frame({"jsonrpc": "2.0", "method": "x"}))
    assert got == []  # cannot be skipped safely: the stream ends (the server exits)


def test_lsp_reader_answers_bad_params() -> None:
    def validate(d: dict[str, Any]) -> dict[str, Any]:
        if d.get("method") == "textDocument/hover" and "position" not in d.get("params", {}):
            raise ValueError("position")
        return d

    replies: list[Any] = []
    msg = {"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {}}
    reader = SafeReader(io.BytesIO(_frame(msg)), None, validate, lambda b: replies.append(b))
    assert reader._readline() == b""
    assert json.loads(replies[0].split(b"\r\n\r\n", 1)[1])["error"]["code"] == -32602


def _dies_on_boom(path: str, settings: CheckSettings | None = None, project: object = None) -> FileResult:
    if path.endswith("boom.py"):
        os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer or a native crash would
    return FileResult(path, [])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the pool test patches the worker by forking")
def test_a_dying_worker_does_not_hang_the_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "check_file_guarded", _dies_on_boom)
    files = []
    for k in range(10):
        (tmp_path / f"m{k}.py").write_text("x = 1\n")
        files.append(tmp_path / f"m{k}.py")
    (tmp_path / "boom.py").write_text("x = 1\n")
    files.append(tmp_path / "boom.py")
    results = runner.run_check(files, CheckSettings(), jobs=2)
    by_path = {r.path: r for r in results}
    assert [d.code for d in by_path[str(tmp_path / "boom.py")].diagnostics] == [codes.INTERNAL_ERROR]
    assert all(not by_path[str(f)].diagnostics for f in files[:-1])


def test_juxtaposed_strings_libcst_rejects_are_skipped_not_a_syntax_error() -> None:
    # Valid Python (CPython compiles it); libcst nests each juxtaposition and cannot parse it.
    src = "x = " + " ".join(['"a"'] * 100_000) + "\n"
    compile(src, "m.py", "exec")
    r = check_source(src)
    assert [(d.code, d.severity) for d in r.diagnostics] == [(codes.FILE_SKIPPED, Severity.WARNING)]
    assert "strings concatenated" in r.diagnostics[0].message
    assert r.stats["skipped-files"] == 1


@pytest.mark.parametrize("jobs", [1, 2])
def test_file_past_its_time_bound_is_skipped_and_the_run_goes_on(tmp_path: Path, jobs: int) -> None:
    (tmp_path / "slow.py").write_text(
        "import torch\n" + "".join(f"x{k} = torch.zeros({k} + 1, 3)\n" for k in range(300))
    )
    (tmp_path / "ok.py").write_text("x = 1\n")
    files = [tmp_path / "slow.py", tmp_path / "ok.py"]
    results = {r.path: r for r in runner.run_check(files, CheckSettings(file_timeout=1e-9), jobs=jobs)}
    slow = results[str(files[0])]
    assert [(d.code, d.severity) for d in slow.diagnostics] == [(codes.FILE_SKIPPED, Severity.WARNING)]
    assert "file_timeout" in slow.diagnostics[0].message
    assert slow.stats == {"skipped-files": 1, "timed-out-files": 1}
    assert results[str(files[1])].diagnostics == []
    assert summarize(list(results.values()))["timed_out_files"] == 1
    # Without the bound the same file is analysed.
    assert runner.run_check(files[:1], CheckSettings(file_timeout=0), jobs=1)[0].diagnostics == []


@pytest.mark.parametrize("value", ["'60'", "-1", "true", "inf"])
def test_file_timeout_config_must_be_seconds(tmp_path: Path, value: str) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.tensorshape]\nfile_timeout = {value}\n")
    with pytest.raises(ConfigError, match="file_timeout"):
        load_config(tmp_path / "pyproject.toml")


def test_file_timeout_config_reaches_the_settings(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.tensorshape]\nfile_timeout = 5\n")
    assert check_settings(load_config(tmp_path / "pyproject.toml")).file_timeout == 5.0
    assert CheckSettings().file_timeout == DEFAULT_FILE_TIMEOUT
