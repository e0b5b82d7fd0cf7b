"""``--format github``: GitHub Actions workflow commands, shown as annotations on the diff."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ..infer.result import FileResult
from ..model.diagnostics import Severity
from .summary import all_diagnostics

__all__ = ["render_github"]

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def repository_root(start: Path | None = None) -> Path:
    """Where annotation paths start: ``$GITHUB_WORKSPACE`` in GitHub Actions, else the enclosing git
    checkout, else the working directory."""
    workspace = os.environ.get("GITHUB_WORKSPACE")
    if workspace:
        return Path(workspace).resolve()
    here = (start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        if (d / ".git").exists():
            return d
    return here


def _repo_path(path: str | None, root: Path) -> str:
    """``path`` relative to the repository root, as GitHub matches annotations to files."""
    if not path:
        return ""
    p = Path(path).resolve()
    try:
        return p.relative_to(root).as_posix()
    except ValueError:
        return p.as_posix()


def render_github(results: Sequence[FileResult], **_: object) -> str:
    out = []
    root = repository_root()
    for d in all_diagnostics(results):
        s = d.span
        props = (
            f"file={_escape_prop(_repo_path(d.path, root))},line={s.line},col={s.column + 1},"
            f"endLine={s.end_line},endColumn={s.end_column + 1},title={_escape_prop(f'{d.code.id} {d.code.name}')}"
        )
        msg = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        out.append(f"::{_LEVEL[d.severity]} {props}::{_escape_data(msg)}")
    return "\n".join(out) + ("\n" if out else "")
