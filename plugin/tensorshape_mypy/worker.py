"""The analysis in a second process, while mypy is busy with everything else.

mypy spends most of a run on torch (parsing it cold, reading its cache warm).
The plugin hands each user module to this worker when mypy has parsed it
(``get_additional_deps``), so the core's start-up (libcst, sympy, the op table)
and the analysis overlap with mypy's own work, and the plugin collects the
findings once mypy has type checked the module.

Protocol: one request per line on stdin (``key<TAB>path<TAB>``, or ``...<TAB>reset`` to
forget every project and configuration first: the daemon's next build); one pickled
``(key, findings)`` per request on stdout (a :class:`~tensorshape_mypy.session.Findings`,
``None`` when the analysis failed: the plugin then analyses in-process).
The worker ends when stdin closes: after the last module of a build, or with the
daemon (``dmypy``), which keeps it for the next build.  A file sent again is
analysed again (after a ``reset``, with every file it reads read again).
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
        key, path, command = line.rstrip("\n").split("\t")
        if command == "reset":
            session.reset()
        answer: tuple[str, Any]
        try:
            answer = (key, session.result(path))
        except Exception:  # the plugin analyses in-process and reports what happens there
            answer = (key, None)
        session.forget(path)
        pickle.dump(answer, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
