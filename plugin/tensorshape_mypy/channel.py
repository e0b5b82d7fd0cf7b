"""How the plugin reaches its worker: a child process of this mypy run, or one kept between runs.

By default the worker is a child of the mypy process, started at the first module to analyse and
ended with the run (``worker.py``).  With ``TENSORSHAPE_MYPY_WORKER_IDLE=<seconds>`` in the
environment, the worker is kept between separate ``mypy`` runs of one project (one mypy cache
directory): it listens on a Unix socket in the temporary directory, named after the cache
directory, the Python environment (``sys.prefix``) and tensorshape's version, serves one mypy run
at a time, starts each run from new projects (files may have changed; its imports and sympy's
caches stay), and ends after that many seconds without a run (or at SIGTERM), removing its socket.  A second mypy run of the same project
while one is served (a lock beside the socket) uses a worker of its own, as without the variable.
``python -m tensorshape_mypy.worker --stop CACHE_DIR`` ends a kept worker at once.

Whatever the channel, an answer that does not come (a dead worker, ``TIMEOUT`` seconds without one
from a kept worker) makes the plugin analyse in-process: mypy never waits on a worker that is gone.

Neither side blocks the other: the plugin sends every module as mypy parses it and reads no answer
until mypy has type checked the first, so the answers are read as they come, by a thread of the
plugin, into a queue (and the worker reads its requests the same way, ``worker.py``).  Before, a
project whose answers filled the pipe (64 KiB) while its requests filled the other one stopped both
processes for good (seen in CI at 544 files).
"""

from __future__ import annotations

import hashlib
import os
import queue
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import tensorshape

if TYPE_CHECKING:
    import socket
    import subprocess

__all__ = ["Channel", "open_channel", "socket_path", "keep_seconds", "stop_kept", "TIMEOUT"]

#: Seconds a kept worker may take for one answer before the plugin gives up on it.
TIMEOUT = 600.0
#: Seconds a new kept worker has to start listening.
_START = 10.0


def keep_seconds() -> float:
    """``TENSORSHAPE_MYPY_WORKER_IDLE``: how long a kept worker waits for the next run (0: not kept)."""
    try:
        return max(0.0, float(os.environ.get("TENSORSHAPE_MYPY_WORKER_IDLE", "0") or 0))
    except ValueError:
        return 0.0


def socket_path(cache_dir: Path) -> Path:
    """The socket of the kept worker of the project whose mypy cache is ``cache_dir``."""
    key = f"{os.path.realpath(cache_dir)}\0{os.path.realpath(sys.prefix)}\0{tensorshape.__version__}"
    digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir(), f"tensorshape-mypy-{uid}-{digest}.sock")


class Channel:
    """Requests to a worker (one line each) and its pickled answers."""

    def __init__(
        self,
        out: IO[bytes],
        answers: IO[bytes],
        process: subprocess.Popen[bytes] | None = None,
        sock: socket.socket | None = None,
        lock: IO[bytes] | None = None,
    ) -> None:
        self._out = out
        self._answers = answers
        self._process = process
        self._sock = sock
        self._lock = lock
        #: Answers read off the worker's stream; an exception when it ended or could not be read.
        self._queue: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()
        self._reader = threading.Thread(target=self._read, name="tensorshape-answers", daemon=True)
        self._reader.start()

    @property
    def kept(self) -> bool:
        """A worker kept between runs (not a child of this process)."""
        return self._sock is not None

    def running(self) -> bool:
        """The worker has not ended (a kept one: as far as this process can tell)."""
        return self._process is None or self._process.poll() is None

    def send(self, line: str) -> None:
        self._out.write(line.encode("utf-8", "surrogateescape"))
        self._out.flush()

    def receive(self) -> Any:
        """The next answer; raises when the worker ended, its stream broke, or (a kept worker)
        ``TIMEOUT`` seconds passed without one."""
        try:
            ok, value = self._queue.get(timeout=TIMEOUT if self.kept else None)
        except queue.Empty:
            raise TimeoutError("no answer from the kept worker") from None
        if not ok:
            self._queue.put((ok, value))  # every later receive fails the same way
            raise value
        return value

    def _read(self) -> None:
        import pickle

        while True:
            try:
                value = pickle.load(self._answers)
            except BaseException as e:  # the end of the stream (EOFError), a broken one, a closed file
                self._queue.put((False, e if isinstance(e, Exception) else EOFError()))
                return
            self._queue.put((True, value))

    def close(self) -> None:
        """End the run's use of the worker: a child ends (it reads the end of its input), a kept one
        waits for the next run."""
        try:
            self._out.close()
        except OSError:
            pass
        if self._sock is not None:
            import socket

            try:
                self._sock.shutdown(socket.SHUT_RDWR)  # wakes the reader; the worker sees the end
            except OSError:
                pass
            self._sock.close()
        if self._lock is not None:
            self._lock.close()  # releases the lock
        if self._process is not None:
            import subprocess

            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        # The worker is gone, so the reader reads the end of its stream (or soon will).
        self._reader.join(timeout=1)
        try:
            self._answers.close()
        except (OSError, ValueError):
            pass


def open_channel(cache_dir: Path | None) -> Channel:
    """A channel to the kept worker of the project (started if none listens), when the environment
    asks for one and this run is the only one using it; otherwise to a new child worker."""
    idle = keep_seconds()
    if idle > 0 and cache_dir is not None:
        kept = _kept(socket_path(cache_dir), idle)
        if kept is not None:
            return kept
    return _child()


def _child() -> Channel:
    """The worker as a child of this process, importing exactly what it imports (the same ``sys.path``)."""
    import subprocess

    proc = subprocess.Popen(
        [sys.executable, "-m", "tensorshape_mypy.worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(),
    )
    assert proc.stdin is not None and proc.stdout is not None
    return Channel(proc.stdin, proc.stdout, process=proc)


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))


def _kept(path: Path, idle: float) -> Channel | None:
    """A channel to the worker listening at ``path`` (started here if none does); ``None`` when another
    run holds it or it cannot be reached."""
    import fcntl

    try:
        lock = open(path.with_suffix(".lock"), "ab")  # noqa: SIM115 - held until the channel closes
    except OSError:
        return None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        return None
    sock = _connect(path)
    if sock is None:
        import subprocess

        # A socket left by a worker that died is in the way of a new one.
        try:
            path.unlink(missing_ok=True)
            subprocess.Popen(
                [sys.executable, "-m", "tensorshape_mypy.worker", "--serve", str(path), "--idle", str(idle)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=_env(),
                start_new_session=True,  # not ended with this run's process group
            )
        except OSError:
            _release(lock, path)
            return None
        deadline = time.monotonic() + _START
        while sock is None and time.monotonic() < deadline:
            time.sleep(0.02)
            sock = _connect(path)
    if sock is None:
        _release(lock, path)
        return None
    # No timeout on the socket: a wait for an answer has its own (``receive``), and the worker always
    # reads what is sent.
    sock.settimeout(None)
    return Channel(sock.makefile("wb"), sock.makefile("rb"), sock=sock, lock=lock)


def _release(lock: IO[bytes], path: Path) -> None:
    """No kept worker after all: the lock file goes (while held), then the lock."""
    path.with_suffix(".lock").unlink(missing_ok=True)
    lock.close()


def _connect(path: Path) -> socket.socket | None:
    import socket

    if not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
    except OSError:
        sock.close()
        return None
    return sock


def stop_kept(cache_dir: Path) -> bool:
    """End the kept worker of the project whose mypy cache is ``cache_dir`` (``False``: none ran)."""
    path = socket_path(cache_dir)
    sock = _connect(path)
    if sock is None:
        return False
    with sock:
        sock.sendall(b"\t\tstop\n")
        sock.settimeout(10)
        try:
            sock.recv(1)  # the worker closes the connection when it ends
        except OSError:
            pass
    return True
