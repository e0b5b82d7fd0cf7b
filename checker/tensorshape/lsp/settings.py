"""What the server checks with: ``[tool.tensorshape]`` from the workspace's ``pyproject.toml``, then the
editor's settings on top, the way command-line flags go on top of it in ``tensorshape check``.

The editor sends ``{"tensorshape": {...}}`` (or the inner table alone) as ``initializationOptions`` and in
``workspace/didChangeConfiguration``; each message replaces the previous editor settings.  Keys:

- ``enable``, ``disable``: lists of codes (id or name), added to the configured ones;
- ``severity``: ``{code: "error" | "warning" | "note" | "off"}``, on top of the configured table;
- ``show_obligations``: report runtime obligations (``TS901``);
- ``vollo``, ``allow_dynamic_weights``: override the configured values;
- ``exclude``: glob patterns (relative to the project root) added to the configured ones: documents that
  match get no diagnostics.

A key or code the server does not know is left out and named in :attr:`ServerSettings.problems` (the server
shows them), so one mistyped setting does not stop the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cli.config import Config, ConfigError, check_settings, code_id, load_config
from ..cli.files import excluded
from ..infer.api import CheckSettings
from ..model.diagnostics import Severity

__all__ = ["ServerSettings", "server_settings", "CLIENT_KEYS"]

CLIENT_KEYS = ("enable", "disable", "severity", "show_obligations", "vollo", "allow_dynamic_weights", "exclude")


@dataclass(frozen=True, slots=True)
class ServerSettings:
    check: CheckSettings = field(default_factory=CheckSettings)
    #: The project root (the folder of the ``pyproject.toml`` read, else the workspace folder).
    root: Path | None = None
    exclude: tuple[str, ...] = ()
    #: Extra folders to resolve imports from (``roots`` in ``[tool.tensorshape]``).
    import_roots: tuple[Path, ...] = ()
    #: What was wrong with the configuration or the editor's settings (each one line).
    problems: tuple[str, ...] = ()

    def excludes(self, path: str) -> bool:
        return bool(self.exclude) and self.root is not None and excluded(Path(path), self.root, self.exclude)


def _strings(value: Any, key: str, problems: list[str]) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return list(value)
    problems.append(f"setting {key} must be a list of strings, got {value!r}")
    return []


def _codes(values: list[str], key: str, problems: list[str]) -> list[str]:
    out = []
    for v in values:
        try:
            out.append(code_id(v))
        except ConfigError as e:
            problems.append(f"setting {key}: {e}")
    return out


def _bool(value: Any, key: str, problems: list[str]) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    problems.append(f"setting {key} must be true or false, got {value!r}")
    return None


def _severity(value: Any, problems: list[str]) -> dict[str, Severity | None]:
    if not isinstance(value, dict):
        problems.append(f"setting severity must be a table of code = level, got {value!r}")
        return {}
    out: dict[str, Severity | None] = {}
    for k, level in value.items():
        ids = _codes([str(k)], "severity", problems)
        if not ids:
            continue
        try:
            out[ids[0]] = None if level == "off" else Severity.parse(str(level))
        except ValueError as e:
            problems.append(f"setting severity.{k}: {e}")
    return out


def server_settings(workspace: Path | None, options: Any) -> ServerSettings:
    """``[tool.tensorshape]`` of the nearest ``pyproject.toml`` from ``workspace`` up, with the editor's
    ``options`` on top."""
    problems: list[str] = []
    cfg = Config(root=workspace) if workspace is not None else Config()
    if workspace is not None:
        try:
            cfg = load_config(None, workspace)
        except ConfigError as e:  # a broken configuration must not stop the server: it says why instead
            problems.append(str(e))
    opts: Any = options.get("tensorshape", options) if isinstance(options, dict) else {}
    if not isinstance(opts, dict):
        problems.append(f"settings must be a table, got {opts!r}")
        opts = {}
    unknown = sorted(set(opts) - set(CLIENT_KEYS))
    if unknown:
        problems.append(f"unknown settings: {', '.join(map(str, unknown))} (known: {', '.join(CLIENT_KEYS)})")
    check = check_settings(
        cfg,
        enable=_codes(_strings(opts.get("enable", []), "enable", problems), "enable", problems),
        disable=_codes(_strings(opts.get("disable", []), "disable", problems), "disable", problems),
        severity=_severity(opts.get("severity", {}), problems),
        show_obligations=bool(_bool(opts.get("show_obligations"), "show_obligations", problems)),
        vollo=_bool(opts.get("vollo"), "vollo", problems),
        allow_dynamic_weights=_bool(opts.get("allow_dynamic_weights"), "allow_dynamic_weights", problems),
    )
    exclude = (*cfg.exclude, *_strings(opts.get("exclude", []), "exclude", problems))
    root = cfg.root if workspace is not None else None
    roots = tuple(cfg.root / r for r in cfg.roots)
    return ServerSettings(check, root, exclude, roots, tuple(problems))
