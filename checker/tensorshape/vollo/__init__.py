"""The Vollo data-dimension analysis (``--vollo``): a layer over the shape rules.

Importing this package registers :func:`~tensorshape.vollo.hook.vollo_hook`
with the rule engine; it acts only when ``Options.vollo`` is set.  See
``docs/vollo.md`` for the rules, in the notation of the Vollo documentation.
"""

from __future__ import annotations

from ..rules import engine
from .hook import CONSTANT, vollo_hook

__all__ = ["enable", "CONSTANT"]


def enable() -> None:
    """Register the hook with the engine (idempotent)."""
    if vollo_hook not in engine.post_hooks:
        engine.post_hooks.append(vollo_hook)


enable()
