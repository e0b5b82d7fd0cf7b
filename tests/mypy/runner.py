"""Run mypy with the tensorshape plugin in-process and parse its output."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mypy import api

from tests.expectations import ROOT

__all__ = ["Message", "Run", "Mypy"]

_LINE = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|note): (?P<msg>.*?)(?:  \[(?P<code>[a-z\-]+)\])?$"
)


@dataclass(frozen=True)
class Message:
    path: str
    line: int
    column: int
    severity: str
    message: str
    code: str | None


@dataclass(frozen=True)
class Run:
    stdout: str
    stderr: str
    status: int
    messages: tuple[Message, ...]

    def for_file(self, path: Path) -> list[Message]:
        return list(self._by_file.get(_rel(path), ()))

    @functools.cached_property
    def _by_file(self) -> dict[str, list[Message]]:
        # Each message's path resolved once, not once per file asked about (the parity corpus asks
        # about 537 files of one run's thousands of messages).
        out: dict[str, list[Message]] = {}
        resolved: dict[str, str] = {}
        for m in self.messages:
            rel = resolved.get(m.path)
            if rel is None:
                rel = resolved[m.path] = _rel(Path(m.path))
            out.setdefault(rel, []).append(m)
        return out


def _rel(p: Path) -> str:
    p = p if p.is_absolute() else ROOT / p
    try:
        return p.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return p.resolve().as_posix()


CONFIG = """\
[mypy]
plugins = tensorshape_mypy
check_untyped_defs = True
{extra}
"""


class Mypy:
    def __init__(self, base: Path) -> None:
        self.base = base

    def run(
        self,
        files: Iterable[Path | str],
        *,
        plugin: bool = True,
        extra: str = "",
        flags: Sequence[str] = (),
        cache: str = "plugin",
    ) -> Run:
        cfg = self.base / f"mypy-{cache}-{abs(hash(extra))}.ini"
        text = CONFIG.format(extra=extra) if plugin else "[mypy]\ncheck_untyped_defs = True\n" + extra
        cfg.write_text(text, encoding="utf-8")
        args = [
            "--config-file",
            str(cfg),
            "--cache-dir",
            str(self.base / f"cache-{cache}"),
            "--show-column-numbers",
            "--no-error-summary",
            "--hide-error-context",
            "--no-pretty",
            *flags,
            *[str(f) for f in files],
        ]
        out, err, status = api.run(args)
        msgs = []
        for line in out.splitlines():
            m = _LINE.match(line)
            if m:
                msgs.append(Message(m["path"], int(m["line"]), int(m["col"]) - 1, m["sev"], m["msg"], m["code"]))
        return Run(out, err, status, tuple(msgs))
