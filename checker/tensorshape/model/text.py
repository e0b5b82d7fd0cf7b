"""Words in messages: ``1 dim``, ``2 dims``, ``n dims``."""

from __future__ import annotations

__all__ = ["plural"]


def plural(n: object, noun: str, many: str | None = None) -> str:
    """``n`` and the noun in the number it needs: ``plural(1, "dim")`` is ``1 dim``,
    ``plural(3, "dim")`` ``3 dims``, ``plural("c", "channel")`` ``c channels`` (a symbol
    may be anything but 1); ``many`` spells an irregular plural (``index``, ``indices``)."""
    text = str(n)
    return f"{text} {noun if text == '1' else (many or noun + 's')}"
