"""Reading a source file safely: a regular file of bounded size, decoded as Python decodes it.

Kept apart from :mod:`.project` (which needs libcst) so that the command line can look up its
cache without importing the parser.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import stat
from pathlib import Path

__all__ = [
    "MAX_FILE_BYTES", "NotRead", "checker_digest", "detect_encoding", "error_place", "null_byte", "offset_position", "read_bytes",
    "read_source", "text_digest", "is_blank", "failure_line",
]  # fmt: skip

#: Source files bigger than this are not read (a generated file that big is data, not a model).
MAX_FILE_BYTES = 32 * 1024 * 1024


def read_bytes(path: Path, limit: int = MAX_FILE_BYTES) -> tuple[bytes | None, str | None]:
    """A regular file's bytes, or why not: never blocks on a FIFO or reads a device forever."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        return None, f"cannot read file: {e.strerror or e}"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, "not a regular file (a FIFO, socket or device)"
        if st.st_size > limit:
            return None, f"file too big ({st.st_size:,} bytes; the limit is {limit:,})"
        chunks = []
        total = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > limit:
                return None, f"file too big (more than {limit:,} bytes)"
            chunks.append(chunk)
        return b"".join(chunks), None
    except OSError as e:
        return None, f"cannot read file: {e.strerror or e}"
    finally:
        os.close(fd)


class NotRead(str):
    """Why a file could not be read, and where in it (line from 1, column from 0) when that is known."""

    line: int = 1
    column: int = 0

    @classmethod
    def at(cls, why: str, place: tuple[int, int] | None) -> NotRead:
        out = cls(why)
        if place is not None:
            out.line, out.column = place
        return out


_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=]")


def detect_encoding(data: bytes) -> str:
    """The encoding Python reads ``data`` in (PEP 263, a BOM); a ``SyntaxError`` for a bad declaration
    or an undecodable first line says its line (``tokenize`` gives none)."""
    import io
    import tokenize

    try:
        return tokenize.detect_encoding(io.BytesIO(data).readline)[0]
    except SyntaxError as e:
        if e.lineno is None:
            lines = data.splitlines()[:2]
            e.lineno = next((i for i, line in enumerate(lines, 1) if _CODING.match(line)), 1)
            e.offset = 1
        raise


def read_source(path: Path) -> tuple[str | None, str | None]:
    """The file's text, or an error message (undecodable, unreadable, not a regular file); a
    :class:`NotRead` that knows the place of an undecodable byte or a bad coding declaration."""
    data, err = read_bytes(path)
    if data is None:
        return None, err
    try:
        return data.decode(detect_encoding(data)), None
    except (SyntaxError, UnicodeDecodeError, LookupError) as e:
        return None, NotRead.at(f"cannot decode file: {_short(e)}", error_place(e))


_BREAKS = re.compile(rb"\r\n|\r|\n")


def offset_position(data: bytes | str, offset: int) -> tuple[int, int]:
    """The line (from 1) and column (from 0, in characters) of ``offset`` in ``data``, line breaks
    counted as Python counts them (``\\r\\n``, ``\\r``, ``\\n``)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if isinstance(data, str):
        offset = len(data[:offset].encode("utf-8", "surrogatepass"))
    line, start = 1, 0
    for m in _BREAKS.finditer(raw, 0, offset):
        if m.end() <= offset:
            line, start = line + 1, m.end()
    return line, len(raw[start:offset].decode("utf-8", "replace"))


def null_byte(text: str) -> tuple[int, int] | None:
    """The place of the first NUL character of ``text`` (Python refuses source with one anywhere,
    in a string or a comment too), or None."""
    at = text.find("\x00")
    return None if at < 0 else offset_position(text, at)


def error_place(e: BaseException) -> tuple[int, int] | None:
    """The place (line from 1, column from 0) an error reading or parsing a file points at, if any:
    an undecodable byte, a syntax error (Python's or libcst's)."""
    if isinstance(e, UnicodeDecodeError) and isinstance(e.object, bytes):
        return offset_position(e.object, e.start)
    if isinstance(e, SyntaxError) and e.lineno:
        return e.lineno, max((e.offset or 1) - 1, 0)
    line, column = getattr(e, "raw_line", None), getattr(e, "raw_column", None)
    if isinstance(line, int) and isinstance(column, int) and line > 0:
        return line, column
    return None


def _short(e: BaseException) -> str:
    """The message of a decoding error without the offset of the byte (the place says where)."""
    if isinstance(e, UnicodeDecodeError):
        return f"{e.encoding!r} codec can't decode byte{'s' if e.end - e.start > 1 else ''} " + " ".join(
            f"0x{b:02x}" for b in e.object[e.start : e.end]
        ) + f": {e.reason}"
    if isinstance(e, SyntaxError):
        return e.msg
    return str(e)


def failure_line(path: object, e: BaseException, what: str) -> str:
    """One line for a file a command could not handle: ``path:line:col: error: what (reason)``, the
    place of the error when it has one (a column from 1, as compilers print it)."""
    place = error_place(e)
    where = f"{path}:{place[0]}:{place[1] + 1}" if place else str(path)
    reason = _short(e) if isinstance(e, (UnicodeDecodeError, SyntaxError)) else str(e)
    first = reason.splitlines()[0] if reason else ""
    return f"{where}: error: {what} ({type(e).__name__}: {first})"


def text_digest(text: str) -> str:
    """The content digest of a source text (the cache's key and a result's dependency)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def is_blank(text: str) -> bool:
    """A text with no code at all (empty, or spaces and line breaks only): nothing to parse."""
    return not text.strip(" \t\r\n")


@functools.cache
def checker_digest() -> str:
    """A fingerprint of tensorshape's own modules (name, size, modification time).

    The version alone does not change while the checker is developed or patched in place (an
    editable install): a result or summary made by other code must not be served.  Stat calls
    only, about a millisecond; computed once per process.
    """
    h = hashlib.blake2b(digest_size=16)
    root = Path(__file__).resolve().parent.parent
    for p in sorted(root.rglob("*.py")):
        try:
            st = p.stat()
        except OSError:
            continue
        h.update(f"{p.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    return h.hexdigest()
