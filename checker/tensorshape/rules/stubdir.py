"""Where the stub files are, and a digest of them (cheap to import: stdlib only).

The mypy plugin reports the digest on every run, warm cache included, so this
module must not pull in the stub parser.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

__all__ = ["stubs_dir", "stubs_digest"]


def stubs_dir() -> Path:
    """Where the stubs are: inside the installed package, or the source checkout's ``stubs/``."""
    packaged = Path(__file__).resolve().parents[1] / "_stubs"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "stubs"


@functools.cache
def stubs_digest() -> str:
    """A digest of every stub file: cached results are stale when it changes."""
    h = hashlib.blake2b(digest_size=16)
    for p in sorted(stubs_dir().glob("*.shapes.pyi")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()
