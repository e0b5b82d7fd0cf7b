"""``tensorshape lsp``: a Language Server (pygls) with diagnostics, hover, inlay hints and code actions."""

from __future__ import annotations

__all__ = ["main"]


def main() -> None:
    from .server import build_server

    build_server().start_io()
