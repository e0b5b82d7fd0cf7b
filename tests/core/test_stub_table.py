"""The op table compiled once from the stubs and kept next to them (issue 20 item 3)."""

from __future__ import annotations

import pickle
import shutil
import sys
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path

import pytest
from tensorshape.model.values import NONE
from tensorshape.rules import stubs
from tensorshape.rules.stubdir import stubs_dir


@pytest.fixture
def writing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """Compiled tables are written (this suite may run with ``PYTHONDONTWRITEBYTECODE``), and the
    user's cache folder is a temporary one."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    stubs.load_table.cache_clear()
    yield tmp_path
    stubs.load_table.cache_clear()


def _copy_stubs(tmp_path: Path) -> Path:
    root = tmp_path / "stubs"
    root.mkdir()
    for p in stubs_dir().glob("*.shapes.pyi"):
        shutil.copy(p, root / p.name)
    return root


def _compiled(root: Path) -> list[Path]:
    return sorted((root / "__pycache__").glob("shapes-table.*.pickle"))


def test_the_compiled_table_is_the_parsed_table(writing: Path) -> None:
    root = _copy_stubs(writing)
    parsed = stubs.load_table(str(root))
    assert len(_compiled(root)) == 1
    stubs.load_table.cache_clear()
    loaded = stubs.load_table(str(root))
    assert loaded is not parsed
    assert loaded == stubs.parse_table(sorted(root.glob("*.shapes.pyi")))
    assert len(loaded.ops) > 500 and not loaded.errors
    # A default of ``None`` is the one ``NONE`` (the analysis compares with ``is``).
    defaults = [p.default for ops in loaded.ops.values() for op in ops for p in op.params]
    nones = [d for d in defaults if type(d).__name__ == "NoneV"]
    assert nones and all(d is NONE for d in nones)


def test_a_changed_stub_compiles_the_table_again(writing: Path) -> None:
    root = _copy_stubs(writing)
    assert "torch.tensorshape_probe" not in stubs.load_table(str(root)).ops
    before = _compiled(root)
    with (root / "torch.shapes.pyi").open("a", encoding="utf-8") as f:
        f.write('\ndef tensorshape_probe(input: "a b") -> "b a": ...\n')
    stubs.load_table.cache_clear()
    assert "torch.tensorshape_probe" in stubs.load_table(str(root)).ops
    # The earlier table is removed: nothing reads it again.
    after = _compiled(root)
    assert len(before) == len(after) == 1 and before != after


def test_a_broken_compiled_table_is_compiled_again(writing: Path) -> None:
    root = _copy_stubs(writing)
    stubs.load_table(str(root))
    (kept,) = _compiled(root)
    kept.write_bytes(b"not a pickle")
    stubs.load_table.cache_clear()
    assert len(stubs.load_table(str(root)).ops) > 500
    assert pickle.loads(kept.read_bytes()).ops.keys() == stubs.load_table(str(root)).ops.keys()


def test_the_user_cache_when_the_stubs_folder_is_read_only(writing: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _copy_stubs(writing)
    (root / "__pycache__").write_text("a file, not a folder")  # nothing can be written under it
    stubs.load_table(str(root))
    assert len(list((writing / "user-cache" / "tensorshape" / "stubs").glob("shapes-table.*.pickle"))) == 1
    stubs.load_table.cache_clear()
    monkeypatch.setattr(stubs, "parse_table", None)  # a second load reads the user cache: nothing parsed
    assert len(stubs.load_table(str(root)).ops) > 500


def test_no_table_is_written_without_bytecode(writing: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    root = _copy_stubs(writing)
    assert len(stubs.load_table(str(root)).ops) > 500
    assert _compiled(root) == [] and not (writing / "user-cache").exists()


def test_the_key_covers_every_class_the_table_holds() -> None:
    """A change to a class the pickled table holds must make a new key (``TABLE_MODULES``)."""
    modules: set[str] = set()

    class Recording(pickle.Pickler):
        def persistent_id(self, obj: object) -> None:
            modules.add(type(obj).__module__)
            return None

    Recording(BytesIO(), protocol=pickle.HIGHEST_PROTOCOL).dump(
        stubs.parse_table(sorted(stubs_dir().glob("*.shapes.pyi")))
    )
    ours = {m for m in modules if m.startswith("tensorshape")}
    assert ours and ours <= set(stubs.TABLE_MODULES)
