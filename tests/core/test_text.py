"""Counted nouns in messages."""

from __future__ import annotations

import sympy
from tensorshape.model.text import plural


def test_plural() -> None:
    assert plural(1, "dim") == "1 dim"
    assert plural(0, "dim") == "0 dims"
    assert plural(3, "channel") == "3 channels"
    assert plural("c", "channel") == "c channels"
    assert plural(sympy.Integer(1), "value") == "1 value"
    assert plural(1, "index", "indices") == "1 index" and plural(2, "index", "indices") == "2 indices"
