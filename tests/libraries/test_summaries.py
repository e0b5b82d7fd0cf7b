"""Summaries of installed modules kept across runs (issue 22, item 4): a summary gives the same
shapes and diagnostics as a parse, a changed library file gets a new one, a corrupt entry is
ignored and rewritten, function bodies are loaded only when reached, the folder stays bounded."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import libcst as cst
import pytest
from tensorshape.infer.api import FileResult, check_file
from tensorshape.infer.libraries import Libraries
from tensorshape.infer.project import Project, parse_source
from tensorshape.infer.summaries import LazyClassDef, LazyFunctionDef, SummaryCache
from tensorshape.infer.syntax import self_assignments

from tests.libraries.test_follow import _setup as follow_setup

LIB = '''
import functools
import torch.nn as nn


def _make(c, blocks):
    layers = []
    for _ in range(blocks):
        layers.append(nn.Conv2d(c, c, 3, padding=1))
    return nn.Sequential(*layers)


def unused_helper(x):
    # never called by the user file: its body stays unloaded
    return x * 2


class Net(nn.Module):
    """A small model."""

    def __init__(self, c: int = 3, width: int = 8):
        super().__init__()
        self.stem = nn.Conv2d(c, width, 3, padding=1)
        self.body = _make(width, 2)
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        x = self.body(self.stem(x))
        return self.head(x.mean((2, 3)))

    def unused_method(self):
        self.cache = {}
        return self.cache


def net(**kwargs):
    return Net(**kwargs)
'''

USER = """
import torch
from fakelib import net

model = net(width=16)
reveal_shape(model(torch.randn(2, 3, 16, 16)))
model(torch.randn(2, 4, 16, 16))
"""


def _setup(tmp_path: Path) -> tuple[Path, Libraries]:
    main, libs = follow_setup(tmp_path)
    site = Path(libs.paths[0])
    (site / "fakelib" / "__init__.py").write_text("from .models import Net, net\n")
    (site / "fakelib" / "models.py").write_text(LIB)
    main.write_text(USER)
    return main, replace(libs, summaries=str(tmp_path / "summaries"))


def _check(main: Path, libs: Libraries) -> tuple[FileResult, Project]:
    project = Project([main.parent], libs)
    return check_file(main, project=project), project


def _view(r: FileResult) -> list[tuple[int, int, str, str, list[str]]]:
    return [
        (d.span.line, d.span.column, d.code.id, d.message, [f"{x.path}:{x.span.line}" for x in d.related])
        for d in r.diagnostics
    ]


def test_hit_gives_the_same_shapes_and_diagnostics_as_a_parse(tmp_path: Path) -> None:
    main, libs = _setup(tmp_path)
    plain, _ = _check(main, replace(libs, summaries=None))
    first, p1 = _check(main, libs)
    second, p2 = _check(main, libs)
    assert p1.summaries is not None and p2.summaries is not None
    assert p1.summaries.counts["miss"] == 2 and p1.summaries.counts["written"] == 2
    assert p2.summaries.counts["hit"] == 2 and p2.summaries.counts["miss"] == 0
    assert _view(plain) == _view(first) == _view(second)
    assert (6, 0, "TS900", "revealed shape: [2 10]", []) in _view(second)
    errors = [d for d in second.diagnostics if d.code.id == "TS101"]
    assert [d.span.line for d in errors] == [7] and "raised inside fakelib/models.py" in errors[0].message
    assert second.stats["library-cache:hit"] == 2 and first.stats["library-cache:miss"] == 2
    # What was never reached stays serialised: the helper nobody calls, the method nobody calls.
    tree = p2.by_name["fakelib.models"]
    assert tree is not None and tree.tree is not None
    defs = {s.name.value: s for s in tree.tree.body if isinstance(s, cst.FunctionDef)}
    assert isinstance(defs["unused_helper"], LazyFunctionDef) and not defs["unused_helper"].loaded
    assert defs["_make"].loaded  # type: ignore[attr-defined]


def test_summary_keeps_the_text_and_the_facts(tmp_path: Path) -> None:
    cache = SummaryCache(tmp_path)
    tree, _ = parse_source(LIB)
    assert tree is not None
    cache.store("d1", tree)
    loaded = cache.load("d1")
    assert loaded is not None and loaded.code == LIB  # every byte, bodies loaded on demand
    cls = next(s for s in loaded.body if isinstance(s, cst.ClassDef))
    methods = [s for s in cls.body.body if isinstance(s, LazyFunctionDef)]
    assert {m.name.value: m.self_assigned for m in methods} == {
        "__init__": frozenset({"stem", "body", "head"}),
        "forward": frozenset(),
        "unused_method": frozenset({"cache"}),
    }
    # The facts are the body's: computed again from the loaded body, they agree.
    assert all(m.self_assigned == frozenset(self_assignments(m)) for m in methods)


def test_a_changed_library_file_gets_a_new_summary(tmp_path: Path) -> None:
    main, libs = _setup(tmp_path)
    _check(main, libs)
    models = Path(libs.paths[0]) / "fakelib" / "models.py"
    models.write_text(LIB.replace("nn.Linear(width, 10)", "nn.Linear(width, 7)"))
    r, p = _check(main, libs)
    assert p.summaries is not None and p.summaries.counts["miss"] == 1 and p.summaries.counts["hit"] == 1
    assert (6, 0, "TS900", "revealed shape: [2 7]", []) in _view(r)
    again, p = _check(main, libs)
    assert p.summaries is not None and p.summaries.counts["hit"] == 2
    assert _view(again) == _view(r)


def _entries(libs: Libraries) -> list[Path]:
    assert libs.summaries is not None
    return sorted(Path(libs.summaries).rglob("*.pkl"))


def test_a_corrupt_entry_is_ignored_and_rewritten(tmp_path: Path) -> None:
    main, libs = _setup(tmp_path)
    good, _ = _check(main, libs)
    entries = _entries(libs)
    assert len(entries) == 2
    evil = pickle.dumps(os.system)  # a foreign callable: refused, never called
    for entry, junk in zip(entries, (b"\x80\x05garbage", evil)):
        entry.write_bytes(junk)
    r, p = _check(main, libs)
    assert p.summaries is not None and p.summaries.counts["corrupt"] == 2 and p.summaries.counts["written"] == 2
    assert _view(r) == _view(good)
    entries[0].write_bytes(entries[0].read_bytes()[:50])  # truncated
    r, p = _check(main, libs)
    assert p.summaries is not None and p.summaries.counts["corrupt"] == 1 and _view(r) == _view(good)
    r, p = _check(main, libs)
    assert p.summaries is not None and p.summaries.counts["hit"] == 2


def test_an_unwritable_folder_never_fails_a_check(tmp_path: Path) -> None:
    main, libs = _setup(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("")
    r, p = _check(main, replace(libs, summaries=str(blocker / "sub")))
    assert p.summaries is not None and p.summaries.counts["miss"] == 2 and p.summaries.counts["written"] == 0
    assert (6, 0, "TS900", "revealed shape: [2 10]", []) in _view(r)


def test_the_folder_is_bounded(tmp_path: Path) -> None:
    tree, _ = parse_source(LIB)
    assert tree is not None
    big = SummaryCache(tmp_path)
    for i in range(6):
        big.store(f"d{i}", tree)
        os.utime(big._entry(f"d{i}"), (1000 + i, 1000 + i))
    size = big._entry("d0").stat().st_size
    small = SummaryCache(tmp_path, max_bytes=3 * size)
    small.store("new", tree)  # the first write of a run prunes: least recently used first
    left = {p.name for p in tmp_path.rglob("*.pkl")}
    assert small._entry("new").name in left and small._entry("d5").name in left
    assert small._entry("d0").name not in left
    assert len(left) * size <= 3 * size


def test_cli_counts_the_cache_in_statistics(tmp_path: Path) -> None:
    main, libs = _setup(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        "[tool.tensorshape]\n"
        f'python_path = ["{libs.paths[0]}"]\n'
        f'library_cache_dir = "{tmp_path / "lc"}"\n'
        "library_cache_max_mb = 64\n"
    )
    cmd = [
        sys.executable,
        "-m",
        "tensorshape",
        "check",
        "--format",
        "json",
        "--config",
        str(tmp_path / "pyproject.toml"),
    ]
    cmd += ["--cache-dir", str(tmp_path / "rc"), str(main)]
    first = json.loads(subprocess.run(cmd, capture_output=True, text=True).stdout)
    main.write_text(USER + "\n# edited: the result cache misses, the library summaries hit\n")
    second = json.loads(subprocess.run(cmd, capture_output=True, text=True).stdout)
    assert first["summary"]["library_cache"]["miss"] == 2 and first["summary"]["library_cache"]["written"] == 2
    assert second["summary"]["library_cache"]["hit"] == 2 and second["summary"]["library_cache"]["miss"] == 0
    assert len(list((tmp_path / "lc").rglob("*.pkl"))) == 2


NESTED = """
import torch.nn as nn


def build(width):
    scale = 2

    class Head(nn.Module):
        factor = scale

        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 16)

        def forward(self, x):
            return self.fc(x)

    return Head()
"""


def test_a_class_inside_a_function_body_is_built_from_a_summary(tmp_path: Path) -> None:
    main, libs = _setup(tmp_path)
    (Path(libs.paths[0]) / "fakelib" / "models.py").write_text(NESTED)
    (Path(libs.paths[0]) / "fakelib" / "__init__.py").write_text("from .models import build\n")
    main.write_text("import torch\nfrom fakelib import build\n\nreveal_shape(build(8)(torch.randn(3, 8)))\n")
    first, _ = _check(main, libs)
    second, p = _check(main, libs)
    assert p.summaries is not None and p.summaries.counts["hit"] == 2
    assert _view(first) == _view(second)
    assert (4, 0, "TS900", "revealed shape: [3 16]", []) in _view(second)
    info = p.by_name["fakelib.models"]
    assert info is not None and info.tree is not None
    fn = next(s for s in info.tree.body if isinstance(s, LazyFunctionDef))
    nested = next(s for s in fn.body.body if isinstance(s, LazyClassDef))
    assert nested.level_reads is None  # found when built: a class in a function body rarely is


def test_summaries_survive_a_touched_checker_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A summary's key depends on the code that makes summaries, not on every checker file's
    modification time: an edit, a checkout or a formatter touching another module (what
    ``checker_digest`` sees) no longer makes every later check parse the libraries again."""
    from tensorshape.infer import summaries

    before = SummaryCache(tmp_path).salt
    monkeypatch.setattr(summaries, "checker_digest", lambda: "another checker")
    assert SummaryCache(tmp_path).salt == before
    summaries.summary_code_digest.cache_clear()
    assert SummaryCache(tmp_path).salt == before  # computed again from the same text
