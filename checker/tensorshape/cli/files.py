"""Which files to check: the paths given, Python files under folders, minus excludes."""

from __future__ import annotations

import errno
import fnmatch
import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["collect_files", "excluded", "unusable", "DEFAULT_EXCLUDES"]

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
    except (ValueError, OSError, RuntimeError):  # outside the root, a symlink loop, a too-long path
        rel = path.as_posix()
    for pat in patterns:
        if fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(rel, pat.rstrip("/") + "/*") or fnmatch.fnmatch(path.name, pat):
            return True
    return False


def unusable(path: str | Path) -> str | None:
    """Why a path named on the command line cannot be checked (``None``: it can be tried)."""
    try:
        os.stat(path)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return f"{path}: a symbolic link loop"
        return f"{path}: {e.strerror or e}"
    except ValueError as e:  # an embedded NUL byte
        return f"{path}: {e}"
    return None


def collect_files(
    paths: Iterable[str | Path], root: Path, exclude: Iterable[str] = (), problems: list[str] | None = None
) -> list[Path]:
    """Python files to check, sorted, each once.  Files named explicitly are never excluded, and
    anything named that is not a folder is a file to check (a FIFO or a device is then reported
    as not analysed, never passed over in silence).  Folders that cannot be read, and named
    folders without Python files, are added to ``problems``."""
    patterns = list(exclude)
    out: dict[str, Path] = {}

    def walk_error(e: OSError) -> None:
        if problems is not None:
            problems.append(f"{e.filename}: cannot read folder: {e.strerror or e}")

    for raw in paths:
        p = Path(raw)
        try:
            is_dir = p.is_dir()
        except OSError:
            is_dir = False
        if not is_dir:
            out[str(p)] = p
            continue
        before = len(out)
        for dirpath, dirnames, filenames in os.walk(p, onerror=walk_error):
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
        if len(out) == before and problems is not None:
            problems.append(f"{p}: no Python files to check")
    return sorted(out.values(), key=lambda q: q.as_posix())
