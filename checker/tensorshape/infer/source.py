"""Reading a source file safely: a regular file of bounded size, decoded as Python decodes it.

Kept apart from :mod:`.project` (which needs libcst) so that the command line can look up its
cache without importing the parser.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
from pathlib import Path

__all__ = ["MAX_FILE_BYTES", "checker_digest", "read_bytes", "read_source", "text_digest", "is_blank"]

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


def read_source(path: Path) -> tuple[str | None, str | None]:
    """The file's text, or an error message (undecodable, unreadable, not a regular file)."""
    data, err = read_bytes(path)
    if data is None:
        return None, err
    try:
        import io
        import tokenize

        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding), None
    except (SyntaxError, UnicodeDecodeError, LookupError) as e:
        return None, f"cannot decode file: {e}"


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
