"""Read a source file as Python does and write it back without ever losing a byte.

Reading honours the PEP 263 declaration (or the UTF-8 BOM) and keeps every
line ending as it is.  Writing encodes with the same encoding and replaces the
file atomically: a temporary file in the same folder, flushed and ``fsync``-ed,
given the original's mode, then renamed over it.  Any failure (disk full, a
read-only file, the file changed meanwhile) raises ``OSError`` and leaves the
original untouched.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..infer.source import detect_encoding, read_bytes

__all__ = ["Source", "read_source", "write_atomic", "unified_diff"]


@dataclass(frozen=True, slots=True)
class Source:
    text: str
    #: The declared (or BOM-implied) encoding, as ``tokenize`` names it (``utf-8-sig`` with a BOM).
    encoding: str
    #: The bytes read, to tell whether the file changed before it is replaced.
    data: bytes


def read_source(path: Path) -> Source:
    """The file's text, decoded as Python would decode it, line endings untouched.

    Raises ``OSError``, ``SyntaxError`` (a bad coding declaration) or ``UnicodeDecodeError``.
    """
    data, why = read_bytes(path)  # a regular file only: never blocks on a FIFO or reads a device forever
    if data is None:
        raise OSError(why)
    encoding = detect_encoding(data)
    return Source(data.decode(encoding), encoding, data)


def write_atomic(path: Path, text: str, original: Source) -> None:
    """Replace ``path`` by ``text`` encoded as ``original`` was, atomically (see the module doc)."""
    data = text.encode(original.encoding)  # before touching anything: an unencodable text fails here
    target = Path(os.path.realpath(path))  # through a symlink: the link stays a link
    st = target.stat()
    if not stat.S_ISREG(st.st_mode):
        raise OSError(f"{path}: not a regular file")
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or not os.access(target, os.W_OK):
        raise PermissionError(f"{path}: the file is read-only")
    if st.st_nlink > 1:
        raise OSError(f"{path}: has {st.st_nlink} hard links, which replacing it would separate")
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tensorshape")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        with contextlib.suppress(OSError, AttributeError):
            os.chown(tmp, st.st_uid, st.st_gid)
        if target.read_bytes() != original.data:
            raise OSError(f"{path}: changed while it was being instrumented; left as it is")
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError, AttributeError):  # make the rename itself durable
        dfd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


class _Aligned(difflib.SequenceMatcher):  # type: ignore[type-arg]
    """Opcodes from a known alignment (no quadratic search): ``common`` is a subsequence of both sides."""

    def __init__(self, a: Sequence[str], b: Sequence[str], common: Sequence[str]) -> None:
        super().__init__(None, a, b, autojunk=False)
        self._ops = list(_align(a, b, common))

    def get_opcodes(self) -> list[_Op]:
        return self._ops


_Op = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]


def _align(a: Sequence[str], b: Sequence[str], common: Sequence[str]) -> Iterator[_Op]:
    i = j = 0
    run: tuple[int, int] | None = None  # where the current run of equal lines began
    for line in common:
        i0, j0 = i, j
        while a[i] != line:
            i += 1
        while b[j] != line:
            j += 1
        if (i, j) != (i0, j0):
            if run is not None:
                yield ("equal", run[0], i0, run[1], j0)
                run = None
            if i > i0:
                yield ("delete", i0, i, j0, j0)
            if j > j0:
                yield ("insert", i, i, j0, j)
        if run is None:
            run = (i, j)
        i, j = i + 1, j + 1
    if run is not None:
        yield ("equal", run[0], i, run[1], j)
    if i < len(a):
        yield ("delete", i, len(a), j, j)
    if j < len(b):
        yield ("insert", len(a), len(a), j, len(b))


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def unified_diff(
    a: Sequence[str], b: Sequence[str], common: Sequence[str], fromfile: str, tofile: str
) -> Iterator[str]:
    """A unified diff of two line lists in time linear in their length.

    ``common`` (the file without any inserted line) must be a subsequence of both.
    A last line without its newline is followed by ``\\ No newline at end of file``.
    """
    first = True
    for group in _Aligned(a, b, common).get_grouped_opcodes(3):
        if first:
            yield f"--- {fromfile}\n"
            yield f"+++ {tofile}\n"
            first = False
        yield f"@@ -{_range(group[0][1], group[-1][2])} +{_range(group[0][3], group[-1][4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from _lines(" ", a[i1:i2])
                continue
            yield from _lines("-", a[i1:i2])
            yield from _lines("+", b[j1:j2])


def _lines(prefix: str, lines: Sequence[str]) -> Iterator[str]:
    for line in lines:
        if line.endswith(("\n", "\r")):
            yield prefix + line
        else:
            yield prefix + line + "\n\\ No newline at end of file\n"
