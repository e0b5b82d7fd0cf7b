"""Check many files: cached results first, the rest in parallel worker processes."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..infer.libraries import Libraries
from ..infer.memory import settle, tune_gc
from ..infer.result import CheckSettings, FileResult, crash_result
from ..infer.source import is_blank, read_source, text_digest
from .cache import Cache
from .serialize import dump_result, load_result

if TYPE_CHECKING:
    from ..infer.project import Project

__all__ = ["run_check", "Progress", "shard"]

_worker_project: Project | None = None
_worker_settings: CheckSettings | None = None


def _init_worker(roots: list[str], settings: CheckSettings, libraries: Libraries | None = None) -> None:
    global _worker_project, _worker_settings
    from ..infer.project import Project

    tune_gc()
    _worker_project = Project([Path(r) for r in roots], libraries)
    _worker_settings = settings


def _check_chunk(paths: list[str]) -> list[dict[str, Any]]:
    assert _worker_project is not None and _worker_settings is not None
    out = []
    for p in paths:
        out.append(dump_result(_check_one(_worker_project, p, _worker_settings)))
        settle()
    return out


def check_file_guarded(path: str, settings: CheckSettings, project: Project) -> FileResult:
    """:func:`tensorshape.infer.api.check_file_guarded`, imported when a file must be analysed: a run
    whose files all come from the cache or have no code never imports libcst and the op table."""
    from ..infer.api import check_file_guarded as check

    return check(path, settings, project)


#: Files up to this size are looked at for having no code before the parser is loaded.
_SMALL = 4096


def _blank_result(path: str) -> FileResult | None:
    """The result of a file with no code (empty, or blank lines only), as the analysis gives it
    (nothing to report; the file its own dependency), else ``None``."""
    try:
        if os.path.getsize(path) > _SMALL:
            return None
        resolved = str(Path(path).resolve())
    except (OSError, RuntimeError):
        return None
    text, _ = read_source(Path(path))
    if text is None or not is_blank(text):
        return None
    return FileResult(path, [], dependencies=[(resolved, text_digest(text))])


def _check_one(project: Project, path: str, settings: CheckSettings) -> FileResult:
    return check_file_guarded(path, settings, project)


class Progress:
    """A one-line progress bar on a terminal; silent in CI or when piped."""

    def __init__(self, total: int, enabled: bool | None = None):
        if enabled is None:
            enabled = sys.stderr is not None and sys.stderr.isatty() and not os.environ.get("CI") and total > 20
        self.enabled = enabled
        self.total = total
        self.done = 0
        self._last = 0.0

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} files")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r" + " " * 60 + "\r")
            sys.stderr.flush()


#: Files of one folder beyond this are split into several chunks (load balance).
CHUNK_FILES = 16


def _chunks_by_folder(paths: Sequence[str]) -> list[list[str]]:
    """Work units for the workers: the files of one folder together, since they import each other
    and the same helpers (a worker parses each module it reads once; files of one package spread
    over every worker made each parse most of the package).  Biggest folders first."""
    groups: dict[str, list[str]] = {}
    for p in paths:
        groups.setdefault(os.path.dirname(p), []).append(p)
    chunks = [g[i : i + CHUNK_FILES] for g in groups.values() for i in range(0, len(g), CHUNK_FILES)]
    chunks.sort(key=len, reverse=True)
    return chunks


def run_check(
    files: Sequence[Path],
    settings: CheckSettings,
    *,
    cache: Cache | None = None,
    jobs: int = 0,
    roots: Sequence[Path] = (),
    progress: Progress | None = None,
    on_result: Callable[[FileResult], None] | None = None,
    libraries: Libraries | None = None,
) -> list[FileResult]:
    """Results for every file, in the order given."""
    results: dict[str, FileResult] = {}
    todo: list[str] = []
    for f in files:
        key = str(f)
        hit = cache.get(key) if cache is not None else None
        if hit is not None:
            results[key] = hit
            if progress:
                progress.advance()
        else:
            todo.append(key)
    workers = jobs or os.cpu_count() or 1
    workers = min(workers, max(1, len(todo) // 4))
    root_list = [str(r) for r in roots]

    def done(r: FileResult) -> None:
        results[r.path] = r
        if cache is not None:
            cache.put(r.path, r)
        if progress:
            progress.advance()
        if on_result:
            on_result(r)

    if todo and (workers <= 1 or len(todo) < 8):
        project: Project | None = None
        tune_gc()
        for p in todo:
            r = _blank_result(p)
            if r is None:
                if project is None:
                    from ..infer.project import Project

                    project = Project([Path(root) for root in root_list], libraries)
                r = _check_one(project, p, settings)
            settle()
            r.analyzer = None
            r.module = None
            done(r)
    elif todo:
        _run_pool(_chunks_by_folder(todo), workers, root_list, settings, done, libraries)
    return [results[str(f)] for f in files]


def shard(files: Sequence[Path], index: int, count: int) -> list[Path]:
    """The files of shard ``index`` (1-based) of ``count`` (``--shard K/N``): the workers' folder units
    dealt out in turn to the shard with the fewest files so far.  The same file list always splits
    the same way, every file lands in exactly one shard, and a folder's files stay together."""
    loads = [0] * count
    mine: set[str] = set()
    for chunk in _chunks_by_folder([str(f) for f in files]):
        k = loads.index(min(loads))
        loads[k] += len(chunk)
        if k == index - 1:
            mine.update(chunk)
    return [f for f in files if str(f) in mine]


def _run_pool(
    chunks: list[list[str]],
    workers: int,
    roots: list[str],
    settings: CheckSettings,
    done: Callable[[FileResult], None],
    libraries: Libraries | None = None,
) -> None:
    """Check ``chunks`` in worker processes.  A worker that dies (a native crash, the OOM killer)
    breaks the pool: the files of every chunk not finished are checked again one by one, each in a
    fresh process, so that only the file that kills its worker is lost (reported as failed)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
    from ..infer import api  # noqa: F401 - loaded once here, before the workers fork, not once in each

    def pool(n: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(n, mp_context=ctx, initializer=_init_worker, initargs=(roots, settings, libraries))

    suspects: list[str] = []
    with pool(workers) as ex:
        futures = {ex.submit(_check_chunk, c): c for c in chunks}
        for fut in as_completed(futures):
            try:
                batch = fut.result()
            except BrokenProcessPool:
                suspects.extend(futures[fut])
                continue
            for data in batch:
                done(load_result(data))
    for path in suspects:
        with pool(1) as ex:
            try:
                batch = ex.submit(_check_chunk, [path]).result()
            except BrokenProcessPool:
                done(crash_result(path, "its worker process died: a native crash or out of memory"))
                continue
        done(load_result(batch[0]))
