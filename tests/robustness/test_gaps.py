"""Issue 17's examples that no other test named: exit status 2 for a run with only internal
errors (item 7), a closed standard output (item 7), the language server freeing a closed
document's memory and skipping a huge one (item 6), and nested powers in specs (item 4)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from tensorshape.cli import runner
from tensorshape.cli.main import main
from tensorshape.infer.api import CheckSettings, FileResult, check_source, crash_result
from tensorshape.model import codes


def _internal(path: str, settings: CheckSettings | None = None, project: object = None) -> FileResult:
    return crash_result(str(path), "ValueError: boom")


def test_a_run_with_only_internal_errors_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "m.py").write_text("import torch\nx = torch.zeros(2)\n")
    monkeypatch.setattr(runner, "check_file_guarded", _internal)
    assert main(["check", "--no-cache", "-j", "1", str(tmp_path / "m.py")]) == 2


def test_an_internal_error_beside_a_shape_error_exits_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bad.py").write_text("import torch\nx = torch.zeros(2, 3) @ torch.zeros(4, 5)\n")
    (tmp_path / "boom.py").write_text("x = 1\n")
    real = runner.check_file_guarded

    def some(path: str, settings: CheckSettings, project: Any) -> FileResult:
        return _internal(path) if path.endswith("boom.py") else real(path, settings, project)

    monkeypatch.setattr(runner, "check_file_guarded", some)
    assert main(["check", "--no-cache", "-j", "1", str(tmp_path)]) == 1


def test_a_closed_standard_output_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")
    run = "import sys, os; os.close(1); from tensorshape.cli.main import main; sys.exit(main(sys.argv[1:]))"
    out = subprocess.run(
        [sys.executable, "-c", run, "check", "--no-cache", str(tmp_path / "m.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert out.stderr.count("\n") == 1 and "cannot write" in out.stderr, out.stderr


def _server(monkeypatch: pytest.MonkeyPatch, docs: dict[str, Any]) -> tuple[Any, list[Any]]:
    from tensorshape.lsp import server as srv

    ls = srv.build_server()
    published: list[Any] = []
    monkeypatch.setattr(ls, "text_document_publish_diagnostics", published.append)
    # As pygls's workspace: a document not open is read from disk (none here: empty, no version).
    missing = SimpleNamespace(source="", version=None)
    workspace = SimpleNamespace(get_text_document=lambda u: docs.get(u, missing), text_documents=docs)
    monkeypatch.setattr(ls.protocol, "_workspace", workspace)
    return ls, published


SOURCE = "import torch\nx = torch.zeros(2, 3)\ny = x + 1\n"


def test_language_server_frees_a_closed_document(monkeypatch: pytest.MonkeyPatch) -> None:
    from lsprotocol import types as lsp
    from tensorshape.lsp import server as srv

    uri = "file:///tmp/closed.py"
    ls, published = _server(monkeypatch, {uri: SimpleNamespace(source=SOURCE, version=1)})
    asyncio.run(srv._run(ls, uri, 0))
    assert uri in ls.analyses and uri in ls.incremental
    close = ls.protocol.fm.features[lsp.TEXT_DOCUMENT_DID_CLOSE]
    close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=uri)))
    assert uri not in ls.analyses and uri not in ls.incremental and uri not in ls.pending
    assert published[-1].uri == uri and published[-1].diagnostics == []


def test_language_server_forgets_a_document_closed_while_it_was_analysed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The analysis runs in a thread: a document closed meanwhile must not be stored again by it."""
    from lsprotocol import types as lsp
    from tensorshape.lsp import server as srv

    uri = "file:///tmp/closing.py"
    docs = {uri: SimpleNamespace(source=SOURCE, version=1)}
    ls, _ = _server(monkeypatch, docs)
    close = ls.protocol.fm.features[lsp.TEXT_DOCUMENT_DID_CLOSE]
    real = srv._analyse_locked

    def close_meanwhile(ls: Any, u: str, source: str, version: int | None) -> Any:
        close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=u)))
        del docs[u]  # as pygls's workspace does on didClose
        return real(ls, u, source, version)

    monkeypatch.setattr(srv, "_analyse_locked", close_meanwhile)
    asyncio.run(srv._run(ls, uri, 0))
    assert uri not in ls.analyses and uri not in ls.incremental


def test_language_server_skips_a_huge_document_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from tensorshape.lsp import server as srv

    uri = "file:///tmp/huge.py"
    huge = SOURCE + "z = 1\n" * (srv.MAX_DOCUMENT // 6 + 1)
    ls, published = _server(monkeypatch, {uri: SimpleNamespace(source=huge, version=2)})
    asyncio.run(srv._run(ls, uri, 0))
    (params,) = published
    (d,) = params.diagnostics
    assert d.code == codes.FILE_SKIPPED.id and "the editor limit is" in d.message
    assert uri not in ls.analyses and uri not in ls.incremental


SPEC = """import torch
from jaxtyping import Float
from torch import Tensor


def f(x: Float[Tensor, "{spec}"]) -> None:
    y = x + torch.zeros(5)
"""


def test_a_tower_of_powers_in_a_spec_is_too_complex_not_an_error() -> None:
    r = check_source(SPEC.format(spec="2**2**2**2**2**2"))
    assert r.diagnostics == []
    assert r.stats["unknown:too-complex"] >= 1
    # Under the bound a power in a spec is exact: 2**3 = 8 does not broadcast with 5.
    small = check_source(SPEC.format(spec="2**3"))
    assert [d.code for d in small.diagnostics] == [codes.BROADCAST] and "8" in small.diagnostics[0].message


def test_a_power_of_a_long_sum_is_not_expanded() -> None:
    from tensorshape.unify import arith
    from tensorshape.unify.symbols import sp

    a, b, c = sp().symbols("a b c")
    assert arith.expand_bounded((a + b) ** 2) == a**2 + 2 * a * b + b**2
    assert arith.expansion_terms((a + b + c) ** 3) == 10  # the bound is exact for a multinomial
    assert arith.expansion_terms((a + b + c) ** 40) == 861  # under the bound of 2,000: expanded
    assert arith.expand_bounded((a + b + c) ** 70) is None  # 2,556 terms: not
    terms = "+".join("abcdefgh")
    src = "import torch\n\n\ndef f(a: int, b: int, c: int, d: int, e: int, f: int, g: int, h: int):\n"
    src += f"    x = torch.zeros(({terms})**30)\n    y = x.reshape(-1, 2)\n    z = x + torch.zeros(3, 4)\n"
    # The sum may be 1 or 4 (torch accepts both): no error, the comparison an undecided obligation
    # (it expanded ten million terms and did not end before).
    r = check_source(src, settings=CheckSettings(obligations=True))
    assert r.diagnostics == []
    assert r.obligations


POWER = """import torch


def f(a: int, b: int, c: int, d: int, e: int, f: int, g: int, h: int):
    x = torch.zeros((a+b+c+d+e+f+g+h)**30)
    return x + torch.zeros(3, 4)
"""


def test_an_expansion_past_the_bound_is_counted_in_statistics_and_json(tmp_path: Path) -> None:
    """The comparison of ``(a+...+h)**30`` with a size is left undecided, and says so (issue 17 item 1:
    nothing may go silent)."""
    first = check_source(POWER)
    assert first.diagnostics == []
    assert first.stats["expansion-bound"] >= 1
    # The answers are cached in the process; a second check counts the same bounds again.
    assert check_source(POWER).stats["expansion-bound"] == first.stats["expansion-bound"]
    # A file under the bound counts none.
    assert "expansion-bound" not in check_source(POWER.replace("**30", "**3")).stats
    (tmp_path / "m.py").write_text(POWER, encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-m", "tensorshape.cli.main", "check", "--no-cache", "-j", "1", "--statistics", "m.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Expansions past the term bound (left undecided): " in out.stdout, out.stdout + out.stderr
    js = subprocess.run(
        [sys.executable, "-m", "tensorshape.cli.main", "check", "--no-cache", "-j", "1", "--format", "json", "m.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert json.loads(js.stdout)["summary"]["expansions_at_bound"] == first.stats["expansion-bound"]


def test_joins_divisions_and_asserts_of_huge_powers_are_bounded() -> None:
    """Each used to expand ten million terms (a hang): a join of two branches, a division by a
    symbol, an asserted equality; each now gives up, counted, and the analysis goes on."""
    args = "a: int, b: int, c: int, d: int, e: int, f: int, g: int, h: int"
    big, other = "(a+b+c+d+e+f+g+h)**30", "(a+b+c+d+e+f+g)**30"
    bodies = {
        "join": f"    if a:\n        x = torch.zeros({big})\n    else:\n        x = torch.zeros({other})\n",
        "division": f"    x = torch.zeros({big} // h)\n    y = x.view(-1, h)\n",
        "assert": f"    assert {big} == {other}\n    x = torch.zeros(a)\n",
    }
    for what, body in bodies.items():
        r = check_source(f"import torch\n\n\ndef f({args}):\n{body}    return x @ torch.zeros(3, 3)\n")
        assert r.stats.get("expansion-bound", 0) >= 1, what
        assert not any(d.code is codes.INTERNAL_ERROR for d in r.diagnostics), (what, r.diagnostics)


def test_a_cache_that_cannot_be_written_is_said_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A cache folder that is a file (or read-only, or on a full disk): the run goes on and says, once,
    that its results were not cached (it was silent)."""
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("import torch\nx = torch.zeros(2, 3) @ torch.zeros(4, 5)\n")
    (tmp_path / "cache").write_text("")
    assert main(["check", "-j", "1", "--cache-dir", str(tmp_path / "cache"), str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert out.count("TS101") == 2
    assert err.count("warning: results not cached") == 1 and "Not a directory" in err
    (tmp_path / "cache").unlink()
    assert main(["check", "-j", "1", "--cache-dir", str(tmp_path / "cache"), str(tmp_path)]) == 1
    assert "not cached" not in capsys.readouterr().err


def test_a_file_changed_during_the_run_is_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cache looks at a file before the analysis reads it: an edit in between made the result of
    the new text the cached result of the old one (an edit undone later got the stale result)."""
    path = tmp_path / "m.py"
    old = "import torch\nx = torch.zeros(2, 3) @ torch.zeros(4, 5)\n"
    new = "import torch\nx = torch.zeros(2, 3) @ torch.zeros(3, 5)\n"
    path.write_text(old)
    real = runner.check_file_guarded

    def edited(p: str, settings: CheckSettings, project: Any) -> FileResult:
        path.write_text(new)  # the user saves while the run is going
        return real(p, settings, project)

    monkeypatch.setattr(runner, "check_file_guarded", edited)
    cache = str(tmp_path / "cache")
    assert main(["check", "-j", "1", "--cache-dir", cache, str(path)]) == 0  # the text it read is fine
    assert "m.py changed during the run; its result is not cached" in capsys.readouterr().err
    monkeypatch.setattr(runner, "check_file_guarded", real)
    path.write_text(old)  # undone: the old text's own result, not the new one's
    assert main(["check", "-j", "1", "--cache-dir", cache, str(path)]) == 1
    assert "TS101" in capsys.readouterr().out


def test_annotate_with_nothing_to_propose_only_parses(monkeypatch: pytest.MonkeyPatch) -> None:
    """``annotate`` of a file it proposes nothing for resolved libcst's metadata over every function
    twice (its functions' extents, its annotation sites): minutes for a 100,000-line file, counted as
    a hang by the robustness run.  Now the text is only checked, parsed and given back."""
    from tensorshape.annotate import codemod, static

    def never(*args: object) -> None:
        raise AssertionError("a metadata pass for nothing to write")

    monkeypatch.setattr(static, "_extents", never)
    monkeypatch.setattr(codemod, "collect_functions", never)
    text = "import torch.nn.functional as F\n" + "".join(
        f"\n\ndef g{i}(x, w):\n    return F.linear(x, w)\n" for i in range(50)
    )
    assert static.annotate_statically(text, "m.py").source == text


def test_function_returns_are_each_top_level_functions_own() -> None:
    """The ``return`` values annotate reads, by a walk of the statements: a method's, one in any block,
    not a nested function's or class's; a name defined again keeps its last definition."""
    import libcst as cst
    from tensorshape.annotate.static import function_returns

    text = (
        "def f():\n    if x: return 1\n    def g():\n        return 2\n    class K:\n"
        "        def m(self): return 3\n    return (lambda: 4)\n"
        "class A:\n    def f(self): return 5\n    class B:\n        def g(self): return\n"
        "if X:\n    def h():\n        for i in y:\n            return 6\n        else:\n            return 7\n"
        "        try:\n            return 8\n        except E:\n            return 9\n"
        "        with a: return 10\n        match q:\n            case 1:\n                return 11\n"
        "def h(): return 12\n"
    )
    module = cst.parse_module(text)
    found = {
        q: [module.code_for_node(e) if e is not None else None for e in values]
        for q, values in function_returns(module).items()
    }
    assert found == {"f": ["1", "(lambda: 4)"], "A.f": ["5"], "A.B.g": [None], "h": ["12"]}
