"""Bounds on symbolic work that were hit, counted per analysis so that none goes silent.

The comparison and arithmetic functions of ``unify`` give up (answer unknown) when a
sympy operation would be too big (:data:`arith.MAX_EXPANDED_TERMS`); they know nothing
of the analysis that asked.  They call :func:`hit`, which adds to the counter of the
innermost :func:`recording` (a context variable: each thread and each nested analysis
has its own), and the analysis puts what it recorded into its statistics.

A memoised function that may hit a bound is wrapped with :func:`replayed_cache` rather
than ``functools.lru_cache``: a cache hit replays the bounds its first run hit, so the
counts of a file do not depend on what the process analysed before it.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

__all__ = ["EXPANSION", "hit", "recording", "replayed_cache"]

#: A sympy expansion not done: it could have had more than ``MAX_EXPANDED_TERMS`` terms.
EXPANSION = "expansion"

_current: ContextVar[Counter[str] | None] = ContextVar("tensorshape_bound_hits", default=None)

R = TypeVar("R")


def hit(bound: str, n: int = 1) -> None:
    """Count ``n`` hits of ``bound`` in the current recording (none outside a recording)."""
    counts = _current.get()
    if counts is not None:
        counts[bound] += n


@contextmanager
def recording() -> Iterator[Counter[str]]:
    """The bounds hit inside the ``with`` block, by name (the enclosing recording does not see them)."""
    counts: Counter[str] = Counter()
    token = _current.set(counts)
    try:
        yield counts
    finally:
        _current.reset(token)


def replayed_cache(maxsize: int) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """``functools.lru_cache(maxsize)`` that also remembers the bounds a call hit and counts them
    again on each later call with the same arguments."""

    def wrap(fn: Callable[..., R]) -> Callable[..., R]:
        @functools.lru_cache(maxsize=maxsize)
        def run(*args: Any) -> tuple[R, tuple[tuple[str, int], ...]]:
            with recording() as counts:
                out = fn(*args)
            return out, tuple(counts.items())

        @functools.wraps(fn)
        def call(*args: Any) -> R:
            out, hits = run(*args)
            for bound, n in hits:
                hit(bound, n)
            return out

        return call

    return wrap
