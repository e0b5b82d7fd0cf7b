"""Which files to check: the paths given, Python files under folders, minus excludes."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["collect_files", "excluded", "DEFAULT_EXCLUDES"]

DEFAULT_EXCLUDES = (
    ".git",
    ".hg",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pycache__",
    "build",
    "dist",
    "node_modules",
    ".mypy_cache",
    ".pytest_cache",
    ".tensorshape_cache",
    "site-packages",
)


def excluded(path: Path, root: Path, patterns: Iterable[str]) -> bool:
    """Whether ``path`` matches one of the ``exclude`` globs (relative to ``root``, or its name)."""
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        rel = path.as_posix()
    for pat in patterns:
        if fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(rel, pat.rstrip("/") + "/*") or fnmatch.fnmatch(path.name, pat):
            return True
    return False


def collect_files(paths: Iterable[str | Path], root: Path, exclude: Iterable[str] = ()) -> list[Path]:
    """Python files to check, sorted, each once.  Files named explicitly are never excluded."""
    patterns = list(exclude)
    out: dict[str, Path] = {}
    for raw in paths:
        p = Path(raw)
        if p.is_file():
            out[str(p)] = p
            continue
        if not p.is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(p):
            d = Path(dirpath)
            dirnames[:] = sorted(
                n
                for n in dirnames
                if n not in DEFAULT_EXCLUDES and not n.endswith(".egg-info") and not excluded(d / n, root, patterns)
            )
            for name in sorted(filenames):
                if name.endswith(".py"):
                    f = d / name
                    if not excluded(f, root, patterns):
                        out[str(f)] = f
    return sorted(out.values(), key=lambda q: q.as_posix())
