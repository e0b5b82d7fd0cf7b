"""Small readings of libcst syntax shared by the interpreter's parts."""

from __future__ import annotations

import libcst as cst

__all__ = ["simple_text"]


def simple_text(node: cst.CSTNode | None) -> str | None:
    """Source text of a name or attribute chain (``x``, ``self.proj``), else ``None``."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = simple_text(node.value)
        return f"{base}.{node.attr.value}" if base else None
    return None
