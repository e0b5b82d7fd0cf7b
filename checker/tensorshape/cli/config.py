"""Configuration from ``[tool.tensorshape]`` in ``pyproject.toml`` (and the command line).

.. code-block:: toml

    [tool.tensorshape]
    paths = ["src", "examples"]          # what `tensorshape check` checks by default
    exclude = ["tests/fixtures/*"]       # glob patterns (relative to the project root)
    severity = { TS104 = "warning", "unknown-op" = "note", TS109 = "off" }
    enable = ["runtime-obligation"]      # codes that are off by default
    vollo = false                        # apply the Vollo data-dimension rules
    allow_dynamic_weights = false        # mirror the Vollo compiler's flag
    cache_dir = ".tensorshape_cache"     # default: $XDG_CACHE_HOME/tensorshape
    jobs = 0                             # worker processes; 0 = one per core
    roots = ["src"]                      # extra folders to resolve imports from
    bare_type_ignore = false             # a bare `# type: ignore` also silences tensorshape
    follow_libraries = true              # analyse installed packages (torchvision, timm) from source
    python_executable = ".venv/bin/python"  # whose site-packages to follow (default: the running one)
    python_path = ["vendor"]             # more folders of installed packages, searched first
    library_exclude = ["mylib"]          # installed packages never followed
    library_include = ["torchvision"]    # when given, only these are followed
    library_cache_dir = "~/.cache/tensorshape/libraries"  # summaries of installed packages (shared)
    library_cache_max_mb = 1024          # bound of that folder; least recently used go first

    [tool.tensorshape.annotate]          # what `tensorshape annotate` traces and annotates
    include = ["src", "scripts/*.py"]    # paths and globs (relative to the project root; default: .)
    exclude = ["src/vendor", "test_*.py"]
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model import codes
from ..model.diagnostics import Severity
from ..rules.context import Options

if TYPE_CHECKING:
    # Imported where settings are made: the mypy plugin reads configurations without the analysis.
    from ..infer.libraries import Libraries
    from ..infer.result import CheckSettings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["Config", "ConfigError", "load_config", "find_pyproject", "default_cache_dir", "code_id", "check_settings"]

_KEYS = {
    "paths",
    "exclude",
    "severity",
    "enable",
    "vollo",
    "allow_dynamic_weights",
    "cache_dir",
    "jobs",
    "roots",
    "bare_type_ignore",
    "file_timeout",
    "follow_libraries",
    "python_executable",
    "python_path",
    "library_exclude",
    "library_include",
    "library_cache_dir",
    "library_cache_max_mb",
    "annotate",
}


class ConfigError(Exception):
    """Invalid configuration: reported as ``TS005 config-error`` with exit code 2."""


@dataclass(slots=True)
class Config:
    root: Path = field(default_factory=Path.cwd)
    source: Path | None = None
    paths: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    severity: dict[str, Severity | None] = field(default_factory=dict)
    enable: set[str] = field(default_factory=set)
    vollo: bool = False
    allow_dynamic_weights: bool = False
    cache_dir: Path | None = None
    jobs: int = 0
    roots: list[str] = field(default_factory=list)
    bare_type_ignore: bool = False
    #: Seconds one file's analysis may take before it is skipped (TS008); 0 turns the bound off.
    #: None: the analysis's own default (infer.deadline.DEFAULT_FILE_TIMEOUT, 60 s).
    file_timeout: float | None = None
    follow_libraries: bool = True
    python_executable: str | None = None
    python_path: list[str] = field(default_factory=list)
    library_exclude: list[str] = field(default_factory=list)
    library_include: list[str] | None = None
    #: The folder of library summaries (None: :func:`~tensorshape.infer.libraries.default_directory`).
    library_cache_dir: Path | None = None
    library_cache_max_mb: int = 1024
    #: ``[tool.tensorshape.annotate]``: the project's files ``annotate`` traces (None: the current
    #: folder) and those it leaves out, paths and globs relative to :attr:`root`
    annotate_include: list[str] | None = None
    annotate_exclude: list[str] = field(default_factory=list)

    def libraries(self, summaries: bool = True) -> Libraries | None:
        """The installed packages followed from source (``None``: none); ``summaries``: keep their
        summaries in the library cache folder across runs."""
        from ..infer.libraries import Libraries, default_directory

        if not self.follow_libraries:
            return None
        return Libraries.of_environment(
            self.python_executable,
            tuple(str(self.root / p) for p in self.python_path),
            tuple(self.library_exclude),
            tuple(self.library_include) if self.library_include is not None else None,
            str(self.library_cache_dir or default_directory()) if summaries else None,
            self.library_cache_max_mb << 20,
        )


def find_pyproject(start: Path) -> Path | None:
    try:
        d = start.resolve()
        if d.is_file():
            d = d.parent
        for cand in (d, *d.parents):
            p = cand / "pyproject.toml"
            if p.is_file():
                return p
    except (OSError, RuntimeError):  # a too-long path, a symlink loop: no configuration found there
        return None
    return None


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tensorshape"


def code_id(key: str, where: str = "") -> str:
    """The id (``TS101``) of a code given by id or name; :class:`ConfigError` for an unknown one."""
    code = codes.lookup(str(key))
    if code is None:
        prefix = f"{where}: " if where else ""
        raise ConfigError(f"{prefix}unknown diagnostic code {key!r} (see `tensorshape codes`)")
    return code.id


def check_settings(
    cfg: Config,
    *,
    enable: Iterable[str] = (),
    disable: Iterable[str] = (),
    severity: Mapping[str, Severity | None] | None = None,
    show_obligations: bool = False,
    vollo: bool | None = None,
    allow_dynamic_weights: bool | None = None,
    bare_type_ignore: bool | None = None,
) -> CheckSettings:
    """``cfg`` with overrides on top (the command line's flags, an editor's settings): codes by id or name."""
    sev: dict[str, Severity | None] = dict(cfg.severity)
    sev.update(severity or {})
    for k in disable:
        sev[code_id(k)] = None
    on = set(cfg.enable) | {code_id(k) for k in enable}
    if show_obligations:
        on.add(codes.OBLIGATION.id)
    options = Options(
        vollo=cfg.vollo if vollo is None else vollo,
        allow_dynamic_weights=cfg.allow_dynamic_weights if allow_dynamic_weights is None else allow_dynamic_weights,
    )
    bare = cfg.bare_type_ignore if bare_type_ignore is None else bare_type_ignore
    from ..infer.result import CheckSettings

    if cfg.file_timeout is None:
        return CheckSettings(options, sev, frozenset(on), bare_type_ignore=bare)
    return CheckSettings(options, sev, frozenset(on), bare_type_ignore=bare, file_timeout=cfg.file_timeout)


def _bool(table: dict[str, Any], key: str) -> bool:
    v = table[key]
    if not isinstance(v, bool):
        raise ConfigError(f"[tool.tensorshape] {key} must be true or false, got {v!r}")
    return v


def _strings(table: dict[str, Any], key: str, sub: str = "") -> list[str]:
    v = table[key]
    if isinstance(v, str):
        return [v]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        where = f"tensorshape.{sub}" if sub else "tensorshape"
        raise ConfigError(f"[tool.{where}] {key} must be a list of strings, got {v!r}")
    return list(v)


def load_config(explicit: Path | None = None, start: Path | None = None) -> Config:
    """Read the configuration (the nearest ``pyproject.toml`` upwards from ``start``)."""
    path = explicit or find_pyproject(start or Path.cwd())
    if path is None:
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: cannot read configuration: {e}") from None
    except RecursionError:
        raise ConfigError(f"{path}: cannot read configuration: nested too deeply") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table, got {tool!r}")
    table = tool.get("tensorshape", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.tensorshape] must be a table")
    unknown = set(table) - _KEYS
    if unknown:
        raise ConfigError(
            f"{path}: unknown [tool.tensorshape] keys: {', '.join(sorted(unknown))} (known: {', '.join(sorted(_KEYS))})"
        )
    cfg = Config(root=path.parent, source=path)
    for key in ("paths", "exclude", "roots", "python_path", "library_exclude", "library_include"):
        if key in table:
            setattr(cfg, key, _strings(table, key))
    if "severity" in table:
        sev = table["severity"]
        if not isinstance(sev, dict):
            raise ConfigError(f"{path}: [tool.tensorshape] severity must be a table of code = level")
        for k, v in sev.items():
            cid = code_id(k, f"{path}: severity")
            if not isinstance(v, str):
                raise ConfigError(f"{path}: severity.{k} must be error, warning, note or off, got {v!r}")
            if v == "off":
                cfg.severity[cid] = None
            else:
                try:
                    cfg.severity[cid] = Severity.parse(str(v))
                except ValueError as e:
                    raise ConfigError(f"{path}: severity.{k}: {e}") from None
    if "enable" in table:
        cfg.enable = {code_id(k, f"{path}: enable") for k in _strings(table, "enable")}
    if "python_executable" in table:
        exe = table["python_executable"]
        if not isinstance(exe, str) or not exe:
            raise ConfigError(f"{path}: [tool.tensorshape] python_executable must be a path, got {exe!r}")
        cfg.python_executable = str(path.parent.absolute() / exe) if "/" in exe else exe
    for key in ("vollo", "allow_dynamic_weights", "bare_type_ignore", "follow_libraries"):
        if key in table:
            setattr(cfg, key, _bool(table, key))
    if "cache_dir" in table:
        if not isinstance(table["cache_dir"], str) or not table["cache_dir"]:
            raise ConfigError(f"{path}: [tool.tensorshape] cache_dir must be a folder name, got {table['cache_dir']!r}")
        cfg.cache_dir = path.parent.absolute() / table["cache_dir"]
    if "library_cache_dir" in table:
        d = table["library_cache_dir"]
        if not isinstance(d, str) or not d:
            raise ConfigError(f"{path}: [tool.tensorshape] library_cache_dir must be a folder name, got {d!r}")
        cfg.library_cache_dir = path.parent.absolute() / Path(d).expanduser()
    if "library_cache_max_mb" in table:
        mb = table["library_cache_max_mb"]
        if type(mb) is not int or mb < 1:
            raise ConfigError(f"{path}: [tool.tensorshape] library_cache_max_mb must be a positive integer")
        cfg.library_cache_max_mb = mb
    if "jobs" in table:
        if type(table["jobs"]) is not int or table["jobs"] < 0:
            raise ConfigError(f"{path}: [tool.tensorshape] jobs must be a non-negative integer")
        cfg.jobs = table["jobs"]
    if "annotate" in table:
        sub = table["annotate"]
        if not isinstance(sub, dict):
            raise ConfigError(f"{path}: [tool.tensorshape.annotate] must be a table")
        odd = set(sub) - {"include", "exclude"}
        if odd:
            raise ConfigError(
                f"{path}: unknown [tool.tensorshape.annotate] keys: {', '.join(sorted(odd))} (known: exclude, include)"
            )
        if "include" in sub:
            cfg.annotate_include = _strings(sub, "include", "annotate")
        if "exclude" in sub:
            cfg.annotate_exclude = _strings(sub, "exclude", "annotate")
    if "file_timeout" in table:
        t = table["file_timeout"]
        if type(t) not in (int, float) or not 0 <= t < float("inf"):
            raise ConfigError(f"{path}: [tool.tensorshape] file_timeout must be a number of seconds (0: no bound)")
        cfg.file_timeout = float(t)
    return cfg
