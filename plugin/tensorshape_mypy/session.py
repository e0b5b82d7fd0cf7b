"""One mypy run's use of the core: configuration, the analysed project, one result per file.

mypy type checks a module, then the plugin reports what ``tensorshape check``
reports for that file: :meth:`Session.result` runs the core's libcst analysis
(:func:`tensorshape.infer.check_file`) with the ``[tool.tensorshape]``
configuration the CLI would use (the nearest ``pyproject.toml`` upwards from
the file) and the project's import roots, once per file and run.

Incremental mode: mypy keeps a module's messages in its cache and replays
them while the module is fresh.  The analysis of a file also reads the
project files it imports (the core inlines unannotated callees across files),
which mypy's own dependency tracking does not see, so the plugin tells mypy
about them through ``report_config_data``: for a user module, a digest of the
contents of every file its analysis read and of its ``pyproject.toml``
(:meth:`Session.config_data`).  The
list of those files is kept next to mypy's cache (``<cache>/tensorshape/``),
written when mypy writes the module's cache entry and read when mypy checks
whether that entry is still valid.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tensorshape
from tensorshape.model.codes import ALL_CODES

if TYPE_CHECKING:
    # The configuration and the analysis are imported when a module is analysed: a warm run
    # that re-checks nothing never pays for them.
    from tensorshape.cli.config import Config
    from tensorshape.infer.api import CheckSettings
    from tensorshape.model.diagnostics import Diagnostic

    from .channel import Channel
    from .observe import Reveal

__all__ = ["Session", "is_user_path", "ProjectConfig", "Findings", "files_digest"]

_INSTALLED = ("site-packages", "dist-packages", "typeshed")
_OFF_BY_DEFAULT = frozenset(c.id for c in ALL_CODES.values() if not c.default_enabled)


def is_user_path(path: str) -> bool:
    """A source file of the user's code: not a stub, not an installed package, not typeshed."""
    return path.endswith(".py") and not any(part in path for part in _INSTALLED)


@dataclass(frozen=True, slots=True)
class ProjectConfig:
    """The CLI's view of a project: its configuration and where it comes from."""

    config: Config
    #: The ``pyproject.toml`` read (``None``: none found, the defaults).
    source: Path | None
    #: ``[tool.tensorshape]`` could not be read: reported on each module (``config-error``).
    error: str | None = None

    @property
    def roots(self) -> tuple[Path, ...]:
        return tuple(self.config.root / r for r in self.config.roots)

    def settings(self) -> CheckSettings:
        """The settings ``tensorshape check`` uses (no command-line overrides)."""
        from tensorshape.cli.config import check_settings

        return check_settings(self.config)


@functools.cache
def base_data() -> dict[str, str]:
    """What every cached module depends on: the plugin's version and the stubs."""
    from tensorshape.rules.stubdir import stubs_digest

    return {"version": tensorshape.__version__, "stubs": stubs_digest()}


def files_digest(paths: list[str]) -> str:
    """One digest of the contents of ``paths`` (a missing file counts as such)."""
    h = hashlib.blake2b(digest_size=16)
    for p in paths:
        h.update(p.encode("utf-8", "surrogatepass") + b"\0")
        try:
            h.update(Path(p).read_bytes())
        except OSError:
            h.update(b"\0missing")
        h.update(b"\0")
    return h.hexdigest()


@dataclass(frozen=True, slots=True)
class Findings:
    """What reporting and incremental mode read of the analysis of one file (pickled by the worker)."""

    diagnostics: list[Diagnostic]
    #: (path, digest) of every file the analysis read.
    dependencies: list[tuple[str, str]]
    #: The shapes for the file's ``reveal_type`` calls (:func:`tensorshape_mypy.observe.find_reveals`).
    reveals: list[Reveal]
    #: The ``pyproject.toml`` the configuration came from (``None``: the defaults).
    config_source: str | None = None
    #: Why ``[tool.tensorshape]`` could not be read (then nothing was analysed: a ``config-error``).
    config_error: str | None = None

    def files(self) -> list[str]:
        """Every file the result depends on: the files the analysis read and the configuration."""
        source = [self.config_source] if self.config_source else []
        return sorted({os.path.realpath(p) for p in (*(p for p, _ in self.dependencies), *source)})


class Session:
    """The plugin's state for one mypy build (a new plugin instance per build)."""

    def __init__(self, cache_dir: str | None, *, keep_worker: bool = False) -> None:
        self._cache_dir = Path(cache_dir, "tensorshape") if cache_dir and cache_dir != os.devnull else None
        self._results: dict[str, Findings] = {}
        #: The worker analysing modules ahead of mypy (``None``: none reached).
        self._worker: Channel | None = None
        #: Keep the worker between builds (the daemon: its imports and caches serve the next edit).
        self._keep_worker = keep_worker
        #: A build of the daemon ended since the projects were made: files may have changed, so the
        #: next analysis starts from new projects (here and in the worker).
        self._stale = False
        #: Files sent to the worker whose findings were not read yet.
        self._pending: set[str] = set()
        self._configs: dict[Path, ProjectConfig] = {}
        self._by_folder: dict[str, ProjectConfig] = {}
        self._projects: dict[Path | None, Any] = {}
        self.analysed = 0

    # -- configuration ---------------------------------------------------------------------------
    def config_for(self, path: str) -> ProjectConfig:
        """The configuration ``tensorshape check`` finds for ``path`` (the nearest ``pyproject.toml``)."""
        folder = os.path.dirname(path)
        cfg = self._by_folder.get(folder)
        if cfg is None:
            from tensorshape.cli.config import find_pyproject

            pyproject = find_pyproject(Path(folder))
            key = pyproject or Path()
            cfg = self._configs.get(key)
            if cfg is None:
                cfg = self._configs[key] = _load(pyproject)
            self._by_folder[folder] = cfg
        return cfg

    # -- analysis -----------------------------------------------------------------------------
    def result(self, path: str) -> Findings:
        """The core's result for the file at ``path`` (analysed once per run, by the worker if it has it)."""
        key = os.path.realpath(path)
        if key in self._pending:
            self._collect(key)
        r = self._results.get(key)
        if r is None:
            r = self._results[key] = self._analyse(path)
        # The daemon: the next module parsed (in this build, or the next) is analysed anew.
        self._stale = self._keep_worker
        return r

    def prefetch(self, path: str, module: str | None = None) -> None:
        """Have the worker process analyse ``path`` while mypy type checks (mypy has just parsed it).

        Unless the findings kept for ``module`` (the last time mypy wrote its cache entry) are still
        those of the same contents of every file the analysis read: then nothing is analysed.
        """
        key = os.path.realpath(path)
        # mypy parses a file again (the daemon, after an edit): what was found before is stale.
        self._results.pop(key, None)
        if key in self._pending:
            return
        kept = self._kept(module) if module is not None else None
        if kept is not None:
            self._results[key] = kept
            return
        reset = self._stale
        if reset:
            self._stale = False
            self.reset()
        try:
            if self._worker is None:
                from .channel import open_channel

                self._worker = open_channel(None if self._keep_worker else self._cache_dir)
            self._worker.send(f"{key}\t{path}\t{'reset' if reset else ''}\n")
        except (OSError, ValueError):
            self._stop_worker()
            return
        self._pending.add(key)

    def _collect(self, key: str) -> None:
        """Read the worker's answers up to the one for ``key`` (a failed worker: analysed in-process)."""
        worker = self._worker
        while key in self._pending and worker is not None:
            try:
                got, findings = worker.receive()
            except Exception:  # a dead or confused worker: what is pending is analysed here
                self._stop_worker()
                return
            self._pending.discard(got)
            if isinstance(findings, Findings):
                self._results[got] = findings
        if not self._pending and not self._keep_worker:
            self._stop_worker()

    def _stop_worker(self) -> None:
        worker, self._worker = self._worker, None
        self._pending.clear()
        if worker is not None:
            worker.close()

    def warm_up(self) -> None:
        """Import the analysis and load the op table (the worker does this before its first request).

        Not sympy (0.3 s): it is imported where symbols first meet, and a project whose shapes are all
        ints never needs it.
        """
        import tensorshape.infer.api  # noqa: F401
        from tensorshape.rules.engine import table

        table()

    def _analyse(self, path: str) -> Findings:
        from dataclasses import replace

        from tensorshape.infer.api import check_file_guarded
        from tensorshape.infer.project import Project

        from .observe import find_reveals

        cfg = self.config_for(path)
        source = str(cfg.source) if cfg.source is not None else None
        if cfg.error is not None:
            return Findings([], [], [], source, cfg.error)
        project = self._projects.get(cfg.source)
        if project is None:
            # The installed packages the CLI follows from source (torchvision, timm...), as it does.
            project = self._projects[cfg.source] = Project(list(cfg.roots), cfg.config.libraries())
        self.analysed += 1
        # Codes off by default are produced, and mypy keeps them only where its options enable them.
        base = cfg.settings()
        # mypy applies `# type: ignore[...]` itself (and so counts one that silences a shape error as used).
        # The values of expressions are recorded (about 7% of the analysis) only for `reveal_type`.
        # Statistics are not reported through mypy: where their causes were met is not located.
        settings = replace(
            base,
            enable=base.enable | _OFF_BY_DEFAULT,
            record=_mentions_reveal(path),
            type_ignore=False,
            examples=False,
        )
        r = check_file_guarded(path, settings, project)
        # The analyzer and the parsed module are dropped here: only what reporting needs is kept.
        return Findings(r.diagnostics, r.dependencies, find_reveals(r), source)

    def reset(self) -> None:
        """Forget every project and configuration: the files they read may have changed since."""
        self._projects.clear()
        self._configs.clear()
        self._by_folder.clear()

    def forget(self, path: str) -> None:
        """Drop the result for ``path`` (the next :meth:`result` analyses the file again)."""
        self._results.pop(os.path.realpath(path), None)

    # -- incremental mode -------------------------------------------------------------------------
    def _kept(self, module: str) -> Findings | None:
        """The findings kept for ``module`` if every file their analysis read is unchanged."""
        import pickle  # (not on a warm run: nothing is parsed, nothing kept)

        f = self._deps_file(module)
        deps = self._read_deps(module)
        if f is None or deps is None:
            return None
        try:
            with f.with_suffix(".findings").open("rb") as stream:
                stored, findings = pickle.load(stream)
        except Exception:  # missing, truncated, from another version: analysed again
            return None
        fresh = stored == {**base_data(), "files": files_digest(deps)} and isinstance(findings, Findings)
        return findings if fresh else None

    def _keep(self, module: str, data: dict[str, str], findings: Findings) -> None:
        import pickle

        f = self._deps_file(module)
        if f is None:
            return
        f = f.with_suffix(".findings")
        try:
            tmp = f.with_suffix(f".{os.getpid()}.tmp")
            with tmp.open("wb") as stream:
                pickle.dump((data, findings), stream, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, f)
        except OSError:
            pass

    def config_data(self, module: str, path: str, is_check: bool, checked: bool) -> Any:
        """``report_config_data`` for one module: mypy re-checks it when this value changes.

        ``checked``: when mypy writes the module's cache entry (``is_check`` false), whether the plugin
        reports on it (a user module mypy does not silence).  A module has a list of the files its
        analysis read exactly when it was analysed, so the value mypy stored and the value computed
        when mypy checks it again agree while nothing changes.
        """
        if not is_user_path(path):
            return base_data()
        result = None
        if is_check:
            deps = self._read_deps(module)
        elif checked:
            # The configuration is one of the files the result depends on.
            result = self.result(path)
            deps = result.files()
            self._write_deps(module, deps)
        else:
            self._write_deps(module, None)
            deps = None
        if deps is None:
            return base_data()
        data = {**base_data(), "files": files_digest(deps)}
        if result is not None:
            # Kept for the next time mypy parses the module with these files unchanged (it re-checks
            # a dependent whose dependency's interface changed; its own options changed).
            self._keep(module, data, result)
        return data

    def _deps_file(self, module: str) -> Path | None:
        return self._cache_dir / f"{module}.json" if self._cache_dir is not None else None

    def _read_deps(self, module: str) -> list[str] | None:
        f = self._deps_file(module)
        if f is None:
            return None
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return [str(p) for p in data] if isinstance(data, list) else None

    def _write_deps(self, module: str, deps: list[str] | None) -> None:
        f = self._deps_file(module)
        if f is None:
            return
        if deps is None:
            f.unlink(missing_ok=True)
            return
        try:
            f.parent.mkdir(parents=True, exist_ok=True)
            tmp = f.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(deps), encoding="utf-8")
            os.replace(tmp, f)
        except OSError:
            pass


def _mentions_reveal(path: str) -> bool:
    try:
        return b"reveal_type" in Path(path).read_bytes()
    except OSError:
        return False


def _load(pyproject: Path | None) -> ProjectConfig:
    from tensorshape.cli.config import Config, ConfigError, load_config

    try:
        return ProjectConfig(load_config(pyproject) if pyproject is not None else Config(), pyproject)
    except ConfigError as e:
        return ProjectConfig(Config(), pyproject, str(e))
