"""Size is no denial of service: big files are parsed in pieces, long sequences are bounded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import libcst as cst
import pytest
from tensorshape.infer import project as project_module
from tensorshape.infer.api import check_source
from tensorshape.infer.expressions import MAX_EXACT_ITEMS
from tensorshape.infer.oversized import MAX_STATEMENT_CHARS, OpaqueCode, OpaqueSequence
from tensorshape.infer.project import parse_pieces, parse_source, parse_source_lines
from tensorshape.infer.spans import first_lines
from tensorshape.infer.syntax import code_children
from tensorshape.model import codes
from tensorshape.report.summary import summarize

ROOT = Path(__file__).resolve().parents[2]
BUGS = sorted((ROOT / "examples" / "bugs").glob("*.py"))

TRICKY = '''# header comment
#!/not/a/shebang

"""Docstring."""
import os  # trailing
# between
@dec
# between decorators
@dec2(
  1)
def f():
    x = 1
    # indented, after the body

# at the top level, after a function
class A:
    pass
        # deeper than the body
if x:
    pass
elif y:
    pass
else:
    pass
try:
    pass
except E:
    pass
finally:
    pass
a = 1; b = 2
s = """
x = 1
"""
t = (1,
2)
u = 1 + \\
  2
def g(): return 1
# the end
'''


@pytest.mark.parametrize("variant", ["lf", "crlf", "no-final-newline", "tabs"])
@pytest.mark.parametrize("piece", [1, 40, 300])
def test_pieces_assemble_the_module_a_whole_parse_gives(variant: str, piece: int) -> None:
    src = {
        "lf": TRICKY,
        "crlf": TRICKY.replace("\n", "\r\n"),
        "no-final-newline": TRICKY + "z = 3",
        "tabs": TRICKY.replace("    ", "\t"),
    }[variant]
    whole = cst.parse_module(src)
    got = parse_pieces(src, piece)
    assert got is not None
    module, starts = got
    assert module.code == src  # not a byte lost
    assert module.deep_equals(whole)
    assert starts == first_lines(whole, src)


def test_pieces_that_disagree_on_the_indentation_fall_back_to_a_whole_parse() -> None:
    src = "def f():\n  x = 1\n" * 3 + "def g():\n    y = 2\n" * 3
    assert parse_pieces(src, 1) is None
    tree, failure, first = parse_source_lines(src)
    assert tree is not None and failure is None and tree.code == src


@pytest.mark.parametrize("path", BUGS[:12], ids=lambda p: p.name)
def test_a_file_parsed_in_pieces_gets_the_same_diagnostics(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = path.read_text(encoding="utf-8")
    whole = check_source(src, str(path))
    monkeypatch.setattr(project_module, "PIECES_FROM", 0)
    monkeypatch.setattr(project_module, "PIECE_CHARS", 200)
    pieces = check_source(src, str(path))
    assert [(d.code.id, d.span, d.message) for d in pieces.diagnostics] == [
        (d.code.id, d.span, d.message) for d in whole.diagnostics
    ]


def _cat(n: int, extra: str = "") -> str:
    return "import torch\nx = torch.zeros(2, 3)\ny = torch.cat([" + ", ".join(["x"] * n) + "])\n" + extra


def test_a_long_literal_is_one_bounded_sequence_and_counted() -> None:
    n = MAX_EXACT_ITEMS + 1
    r = check_source(_cat(n, f"z = y + torch.zeros(5, 3)\nw = y + torch.zeros({2 * n}, 4)\n"))
    # Its items are joined, not tracked one by one, but its length is exact: ``y`` is ``[2002 3]``.
    assert [d.code.id for d in r.diagnostics] == [codes.BROADCAST.id, codes.BROADCAST.id]
    assert f"{2 * n} vs 5" in r.diagnostics[0].message and "3 vs 4" in r.diagnostics[1].message
    assert r.stats["expression-bound"] == 1
    assert any(k.startswith("cause:sequence of more than") for k in r.stats)
    assert summarize([r])["expressions_at_bound"] == 1


@pytest.mark.parametrize("n", [MAX_EXACT_ITEMS + 1, 5_000, 20_000])
def test_a_long_literal_parsed_normally_has_its_length(n: int) -> None:
    """Lists of 1,001 to about 20,000 items (under the oversized-statement bound, so libcst parses
    them): ``len``, ``torch.cat``, ``torch.tensor`` and concatenation know how many items there are."""
    names = ", ".join(["x"] * n)
    numbers = ", ".join(str(i % 10) for i in range(n))
    src = (
        f"import torch\nx = torch.zeros(2, 3)\nxs = [{names}]\nys = xs + [x]\nk = len(xs)\n"
        f"a = torch.cat(ys) + torch.zeros(5, 3)\nb = torch.zeros(k) + torch.zeros(7)\n"
        f"t = torch.tensor([{numbers}]) + torch.zeros(9)\n"
    )
    r = check_source(src)
    assert [(d.code.id, d.span.line) for d in r.diagnostics] == [(codes.BROADCAST.id, line) for line in (6, 7, 8)]
    assert [d.message.count(f"{m} vs") for d, m in zip(r.diagnostics, (2 * n + 2, n, n))] == [1, 1, 1]
    assert r.stats["expression-bound"] == 2  # the two literals; ``xs + [x]`` adds lengths


def test_a_long_literal_of_many_distinct_items_is_bounded_and_counted() -> None:
    """Joining the looks of thousands of distinct tensors is bounded: the items are unknown, the
    length is not, and the bound is a cause in ``--statistics``."""
    items = ", ".join(f"torch.zeros({i + 1})" for i in range(MAX_EXACT_ITEMS + 1))
    r = check_source(f"import torch\nxs = [{items}]\nb = torch.zeros(len(xs)) + torch.zeros(7)\n")
    assert [d.code.id for d in r.diagnostics] == [codes.BROADCAST.id]
    assert f"{MAX_EXACT_ITEMS + 1} vs 7" in r.diagnostics[0].message
    assert any("distinct items (too-complex)" in k for k in r.stats)


def test_items_of_a_long_literal_are_still_checked() -> None:
    items = ", ".join(["x"] * MAX_EXACT_ITEMS + ["x @ x"])
    r = check_source("import torch\nx = torch.zeros(2, 3)\ny = [" + items + "]\n")
    assert [d.code.id for d in r.diagnostics] == [codes.SHAPE_MISMATCH.id]


def test_a_literal_within_the_bound_stays_exact() -> None:
    r = check_source(_cat(MAX_EXACT_ITEMS, "z = y + torch.zeros(5, 3)\n"))
    assert [d.code.id for d in r.diagnostics] == [codes.BROADCAST.id]
    assert f"{2 * MAX_EXACT_ITEMS} vs 5" in r.diagnostics[0].message
    assert not r.stats.get("expression-bound")


def test_repeated_list_past_the_bound_keeps_its_items_look() -> None:
    r = check_source("import torch\nx = torch.zeros(2, 3)\ny = torch.cat([x] * 10**9)\nz = y + torch.zeros(7, 4)\n")
    assert [d.code.id for d in r.diagnostics] == [codes.BROADCAST.id]
    assert r.stats["expression-bound"] == 1


BLOCK = """
class Block{i}(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear({a}, {a})

    def forward(self, x: Float[Tensor, "batch {a}"]) -> Float[Tensor, "batch {a}"]:
        return torch.relu(self.fc(x)) + x
"""


@pytest.mark.slow
def test_memory_of_a_big_generated_file_is_linear_with_a_small_constant(tmp_path: Path) -> None:
    head = "import torch\nfrom torch import nn, Tensor\nfrom jaxtyping import Float\n"
    blocks = [BLOCK.format(i=i, a=8 + i % 5) for i in range(4000)]
    src = head + "".join(blocks)
    f = tmp_path / "m.py"
    f.write_text(src, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.tensorshape]\nfile_timeout = 0\n", encoding="utf-8")
    # The child reports its own peak.  Not ``RUSAGE_CHILDREN`` (it counts every child this process
    # waited for), nor the child's ``ru_maxrss``: Linux carries the high-water mark of the memory a
    # process had before ``exec`` into it, and a child made by vfork or fork of a pytest process that
    # has grown to gigabytes starts with that figure.  ``VmHWM`` is the peak of the child's own memory.
    probe = (
        "import resource, sys\n"
        "from pathlib import Path\n"
        "from tensorshape.cli.main import main\n"
        "code = main(sys.argv[1:])\n"
        "status = Path('/proc/self/status')\n"
        "hwm = [l.split()[1] for l in status.read_text().splitlines() if l.startswith('VmHWM:')] if status.exists() else []\n"
        "print('peak-kb', hwm[0] if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
        "sys.exit(code)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, "check", "--no-cache", "-j", "1", str(f)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    peak_mb = int(out.stdout.rsplit("peak-kb", 1)[1].split()[0]) / 1024
    # A whole parse alone took about 600 MB per MB of source; now the tree and the analysis stay
    # well under 250 MB per MB on top of the interpreter and its imports (about 40 MB).
    assert peak_mb < 40 + 250 * len(src) / 1e6, peak_mb


#: A function long enough that the analysis reads the clock (every 64 steps) after its bound of 1 µs.
LONG = "import torch\n\n\ndef f(x):\n" + "".join(f"    y{i} = x + {i}\n" for i in range(300)) + "    return x\n"


def test_instrument_skips_a_file_past_file_timeout_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tensorshape.cli.main import main

    (tmp_path / "pyproject.toml").write_text("[tool.tensorshape]\nfile_timeout = 0.000001\n", encoding="utf-8")
    (tmp_path / "a.py").write_text(LONG, encoding="utf-8")
    assert main(["instrument", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "a.py: skipped: not instrumented: the analysis took more than 1e-06 s (file_timeout)" in err
    assert "1 file(s) skipped past file_timeout" in err
    assert (tmp_path / "a.py").read_text(encoding="utf-8") == LONG


def test_language_server_skips_a_document_past_file_timeout_with_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio
    from dataclasses import replace

    from tensorshape.lsp import server as srv

    ls = srv.build_server()
    ls.config = replace(ls.config, check=replace(ls.config.check, file_timeout=1e-6))
    uri = "file:///tmp/long.py"
    published: list[Any] = []
    monkeypatch.setattr(ls, "text_document_publish_diagnostics", published.append)
    document = SimpleNamespace(source=LONG, version=3)
    workspace = SimpleNamespace(get_text_document=lambda u: document, text_documents={uri: document})
    monkeypatch.setattr(ls.protocol, "_workspace", workspace)
    asyncio.run(srv._run(ls, uri, 0))
    (params,) = published
    (d,) = params.diagnostics
    assert d.code == codes.FILE_SKIPPED.id and "took more than 1e-06 s (file_timeout)" in d.message
    assert uri not in ls.incremental and uri not in ls.analyses
    # Within the bound, the same document is analysed as usual.
    ls.config = replace(ls.config, check=replace(ls.config.check, file_timeout=60))
    asyncio.run(srv._run(ls, uri, 0))
    assert not published[-1].diagnostics and uri in ls.analyses


@pytest.mark.parametrize("worker", [False, True], ids=["in-process", "worker"])
def test_mypy_plugin_reports_a_file_past_file_timeout(tmp_path: Path, worker: bool) -> None:
    from tensorshape_mypy.session import Session

    (tmp_path / "pyproject.toml").write_text("[tool.tensorshape]\nfile_timeout = 0.000001\n", encoding="utf-8")
    f = tmp_path / "long.py"
    f.write_text(LONG, encoding="utf-8")
    session = Session(None)
    if worker:
        session.prefetch(str(f))
    r = session.result(str(f))
    (d,) = r.diagnostics
    assert d.code.id == codes.FILE_SKIPPED.id and "took more than 1e-06 s (file_timeout)" in d.message


def _huge(n: int = 22_000) -> str:
    return "torch.cat([" + ", ".join(["x"] * n) + "])"


def _huge_dict(n: int = 12_000) -> str:
    return "{" + ", ".join(f"{i}: x" for i in range(n)) + "}"


def _opaque_nodes(node: cst.CSTNode) -> list[OpaqueCode]:
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        if isinstance(n, OpaqueCode):
            out.append(n)
        else:
            todo.extend(code_children(n))
    return out


@pytest.mark.parametrize(
    "src",
    [
        "import torch\nx = torch.zeros(2, 3)\ny = {huge}  # a comment\n# after\n\nz = y + 1\n",
        "# generated\n\ny = {huge}\nz = 1\n",
        "import torch\nx = torch.zeros(2, 3)\ny = {huge}\n",
        "import torch\nx = torch.zeros(2, 3)\ny = {huge}",  # no line break at the end: still kept as text
        "import torch\nx = torch.zeros(2, 3)\ny: object = {huge}\nprint({huge})\ny += {huge}\n",
        "import torch\nx = torch.zeros(2, 3)\ny = (\n    {huge}\n)\nz = 2\n",
        "import torch\nx = torch.zeros(2, 3)\na, b = {huge}, 1\ndef f():\n    return {huge}\n",
    ],
    ids=["comment", "first", "last", "no-final-newline", "kinds", "multi-line", "not-opaque"],
)
@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
@pytest.mark.parametrize("kind", ["list", "dict"])
def test_an_oversized_statement_keeps_every_byte(src: str, newline: str, kind: str) -> None:
    src = src.format(huge=_huge() if kind == "list" else _huge_dict()).replace("\n", newline)
    module, failure, starts = parse_source_lines(src)
    assert module is not None and failure is None
    # libcst drops the final line break of a CR-only file (its whole parse does too; instrument
    # edits the text, never this code).
    assert module.code == src or newline == "\r" and module.code + "\r" == src
    assert starts == first_lines(module, src)
    # The huge text of every top-level statement is kept as text, never handed to libcst (with any
    # line break, and on the last line of a file without a final one): the whole value, or each long
    # list literal (then libcst parsed less than the bound).
    top = [s for s in module.body if isinstance(s, cst.SimpleStatementLine)]
    huge = [s for s in top if len(module.code_for_node(s)) > MAX_STATEMENT_CHARS]
    assert huge
    for s in huge:
        kept = sum(len(o.value) for o in _opaque_nodes(s))
        assert len(module.code_for_node(s)) - kept < MAX_STATEMENT_CHARS
        if kind == "dict":
            assert isinstance(getattr(s.body[0], "value", None), OpaqueCode)
        else:
            assert all(isinstance(o, OpaqueSequence) and o.length == 22_000 for o in _opaque_nodes(s))


def test_an_oversized_statement_is_not_parsed_but_bounded_and_counted() -> None:
    src = (
        "import torch\nx = torch.zeros(2, 3)\ny = "
        + _huge_dict()
        + "\nw = torch.zeros(2, 3) @ torch.zeros(4, 5)\nv = y\n"
    )
    assert len(src) > MAX_STATEMENT_CHARS
    r = check_source(src)
    # The statements after it are analysed, their positions right; ``y`` is unknown (no false error).
    assert [(d.code.id, d.span.line) for d in r.diagnostics] == [(codes.SHAPE_MISMATCH.id, 4)]
    assert r.stats["expression-bound"] == 1
    assert r.examples[f"cause:statement of more than {MAX_STATEMENT_CHARS:,} characters (too-complex)"].endswith(":3:5")
    tree, _ = parse_source(src)
    assert tree is not None
    (assign,) = tree.body[2].body  # type: ignore[attr-defined]
    assert isinstance(assign, cst.Assign) and isinstance(assign.value, OpaqueCode)
    # Visitors and transformers pass it by, and it stays what it is.
    assert tree.visit(cst.CSTTransformer()).code == src and tree.deep_equals(tree.deep_clone())


def test_instrument_keeps_an_oversized_statement(tmp_path: Path) -> None:
    from tensorshape.cli.main import main

    src = "import torch.nn.functional as F\ny = " + _huge() + "\n\n\ndef f(x, w):\n    return F.linear(x, w)\n"
    f = tmp_path / "m.py"
    f.write_text(src, encoding="utf-8")
    assert main(["instrument", "--write", str(f)]) == 0
    out = f.read_text(encoding="utf-8")
    assert out != src and "check_shapes" in out
    compile(out, str(f), "exec")
    assert main(["instrument", "--remove", "--write", str(f)]) == 0
    assert f.read_text(encoding="utf-8") == src


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["lf", "crlf", "cr"])
def test_instrument_keeps_an_oversized_last_line_without_a_line_break(tmp_path: Path, newline: str) -> None:
    from tensorshape.cli.main import main

    src = "import torch.nn.functional as F\n\n\ndef f(x, w):\n    return F.linear(x, w)\n\n\ny = " + _huge()
    src = src.replace("\n", newline)
    f = tmp_path / "m.py"
    f.write_bytes(src.encode("utf-8"))
    assert main(["instrument", "--write", str(f)]) == 0
    out = f.read_bytes().decode("utf-8")
    assert out != src and "check_shapes" in out and out.endswith(_huge())
    compile(out, str(f), "exec")
    assert main(["instrument", "--remove", "--write", str(f)]) == 0
    assert f.read_bytes() == src.encode("utf-8")


def test_a_statement_under_the_bound_is_analysed() -> None:
    n = MAX_STATEMENT_CHARS // 4
    assert len(_cat(n)) < MAX_STATEMENT_CHARS
    r = check_source(_cat(n, "z = y + torch.zeros(5, 4)\n"))
    assert [d.code.id for d in r.diagnostics] == [codes.BROADCAST.id]


def test_a_long_literal_in_an_oversized_statement_keeps_its_length_and_items() -> None:
    """The list is kept as text, its length and its items' names read by Python's parser: ``y`` is
    exact, so the broadcast against 5 is an error, as for a short list."""
    r = check_source(_cat(22_000, "z = y + torch.zeros(5, 3)\nw = y + torch.zeros(44000, 4)\n"))
    assert [(d.code.id, d.span.line) for d in r.diagnostics] == [(codes.BROADCAST.id, 4), (codes.BROADCAST.id, 5)]
    assert "44000 vs 5" in r.diagnostics[0].message and "3 vs 4" in r.diagnostics[1].message
    assert r.stats["expression-bound"] == 1
    assert r.examples[f"cause:sequence of more than {MAX_EXACT_ITEMS:,} items (too-complex)"].endswith(":3:15")
    # Items of different names: the join of their shapes; items that are not names: the length only.
    src = "import torch\na = torch.zeros(2, 3)\nb = torch.zeros(4, 3)\ny = torch.cat([" + ", ".join(["a", "b"] * 11_000)
    r = check_source(
        src
        + "])\nz = y + torch.zeros(5, 4)\nt = ("
        + "a + 1, " * 11_000
        + ")\nu = torch.zeros(len(t)) + torch.zeros(5)\n"
    )
    assert [d.code.id for d in r.diagnostics] == [codes.BROADCAST.id, codes.BROADCAST.id]
    assert "3 vs 4" in r.diagnostics[0].message and "11000 vs 5" in r.diagnostics[1].message


@pytest.mark.slow
def test_cat_of_a_100000_item_literal_is_one_bounded_expression() -> None:
    r = check_source(_cat(100_000, "z = y + torch.zeros(5, 4)\nw = torch.zeros(2, 3) @ torch.zeros(4, 5)\n"))
    # The 300 KB statement is kept as text but the list's length and items are known: ``y`` is exact.
    assert [d.code.id for d in r.diagnostics] == [codes.BROADCAST.id, codes.SHAPE_MISMATCH.id]
    assert "200000 vs 5" in r.diagnostics[0].message
    assert r.stats["expression-bound"] == 1
