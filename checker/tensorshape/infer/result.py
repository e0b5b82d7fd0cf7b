"""What a check is asked to do and what it gives back (:class:`CheckSettings`, :class:`FileResult`).

Kept apart from :mod:`.api` so that the command line, the cache and the reports read and write
results without importing libcst and the op table (a run whose files are all cached needs neither).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..model import codes
from ..model.diagnostics import Diagnostic, Severity, Span
from ..model.obligations import Obligation
from ..rules.context import Options
from .deadline import DEFAULT_FILE_TIMEOUT

if TYPE_CHECKING:
    from .analyzer import Analyzer
    from .project import ModuleInfo

__all__ = ["CheckSettings", "FileResult", "crash_result"]


@dataclass(frozen=True, slots=True)
class CheckSettings:
    """What to check and how to report it."""

    options: Options = field(default_factory=Options)
    #: Severity overrides by code id (``TS101``); ``None`` turns a code off.
    severity: Mapping[str, Severity | None] = field(default_factory=dict)
    #: Codes off by default that are turned on (``TS006`` unknown-op, ``TS901`` obligations).
    enable: frozenset[str] = frozenset()
    #: Keep runtime obligations (``tensorshape instrument``).
    obligations: bool = False
    #: Keep every tensor expression's value (LSP hover and inlay hints).
    record: bool = False
    #: A bare ``# type: ignore`` (no codes) also silences tensorshape on its line.
    bare_type_ignore: bool = False
    #: Honour ``# type: ignore[...]`` comments.  The mypy plugin turns this off: mypy applies them
    #: itself, and so counts an ignore that silences a shape error as used.
    type_ignore: bool = True
    #: Seconds one file's analysis may take before it is reported as skipped (0: no bound).
    file_timeout: float = DEFAULT_FILE_TIMEOUT
    #: Locate where each counted cause was first met (:attr:`FileResult.examples`, for ``--statistics``
    #: and the JSON summary).  ``tensorshape check`` turns this on only for those, and the mypy plugin
    #: and the language server, which show no statistics, turn it off: a location costs a code
    #: generation of the statement (class member) that holds it (a fifth of the analysis of the
    #: annotated models of ``benchmarks/annotated_models.py``).
    examples: bool = True


@dataclass(slots=True)
class FileResult:
    path: str
    diagnostics: list[Diagnostic]
    obligations: list[Obligation] = field(default_factory=list)
    #: Counts: ``known``/``symbolic``/``unknown`` tensor expressions, ``unknown-op``...
    stats: dict[str, int] = field(default_factory=dict)
    #: ``(path, content digest)`` of every project file the result depends on.
    dependencies: list[tuple[str, str]] = field(default_factory=list)
    #: The analyzer (kept only with ``record``: the LSP reads observations from it).
    analyzer: Analyzer | None = None
    module: ModuleInfo | None = None
    #: Functions that were not analysed: ``(reason, line, column, name)`` (also counted in ``stats``).
    unanalysed: list[tuple[str, int, int, str]] = field(default_factory=list)
    #: Where each counted cause of ``stats`` (``unknown-op:...``, ``unknown:...``, ``cause:...``) was
    #: first met: ``path:line:column``.
    examples: dict[str, str] = field(default_factory=dict)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity is Severity.ERROR]


def crash_result(path: str, why: str) -> FileResult:
    """The result of a file the analysis failed on."""
    d = Diagnostic(
        codes.INTERNAL_ERROR,
        f"tensorshape failed on this file ({why})",
        Span(1, 0, 1, 0),
        Severity.ERROR,
        "please report this with the file that triggers it",
        path,
    )
    return FileResult(path, [d])
