"""The exception a failed runtime check raises."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["ShapeCheckError"]


class ShapeCheckError(RuntimeError):
    """A tensor's shape does not match its spec.

    A subclass of ``RuntimeError``, which torch raises for shape errors, so code
    that handles torch's errors handles these too.  ``where`` is the source
    location of the annotation (or of the instrumented check).
    """

    def __init__(
        self,
        message: str,
        *,
        where: str | None = None,
        spec: str | None = None,
        actual: tuple[int, ...] | None = None,
        bindings: Mapping[str, object] | None = None,
    ):
        self.where = where
        self.spec = spec
        self.actual = actual
        self.bindings = dict(bindings or {})
        prefix = f"{where}: " if where else ""
        super().__init__(prefix + message)
