"""The analysis in a second process, while mypy is busy with everything else.

mypy spends most of a run on torch (parsing it cold, reading its cache warm).
The plugin hands each user module to this worker when mypy has parsed it
(``get_additional_deps``), so the core's start-up (libcst, sympy, the op table)
and the analysis overlap with mypy's own work, and the plugin collects the
findings once mypy has type checked the module.

Protocol: one request per line on stdin (``key<TAB>path``); one pickled
``(key, diagnostics, dependencies)`` per request on stdout (``None`` for the
diagnostics when the analysis failed: the plugin then analyses in-process).
The worker ends when stdin closes.
"""

from __future__ import annotations

import pickle
import sys
from typing import Any


def main() -> int:
    from .session import Session

    session = Session(None)
    session.warm_up()
    out = sys.stdout.buffer
    for line in sys.stdin:
        key, _, path = line.rstrip("\n").partition("\t")
        answer: tuple[str, Any, list[tuple[str, str]]]
        try:
            r = session.result(path)
            answer = (key, r.diagnostics, r.dependencies)
        except Exception:  # the plugin analyses in-process and reports what happens there
            answer = (key, None, [])
        session.forget(path)
        pickle.dump(answer, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
