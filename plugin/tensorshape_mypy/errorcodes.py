"""mypy error codes: one per tensorshape diagnostic code, named like it.

``# type: ignore[shape-mismatch]``, ``disable_error_code`` and
``enable_error_code`` work as for mypy's own codes.  Codes that tensorshape
turns off by default (``unknown-op``, ``runtime-obligation``) are off in mypy too.

The CLI also reads a code's id in ``# type: ignore[TS101]``; so does mypy: each
code is a sub-code of one named by its id (mypy ignores an error whose code's
parent is named in the comment, and ``disable_error_code = TS101`` turns off its
sub-codes).  :func:`count_id_ignores` makes such an ignore count as used.
"""

from __future__ import annotations

from typing import Final

from mypy.errorcodes import ErrorCode
from mypy.errors import Errors
from tensorshape.model.codes import ALL_CODES
from tensorshape.model.diagnostics import Code

__all__ = ["CATEGORY", "ERROR_CODES", "error_code", "count_id_ignores"]

CATEGORY: Final = "tensorshape"


def _code(c: Code) -> ErrorCode:
    by_id = ErrorCode(c.id, c.summary, CATEGORY, default_enabled=c.default_enabled)
    return ErrorCode(c.name, c.summary, CATEGORY, default_enabled=c.default_enabled, sub_code_of=by_id)


#: By tensorshape code id (``TS101``).
ERROR_CODES: Final[dict[str, ErrorCode]] = {c.id: _code(c) for c in ALL_CODES.values()}


def error_code(code: Code) -> ErrorCode:
    return ERROR_CODES[code.id]


def count_id_ignores(errors: Errors, code: ErrorCode, line: int) -> None:
    """An error of ``code`` just reported at ``line`` (where mypy applies ignores to it) that a ``# type: ignore[TS101]`` there silenced:
    mark the id used too.  mypy marks the name it recorded (``shape-mismatch``), and would otherwise
    call the id unused under ``--warn-unused-ignores`` ("use narrower [shape-mismatch]"): the two
    name one code."""
    parent = code.sub_code_of
    if parent is None:
        return
    ignores = errors.ignored_lines.get(errors.file)
    if not ignores:
        return
    used = errors.used_ignored_lines[errors.file][line]
    if parent.code in ignores.get(line, ()) and code.code in used and parent.code not in used:
        used.append(parent.code)
