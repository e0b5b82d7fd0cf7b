"""Reading LSP frames from a client that may send anything.

pygls's reader trusts its input: a frame without a valid ``Content-Length``
leaves it waiting for one forever, a body that is not a JSON-RPC object raises
inside its loop, and a request whose params do not fit is dropped without a
reply (the client waits forever).  :class:`SafeReader` sits in front of it: it
reads frames itself, skips what is not a frame (recovering at the next
``Content-Length`` header), answers what cannot be handled with a JSON-RPC error
(-32700 parse error, -32600 invalid request, -32602 invalid params), and hands
pygls only well-formed requests.  A frame that announces more than
:data:`MAX_BODY` bytes cannot be skipped safely: the stream ends there and the
server exits, so that the editor restarts it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, BinaryIO

__all__ = ["SafeReader", "MAX_BODY"]

#: A frame body larger than this ends the session (no editor sends 64 MB in one message).
MAX_BODY = 64 * 1024 * 1024
#: Header lines longer than this are noise.
_MAX_HEADER = 8192
#: Searched, not matched: noise glued to the front of a header line must not hide the frame.
_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*(\d{1,12})[ \t]*\r?\n?$", re.I)


class _Answered(logging.Filter):
    """Drops pygls's log of a message it cannot structure: the reader answers those itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Unable to deserialize message")


logging.getLogger("pygls.protocol.json_rpc").addFilter(_Answered())


class SafeReader:
    """The reader interface pygls's ``run_async`` expects (``readline``, ``readexactly``),
    yielding only well-formed frames."""

    def __init__(
        self,
        stdin: BinaryIO,
        executor: ThreadPoolExecutor | None,
        validate: Callable[[dict[str, Any]], None],
        reply: Callable[[bytes], None],
    ) -> None:
        self.stdin = stdin
        self.executor = executor
        #: Raises when pygls could not use the message (``structure_message`` on every object).
        self.validate = validate
        #: Sends bytes to the client (called from the reading thread).
        self.reply = reply
        self._pending: list[bytes] = []

    def readline(self) -> Awaitable[bytes]:
        return asyncio.get_running_loop().run_in_executor(self.executor, self._readline)

    def readexactly(self, n: int) -> Awaitable[bytes]:
        return asyncio.get_running_loop().run_in_executor(self.executor, self._take)

    # -- on the reading thread ---------------------------------------------------------------
    def _readline(self) -> bytes:
        if not self._pending:
            body = self._next_body()
            if body is None:
                return b""
            self._pending = [b"\r\n", body]
            return b"Content-Length: %d\r\n" % len(body)
        return self._pending.pop(0)

    def _take(self) -> bytes:
        return self._pending.pop(0) if self._pending else b""

    def _next_body(self) -> bytes | None:
        """The next body pygls can handle; ``None`` at the end of the stream (or past recovery)."""
        while True:
            length = self._headers()
            if length is None:
                return None
            if length < 0:
                continue  # a block of noise without a length: look for the next header
            if length > MAX_BODY:
                return None
            body = self._read(length)
            if body is None:
                return None
            if self._usable(body):
                return body

    def _headers(self) -> int | None:
        """The ``Content-Length`` of the next header block; -1 for a block without one."""
        length = -1
        seen = False
        while True:
            line = self.stdin.readline(_MAX_HEADER)
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                if seen:
                    return length
                continue  # blank lines between frames
            seen = True
            m = _LENGTH.search(line)
            if m:
                length = int(m.group(1))

    def _read(self, n: int) -> bytes | None:
        chunks: list[bytes] = []
        while n > 0:
            chunk = self.stdin.read(min(n, 1 << 20))
            if not chunk:
                return None
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def _usable(self, body: bytes) -> bool:
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):
            self._error(None, -32700, "Parse error: the body is not JSON")
            return False
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            rid = message.get("id") if isinstance(message, dict) else None
            self._error(rid, -32600, "Invalid Request: not a JSON-RPC 2.0 object")
            return False
        rid = message.get("id")
        if rid is not None and not isinstance(rid, (int, str)) or isinstance(rid, bool):
            self._error(None, -32600, "Invalid Request: bad id")
            return False
        if not isinstance(message.get("method", ""), str):
            self._error(rid, -32600, "Invalid Request: method must be a string")
            return False
        if "method" not in message:
            return True  # a response to the server's own request: pygls matches it to the request
        try:
            json.loads(body, object_hook=self.validate)
        except Exception as e:  # noqa: BLE001 - whatever pygls cannot structure
            if rid is not None:
                self._error(rid, -32602, f"Invalid params: {type(e).__name__}")
            return False  # a notification that does not fit: dropped
        return True

    def _error(self, rid: int | str | None, code: int, message: str) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}).encode()
        self.reply(b"Content-Length: %d\r\n\r\n" % len(body) + body)
