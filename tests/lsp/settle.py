"""Waiting for a document's final diagnostics.

A newly opened document's first publication may hold only the definitions analysed in the first
fraction of a second (more on a slow machine), so a test that reads the first
``publishDiagnostics`` after ``didOpen`` depends on the machine's speed.  The server ends each
version's analysis with a log line (:func:`tensorshape.lsp.server.settled_message`), sent after its
last publication: waiting for that line gives the final diagnostics on any machine."""

from __future__ import annotations

import asyncio
import time

from lsprotocol import types
from pytest_lsp import LanguageClient
from tensorshape.lsp.server import settled_message

#: Fail (rather than hang) when no analysis settles in this long.
TIMEOUT = 120.0


async def settled(client: LanguageClient, uri: str, version: int) -> list[types.Diagnostic]:
    """The diagnostics of ``uri`` once the server has next finished analysing ``version``.

    Call it right after the message that starts the analysis (no ``await`` in between): log lines
    already received then belong to earlier analyses."""
    prefix = settled_message(uri, version)
    seen = len(client.log_messages)
    give_up = time.monotonic() + TIMEOUT
    while not any(m.message.startswith(prefix) for m in client.log_messages[seen:]):
        if time.monotonic() > give_up:
            raise TimeoutError(f"no analysis of {uri} version {version} settled in {TIMEOUT:g} s")
        await asyncio.sleep(0.01)
    return list(client.diagnostics.get(uri, []))
