"""A cooperative time bound on the analysis of one file.

:func:`check_file_guarded` opens a :func:`deadline`; the interpreter's main loops (each statement,
each expression) call :func:`tick`, which raises :class:`FileTimeout` once the time is up.  The
exception is a ``BaseException`` so that the analysis's own ``except Exception`` guards (one bad
function must not stop a file) do not swallow it; the file is then reported as skipped.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["DEFAULT_FILE_TIMEOUT", "FileTimeout", "deadline", "tick"]

#: Seconds one file's analysis may take (``file_timeout`` in ``[tool.tensorshape]``; 0 turns it off).
DEFAULT_FILE_TIMEOUT = 60.0

_until = float("inf")
_ticks = 0


class FileTimeout(BaseException):
    """The analysis of the current file ran past its time bound."""


def tick() -> None:
    """Raise :class:`FileTimeout` if the current file's time is up (the clock is read every 64 calls)."""
    global _ticks
    _ticks += 1
    if _ticks & 63 == 0 and time.monotonic() > _until:
        raise FileTimeout


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Bound the analysis run inside to ``seconds`` (``<= 0``: no bound); nested bounds keep the outer."""
    global _until, _ticks
    outer = _until
    _ticks = 0
    if seconds > 0:
        _until = min(outer, time.monotonic() + seconds)
    try:
        yield
    finally:
        _until = outer
