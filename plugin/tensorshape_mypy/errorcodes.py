"""mypy error codes: one per tensorshape diagnostic code, named like it.

``# type: ignore[shape-mismatch]``, ``disable_error_code`` and
``enable_error_code`` work as for mypy's own codes.  Codes that tensorshape
turns off by default (``unknown-op``, ``runtime-obligation``) are off in mypy too.
"""

from __future__ import annotations

from typing import Final

from mypy.errorcodes import ErrorCode
from tensorshape.model.codes import ALL_CODES
from tensorshape.model.diagnostics import Code

__all__ = ["CATEGORY", "ERROR_CODES", "error_code"]

CATEGORY: Final = "tensorshape"

#: By tensorshape code id (``TS101``).
ERROR_CODES: Final[dict[str, ErrorCode]] = {
    c.id: ErrorCode(c.name, c.summary, CATEGORY, default_enabled=c.default_enabled) for c in ALL_CODES.values()
}


def error_code(code: Code) -> ErrorCode:
    return ERROR_CODES[code.id]
