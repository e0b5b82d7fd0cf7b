"""Hostile texts (texts.py): each front end says where a file is wrong, or gives a correct result.

The subprocess cases of every text through every front end run from test_robustness.py (the
:data:`texts.FAST_TEXTS` in CI); here, the places and answers are checked."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from tensorshape.annotate.static import annotate_statically
from tensorshape.cli.main import main
from tensorshape.infer.api import CheckSettings, check_file, check_source
from tensorshape.infer.project import FileSkipped
from tensorshape.infer.toplevel import split_lines
from tensorshape.lsp.server import MAX_DOCUMENT, _ClosingWriter

from .harness import lsp_hover_after_analysis
from .texts import BASE, FAST_TEXTS, HOVER, TEXTS, _mixed_newlines


def _compiles(data: str) -> bool:
    """Whether a fresh Python accepts the text, as the user's would.  Not in this process: a test
    before may have raised the recursion limit, and then a 5,000-branch ``elif`` compiles here."""
    probe = "import sys; compile(sys.stdin.buffer.read().decode('utf-8'), 'm.py', 'exec', dont_inherit=True)"
    done = subprocess.run([sys.executable, "-c", probe], input=data.encode("utf-8"), capture_output=True)
    return done.returncode == 0


@pytest.mark.parametrize(
    ("data", "place", "message"),
    [
        (BASE + "s = 'a\x00b'\n", (9, 6), "null bytes"),
        (BASE + "# a\x00b\n", (9, 3), "null bytes"),
        (BASE + "s = 1\x00\n", (9, 5), "null bytes"),
        ("\ufeff" + BASE, (1, 0), "U+FEFF"),
    ],
    ids=["nul-in-string", "nul-in-comment", "nul-in-code", "second-bom"],
)
def test_text_python_refuses_is_a_syntax_error_at_its_place(data: str, place: tuple[int, int], message: str) -> None:
    r = check_source(data, "m.py", CheckSettings())
    (d,) = r.diagnostics
    assert d.code.id == "TS003" and message in d.message
    assert (d.span.line, d.span.column) == place


@pytest.mark.parametrize(
    ("data", "place"),
    [
        (BASE.encode() + b"# caf\xe9\n", (9, 5)),
        (BASE.replace("\n", "\r\n").encode() + b"s = '\xff'\r\n", (9, 5)),
        (b"x = 1\ny = 2\nz = 3\rs = '\xc3\xa9\xff'\n", (4, 6)),  # a column in characters, after a CR
    ],
    ids=["comment", "crlf", "cr-and-a-character-before"],
)
def test_an_undecodable_byte_is_reported_at_its_line_and_column(
    data: bytes, place: tuple[int, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "m.py"
    f.write_bytes(data)
    (d,) = check_file(f, CheckSettings()).diagnostics
    assert d.code.id == "TS003" and (d.span.line, d.span.column) == place
    assert main(["annotate", str(f)]) == 2
    assert f"{f}:{place[0]}:{place[1] + 1}: error: not annotated (UnicodeDecodeError" in capsys.readouterr().err
    assert main(["instrument", str(f)]) == 2
    assert f"{f}:{place[0]}:{place[1] + 1}: error: cannot read (UnicodeDecodeError" in capsys.readouterr().err


def test_annotate_never_rewrites_a_text_its_parser_does_not_give_back() -> None:
    """libcst drops a form feed that starts a line: annotate says so, at the place, and writes nothing."""
    src = BASE + "\n\n\x0cdef g(x):\n    return x.sum(0)\n"
    with pytest.raises(FileSkipped) as e:
        annotate_statically(src, "m.py")
    assert (e.value.lineno, e.value.offset) == (11, 1)


def test_a_nest_too_deep_for_the_parser_is_refused_by_annotate_at_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The codemod parses through the nesting guard (libcst's native parser died with SIGSEGV)."""
    f = tmp_path / "m.py"
    f.write_text(BASE + "y = " + "(" * 10_000 + "1" + ")" * 10_000 + "\n")
    assert main(["annotate", "--write", str(f)]) == 2
    err = capsys.readouterr().err
    assert f"{f}:9:" in err and "not annotated" in err and "Traceback" not in err


def test_the_language_server_writes_nothing_after_exit() -> None:
    """An analysis that ends after ``exit`` closed the output publishes into nothing, without a traceback."""
    out = io.BytesIO()
    w = _ClosingWriter(out)
    w.write(b"a")
    w.close()
    w.write(b"b")  # no ValueError: I/O operation on closed file
    assert w.closed


_HOVERED = [
    pytest.param(name, marks=[] if name in FAST_TEXTS else [pytest.mark.slow])
    for name in TEXTS
    if name not in {"lines-100k", "plus-chain-100k", "decorator-100k-args", "line-1mb-list"}
]


@pytest.mark.parametrize("name", list(TEXTS))
def test_each_text_has_f_linear_where_it_is_hovered(name: str) -> None:
    """In Python's lines of the text (as an editor decodes it), ``F.linear`` is at :data:`texts.HOVER`:
    the hover test asks there (the mixed line endings once made a CR and an LF one CRLF, a line less)."""
    text = TEXTS[name].decode("utf-8-sig", "replace")
    line = split_lines(text)[HOVER[0]]
    assert line[HOVER[1] :].startswith("F.linear(x, w)"), repr(line)


def test_mixed_newlines_keep_every_line() -> None:
    text = BASE + "\n\ndef g(x, w):\n    y = F.linear(x, w)\n    return y\n"
    mixed = _mixed_newlines(text)
    assert {"\r\n", "\n", "\r"} == {ln[len(ln.rstrip("\r\n")) :] for ln in split_lines(mixed)}
    assert [ln.rstrip("\r\n") for ln in split_lines(mixed)] == text.splitlines()


@pytest.fixture(scope="module")
def base_hover() -> object:
    kind, answer, err = lsp_hover_after_analysis(BASE)
    assert kind == "clean", err[-2000:]
    assert answer is not None and answer["result"] is not None
    return answer["result"]


@pytest.mark.parametrize("name", _HOVERED)
def test_hover_after_the_analysis_of_a_hostile_text(name: str, base_hover: object) -> None:
    """Open the text, wait for its analysis, hover on ``F.linear``: the shape an ordinary file gets
    when Python accepts the text, no answer when it does not (a syntax error is published instead)."""
    text = TEXTS[name].decode("utf-8-sig", "replace")  # as an editor decodes it
    kind, answer, err = lsp_hover_after_analysis(text)
    assert kind == "clean", err[-2000:]
    assert answer is not None
    valid = _compiles(text) and len(text) <= MAX_DOCUMENT
    assert answer["result"] == (base_hover if valid else None)


def _elifs(n: int, name: str = "g") -> str:
    return (
        f"\n\ndef {name}(c):\n    if c == 0:\n        return 0\n"
        + "".join(f"    elif c == {i}:\n        return {i}\n" for i in range(1, n + 1))
        + "    else:\n        return -1\n"
    )


def test_an_elif_chain_past_the_bound_is_skipped_at_its_place_and_counted() -> None:
    """5,000 ``elif`` branches: the analysis recursed too deep (an internal error at 1:1; CPython's
    compiler fails on them too).  Past 200 the file is a TS008 warning at the first branch too many."""
    r = check_source(BASE + _elifs(5000), "m.py", CheckSettings())
    (d,) = r.diagnostics
    assert d.code.id == "TS008" and "more than 200 `elif` branches" in d.message
    assert (d.span.line, d.span.column) == (9 + 3 + 2 * 201, 4)
    assert r.stats.get("skipped-files") == 1


def test_elif_chains_within_the_bound_are_analysed() -> None:
    src = _elifs(200) + _elifs(150, "h") + _elifs(150, "k") + "import torch\nx = torch.zeros(2, 3) @ torch.zeros(4, 5)\n"
    (d,) = check_source(src, "m.py", CheckSettings()).diagnostics
    assert d.code.id == "TS101"
