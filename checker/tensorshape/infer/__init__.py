"""The libcst front end: an abstract interpreter over libcst trees.

``check_source(text)`` and ``check_file(path)`` give a :class:`FileResult`
with the diagnostics (real spans, 1-based lines, 0-based columns).

The names are imported on first use: the command line imports this package's light modules
(settings, results, the cache's reading of sources) without libcst and the op table, which a run
whose files are all cached never needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import CheckSettings, FileResult, check_file, check_source

__all__ = ["CheckSettings", "FileResult", "check_file", "check_source"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
