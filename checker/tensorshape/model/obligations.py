"""Runtime obligations: requirements the analysis could not decide statically.

Where a value of unknown shape meets a static requirement, gradual checking
records an obligation instead of an error; ``tensorshape instrument`` turns each
into a runtime check at that place (see ``docs/gradual.md``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .diagnostics import Span

__all__ = ["ObligationKind", "SpecCheck", "Obligation"]


class ObligationKind(enum.Enum):
    #: An argument passed to an annotated parameter of a called function.
    ARGUMENT = "argument"
    #: A returned value checked against the function's return annotation.
    RETURN = "return"
    #: The precondition of an op whose operands have unknown dims.
    OP = "op"
    #: An annotated assignment (``y: Float[Tensor, "b d"] = f(x)``).
    ASSIGNMENT = "assignment"


@dataclass(frozen=True, slots=True)
class SpecCheck:
    """Check one operand against a shape spec."""

    #: Where the operand expression is.
    span: Span | None
    #: The operand's source text (``x``, ``self.proj(h)``), when known.
    text: str | None
    #: A shape string in tensorshape's language (``"b 5"``); names are shared
    #: by all checks of one obligation.
    spec: str


@dataclass(frozen=True, slots=True)
class Obligation:
    kind: ObligationKind
    #: The requirement's location (the call, the return statement).
    span: Span
    #: Checked together: dim names bind across them.
    checks: tuple[SpecCheck, ...]
    #: One line: what is required and why it could not be proved.
    reason: str
    path: str | None = None
