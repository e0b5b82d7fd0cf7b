"""``tensorshape instrument``: insert runtime checks exactly where the analysis could not decide.

Every inserted line ends with ``# tensorshape: instrument``; removing those
lines restores the file byte for byte.  See ``docs/runtime.md``.
"""

from __future__ import annotations

from .edit import MARKER, InstrumentResult, instrument_source, remove

__all__ = ["instrument_source", "remove", "InstrumentResult", "MARKER"]
