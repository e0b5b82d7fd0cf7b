"""The property ``instrument`` must keep on every input (issue 17, item 2).

The output compiles, the module imports and returns the same results as the
original on inputs that satisfy the checks (run with torch), a second run
changes nothing, and ``--remove`` gives back the original bytes.  Checked on a
fixed corpus of tricky programs and on programs hypothesis composes (a fast
subset by default, more with ``-m slow``), through the API and through
``tensorshape instrument --write`` on files.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tensorshape.cli.main import main
from tensorshape.instrument import instrument_source, remove

from .programs import ODD_BREAKS, SNIPPETS, Program, corpus, program

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CORPUS = corpus()
_counter = itertools.count()


def _run(data: bytes, folder: Path) -> Any:
    """Import the module from ``data`` (as a file, so its encoding and line endings count) and call ``main()``."""
    name = f"instrumented_prog_{next(_counter)}"
    path = folder / f"{name}.py"
    path.write_bytes(data)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
        return mod.main()
    finally:
        del sys.modules[name]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.shape == b.shape and bool(torch.equal(a, b))
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def check_property(p: Program, folder: Path, every: bool) -> int:
    """Assert the property; the number of lines inserted."""
    r = instrument_source(p.source, "prog.py", every_boundary=every)
    out = r.source
    compile(out, "prog.py", "exec")
    assert instrument_source(out, "prog.py", every_boundary=every).source == out, "not idempotent"
    assert remove(out) == p.source, "--remove does not restore the original"
    assert out.encode(p.encoding)  # what --write writes is encodable as declared
    before = _run(p.data(), folder)
    after = _run(out.encode(p.encoding), folder)
    assert _same(before, after), f"behaves differently after instrumenting:\n{before}\n{after}"
    return r.inserted


@pytest.mark.parametrize("every", [False, True], ids=["obligations", "all"])
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus(name: str, every: bool, tmp_path: Path) -> None:
    check_property(CORPUS[name], tmp_path, every)


def test_corpus_gets_checks() -> None:
    """The corpus is not vacuous: checks and decorators go in (and some obligations are skipped, with reasons)."""
    r = instrument_source(CORPUS["all-lf"].source, "prog.py")
    a = instrument_source(CORPUS["all-lf"].source, "prog.py", every_boundary=True)
    assert r.checks >= 8 and r.decorated >= 2 and len(r.skipped) >= 5
    assert a.decorated >= 6


@pytest.mark.parametrize("name", ["all-crlf", "all-cr", "all-latin-1", "all-utf-8-bom", "all-no-final-newline"])
def test_cli_write_and_remove_keep_every_byte(name: str, tmp_path: Path) -> None:
    p = CORPUS[name]
    f = tmp_path / "prog.py"
    f.write_bytes(p.data())
    assert main(["instrument", "--write", str(f)]) == 0
    written = f.read_bytes()
    assert written != p.data()
    text = written.decode(p.encoding)
    compile(text, str(f), "exec")
    assert text == instrument_source(p.source, str(f)).source  # line endings and encoding kept
    assert main(["instrument", "--write", str(f)]) == 0
    assert f.read_bytes() == written  # idempotent on disk
    assert main(["instrument", "--remove", "--write", str(f)]) == 0
    assert f.read_bytes() == p.data()


def _alphabet(encoding: str) -> str:
    chars = ODD_BREAKS + "é#' xλ€"
    return "".join(c for c in chars if _encodable(c, encoding))


def _encodable(c: str, encoding: str) -> bool:
    try:
        c.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


@st.composite
def programs(draw: st.DrawFn) -> Program:
    encoding = draw(st.sampled_from(["utf-8", "latin-1", "utf-8-sig"]))
    p = program(
        draw(st.lists(st.integers(0, len(SNIPPETS) - 1), min_size=1, max_size=4)),
        newline=draw(st.sampled_from(["\n", "\r\n", "\r"])),
        tricky=draw(st.text(alphabet=_alphabet(encoding), max_size=10)),
        form_feeds=draw(st.booleans()),
        encoding="latin-1" if encoding == "latin-1" else "utf-8",
        future=draw(st.booleans()),
        final_newline=draw(st.booleans()),
    )
    return Program(p.source, encoding)


_FAST = settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
_SLOW = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


@_FAST
@given(p=programs(), every=st.booleans())
def test_generated_programs(p: Program, every: bool, tmp_path_factory: pytest.TempPathFactory) -> None:
    check_property(p, tmp_path_factory.mktemp("prog"), every)


@pytest.mark.slow
@_SLOW
@given(p=programs(), every=st.booleans())
def test_generated_programs_many(p: Program, every: bool, tmp_path_factory: pytest.TempPathFactory) -> None:
    check_property(p, tmp_path_factory.mktemp("prog"), every)
