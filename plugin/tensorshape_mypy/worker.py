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

``--serve SOCKET --idle SECONDS``: the worker kept between mypy runs (``channel.py``): the same
protocol on each connection to a Unix socket, one run at a time, each from new projects; a
``stop`` command ends it, and so do ``SECONDS`` without a connection.
``--stop CACHE_DIR``: end the kept worker of the project with that mypy cache.
"""

from __future__ import annotations

import os
import pickle
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .session import Session


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--stop"] and len(args) == 2:
        from .channel import stop_kept

        # Nothing to stop is no failure: the command's purpose, no worker left running, holds.
        print("stopped the kept worker" if stop_kept(Path(args[1], "tensorshape")) else "no kept worker was running")
        return 0
    if args[:1] == ["--serve"] and len(args) == 4 and args[2] == "--idle":
        return serve(Path(args[1]), float(args[3]))
    from .session import Session

    _tune_gc()
    session = Session(None)
    session.warm_up()
    settle()
    answer_all(session, sys.stdin.buffer, sys.stdout.buffer)
    return 0


def serve(path: Path, idle: float) -> int:
    """Listen at ``path`` and serve one mypy run per connection, until ``idle`` seconds pass without one."""
    import os
    import signal
    import socket

    from .session import Session

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(path))  # before the imports: a run's requests wait in the socket meanwhile
    except OSError:  # another worker listens there
        return 1
    # Ended by a signal: still remove the socket.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        os.chmod(path, 0o600)
        path.with_suffix(".pid").write_text(str(os.getpid()), encoding="utf-8")
        listener.listen(4)
        listener.settimeout(idle)
        _tune_gc()
        session = Session(None)
        session.warm_up()
        settle()
        while True:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                return 0
            conn.settimeout(None)
            session.reset()  # files may have changed since the last run
            unsettle()
            with conn, conn.makefile("rb") as requests, conn.makefile("wb") as out:
                try:
                    if not answer_all(session, requests, out):
                        return 0
                except OSError:  # the run went away: wait for the next
                    continue
    finally:
        listener.close()
        path.unlink(missing_ok=True)
        path.with_suffix(".lock").unlink(missing_ok=True)
        path.with_suffix(".pid").unlink(missing_ok=True)


def answer_all(session: Session, requests: IO[bytes], out: IO[bytes]) -> bool:
    """Answer each request until the input ends (``True``) or a ``stop`` command (``False``).

    The requests are read as they come, by a thread, whatever the analysis is doing: the plugin sends
    every module before it reads an answer, so a worker that stopped reading while its answers waited
    to be read would stop the plugin too (``channel.py``).
    """
    import queue
    import threading

    lines: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()

    def read() -> None:
        try:
            for raw in requests:
                lines.put(raw)
        except (OSError, ValueError):  # the run went away
            pass
        lines.put(None)

    threading.Thread(target=read, name="tensorshape-requests", daemon=True).start()
    while (raw := lines.get()) is not None:
        key, path, command = raw.decode("utf-8", "surrogateescape").rstrip("\n").split("\t")
        if command == "stop":
            return False
        if command == "reset":
            session.reset()
            unsettle()
        answer: tuple[str, Any]
        try:
            answer = (key, session.result(path))
        except Exception:  # the plugin analyses in-process and reports what happens there
            answer = (key, None)
        session.forget(path)
        pickle.dump(answer, out, protocol=pickle.HIGHEST_PROTOCOL)
        out.flush()
        settle()
    return True


def _tune_gc() -> None:
    """The CLI's batch settings for the collector (``tensorshape.infer.memory``): the worker keeps
    every parsed module of its projects, as a run of ``tensorshape check`` does."""
    from tensorshape.infer.memory import tune_gc

    tune_gc()


def settle() -> None:
    """What is alive after start-up or an answer stays (the project's trees, the imports): kept out of
    the collector's way."""
    import gc

    gc.freeze()


def unsettle() -> None:
    """The projects were forgotten (the daemon's next build, the kept worker's next run): what they held
    can be collected again."""
    import gc

    gc.unfreeze()


if __name__ == "__main__":
    status = main()
    # Every answer is written and the socket removed: the interpreter's teardown (freeing every
    # parsed tree, sympy's caches, every module: 0.2-0.3 s) would only delay mypy, which waits
    # for its worker to end.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
