"""``reveal_type(x)`` shows the shape the core analysis found: ``Revealed type is "torch._tensor.Tensor[b, 3]"``.

mypy special-cases ``reveal_type`` (no plugin hook sees the call) and formats
the note itself.  The analysis (in the worker, :mod:`tensorshape_mypy.observe`)
found, for each ``reveal_type(...)`` call, where the revealed expression starts
and the shapes of the tensors it observed for it; once the module is checked,
the plugin finds mypy's note at that place and writes the shapes into it.  A
note is changed only when every unshaped ``torch._tensor.Tensor`` in mypy's
text is matched with one of the core's tensors.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from mypy.errors import ErrorInfo, Errors

if TYPE_CHECKING:
    from .observe import Reveal  # the analysis's side: libcst is never imported by mypy's process

__all__ = ["PREFIX", "rewrite_note", "rewrite_reveals"]

PREFIX = 'Revealed type is "'
_TENSOR = re.compile(r"torch\._tensor\.Tensor(?!\[)")


def rewrite_reveals(errors: Errors, path: str, reveals: Iterable[Reveal]) -> None:
    """Put the core's shapes into mypy's ``Revealed type is "..."`` notes of the file at ``path``."""
    infos = errors.error_info_map.get(path) or []
    notes = {(i.line, i.column): i for i in infos if i.severity == "note" and i.message.startswith(PREFIX)}
    if not notes:
        return
    for line, column, lpar, shapes in reveals:
        note = _note_at(notes, line, column, lpar)
        if note is not None:
            _put(note, shapes)


def rewrite_note(note: ErrorInfo, reveals: Iterable[Reveal]) -> None:
    """Put the core's shapes into one ``Revealed type is "..."`` note, as mypy records it."""
    for line, column, lpar, shapes in reveals:
        if note.line == line and column - lpar <= note.column <= column:
            _put(note, shapes)
            return


def _put(note: ErrorInfo, shapes: tuple[str | None, ...]) -> None:
    if len(_TENSOR.findall(note.message)) == len(shapes):
        note.message = _fill(note.message, shapes)


def _note_at(notes: dict[tuple[int, int], ErrorInfo], line: int, column: int, lpar: int) -> ErrorInfo | None:
    # A parenthesized expression (a tuple display): mypy starts it at the first parenthesis.
    for shift in range(lpar + 1):
        note = notes.get((line, column - shift))
        if note is not None:
            return note
    return None


def _fill(message: str, shapes: tuple[str | None, ...]) -> str:
    """``message`` with each unshaped tensor type given its shape, in order."""
    it = iter(shapes)

    def one(m: re.Match[str]) -> str:
        shape = next(it)
        return m.group(0) if shape is None else f"{m.group(0)}[{shape}]"

    return _TENSOR.sub(one, message)
