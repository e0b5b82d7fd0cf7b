"""The libcst front end: an abstract interpreter over libcst trees.

``check_source(text)`` and ``check_file(path)`` give a :class:`FileResult`
with the diagnostics (real spans, 1-based lines, 0-based columns).
"""

from .api import CheckSettings, FileResult, check_file, check_source

__all__ = ["CheckSettings", "FileResult", "check_file", "check_source"]
