"""Diagnostics: what tensorshape reports, with a stable code, a span and a hint."""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

__all__ = ["Severity", "Span", "Related", "Code", "Diagnostic"]


class Severity(enum.IntEnum):
    NOTE = 0
    WARNING = 1
    ERROR = 2

    def __str__(self) -> str:
        return self.name.lower()

    @staticmethod
    def parse(text: str) -> Severity:
        try:
            return Severity[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown severity {text!r} (expected error, warning, note or off)") from None


@dataclass(frozen=True, slots=True, order=True)
class Span:
    """A source range.

    Lines are 1-based; columns are 0-based counts of code points, as in
    :mod:`ast`, libcst and mypy.  Reporters convert to what their format wants
    (1-based columns for text, JSON and SARIF; UTF-16 units for LSP).
    """

    line: int
    column: int
    end_line: int
    end_column: int

    @staticmethod
    def point(line: int, column: int) -> Span:
        return Span(line, column, line, column + 1)

    def shifted(self, columns: int) -> Span:
        return replace(self, column=self.column + columns, end_column=self.end_column + columns)


@dataclass(frozen=True, slots=True)
class Code:
    """A diagnostic code: stable id (``TS101``), kebab-case name and defaults."""

    #: Stable numeric id, used in text output, SARIF rule ids and suppressions.
    id: str
    #: Kebab-case name, used as the mypy error code and accepted in suppressions.
    name: str
    #: Severity unless configured otherwise.
    severity: Severity
    #: One line: what the code means (docs, SARIF ``shortDescription``).
    summary: str
    #: Reported unless enabled explicitly?
    default_enabled: bool = True


@dataclass(frozen=True, slots=True)
class Related:
    """A secondary location that explains a diagnostic ("``b`` bound here")."""

    span: Span
    message: str
    path: str | None = None


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: Code
    #: One line naming the shapes and dims involved.
    message: str
    span: Span
    severity: Severity
    #: How to fix it, or ``None``.
    hint: str | None = None
    #: The file, set by the front end.
    path: str | None = None
    related: tuple[Related, ...] = ()

    def with_path(self, path: str) -> Diagnostic:
        return replace(self, path=path)

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path or "", self.span.line, self.span.column, self.code.id)
