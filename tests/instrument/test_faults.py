"""Fault injection on ``instrument --write`` (issue 17, item 3): a failed write never loses a byte.

Disk full (``RLIMIT_FSIZE`` in a subprocess), a read-only file, a failing
rename, a file edited meanwhile, an undecodable file: the original stays
intact, no temporary file is left, the file gets a diagnostic and the others
are still instrumented (exit status 2).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tensorshape.cli.main import main

SRC = "import torch.nn.functional as F\n\n\ndef f(x, w):\n    return F.linear(x, w)\n"


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    bad, good = tmp_path / "a_bad.py", tmp_path / "b_good.py"
    bad.write_text(SRC)
    good.write_text(SRC)
    return bad, good


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.mark.skipif(sys.platform == "win32", reason="needs RLIMIT_FSIZE")
def test_disk_full_leaves_the_original(tmp_path: Path) -> None:
    big = tmp_path / "a_big.py"
    small = tmp_path / "b_small.py"
    big.write_text(SRC + "".join(f"\n\ndef g{i}(x, w):\n    return F.linear(x, w)\n" for i in range(40)))
    small.write_text("import torch\n")  # nothing to insert: its size never matters
    third = tmp_path / "c_small.py"
    third.write_text(SRC)
    limit = big.stat().st_size + 100  # the instrumented big file cannot be written, the third can
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
        from tensorshape.cli.main import main
        sys.exit(main(["instrument", "--write", {str(big)!r}, {str(small)!r}, {str(third)!r}]))
        """
    )
    original = big.read_bytes()
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr
    assert f"{big}: error: not written, the file is unchanged" in p.stderr
    assert big.read_bytes() == original
    assert "check_shapes" in third.read_text()  # the run went on
    assert _leftovers(tmp_path) == []


def test_read_only_file_is_left_alone(tmp_path: Path) -> None:
    bad, good = _setup(tmp_path)
    bad.chmod(0o444)
    assert main(["instrument", "--write", str(bad), str(good)]) == 2
    assert bad.read_text() == SRC and stat.S_IMODE(bad.stat().st_mode) == 0o444
    assert "check_shapes" in good.read_text()
    assert _leftovers(tmp_path) == []


def test_failed_rename_leaves_the_original(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bad, good = _setup(tmp_path)
    real_replace = os.replace

    def replace(src: str, dst: str) -> None:
        if Path(dst).name == bad.name:
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    assert main(["instrument", "--write", str(bad), str(good)]) == 2
    assert bad.read_text() == SRC and "check_shapes" in good.read_text()
    assert "No space left on device" in capsys.readouterr().err
    assert _leftovers(tmp_path) == []


def test_file_edited_meanwhile_is_not_overwritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tensorshape.instrument as instrument

    bad, good = _setup(tmp_path)
    real = instrument.instrument_source

    def edit_while_analysing(source: str, path: str = "<string>", **kw: bool) -> instrument.InstrumentResult:
        if path == str(bad):
            bad.write_text(SRC + "# the user's edit\n")
        return real(source, path, **kw)

    monkeypatch.setattr(instrument, "instrument_source", edit_while_analysing)
    assert main(["instrument", "--write", str(bad), str(good)]) == 2
    assert bad.read_text() == SRC + "# the user's edit\n" and "check_shapes" in good.read_text()


def test_write_keeps_mode_follows_symlinks_and_syncs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tmp_path / "real.py"
    real.write_text(SRC)
    real.chmod(0o751)
    link = tmp_path / "link.py"
    link.symlink_to(real.name)
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    assert main(["instrument", "--write", str(link)]) == 0
    assert link.is_symlink() and "check_shapes" in real.read_text()
    assert stat.S_IMODE(real.stat().st_mode) == 0o751
    assert synced  # the data reached the disk before the rename
    assert _leftovers(tmp_path) == []


def test_hard_linked_file_is_not_split(tmp_path: Path) -> None:
    bad, good = _setup(tmp_path)
    os.link(bad, tmp_path / "other_name.txt")
    assert main(["instrument", "--write", str(bad), str(good)]) == 2
    assert bad.read_text() == SRC and (tmp_path / "other_name.txt").read_text() == SRC


@pytest.mark.parametrize(
    ("data", "place"),
    [
        (b"\xff\xfe not utf-8 \x80\n", ":1:1"),
        (b"x = 1\r\ny = 'caf\xe9'\n", ":2:9"),  # the undecodable byte's line and column
        (b"#!/usr/bin/env python\n# -*- coding: no-such-codec -*-\nx = 1\n", ":2:1"),
        (b"def f(:\n", ":1:7"),
        (b"x = 1\ns = 'a\x00b'\n", ":2:7"),  # Python refuses a NUL in a string too
    ],
    ids=["undecodable", "undecodable-later", "unknown-codec", "syntax-error", "nul-in-string"],
)
def test_unreadable_file_gets_a_diagnostic_and_the_run_goes_on(
    data: bytes, place: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad, good = _setup(tmp_path)
    bad.write_bytes(data)
    assert main(["instrument", "--write", str(bad), str(good)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}{place}: error:" in err and "Traceback" not in err
    assert bad.read_bytes() == data and "check_shapes" in good.read_text()
