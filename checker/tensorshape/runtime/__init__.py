"""Runtime shape checks in tensorshape's language, cheap enough to leave on.

    from tensorshape.runtime import check, check_shapes, shapecheck

    check(x, "b t d")                                   # returns x
    check_shapes({"x": (x, "b t d"), "w": (w, "d k")})  # names bind across tensors
    @shapecheck                                         # jaxtyping annotations, args and return
    def f(x: Float[Tensor, "b d"]) -> Float[Tensor, "b"]: ...

``TENSORSHAPE_RUNTIME=0`` (or :func:`disable`) makes every check a no-op.
A failed check raises :class:`ShapeCheckError`, a ``RuntimeError``.
See ``docs/runtime.md``.
"""

from __future__ import annotations

from .checking import Bindings, check, check_shapes, disable, enable, enabled
from .decorator import shapecheck, spec_of
from .errors import ShapeCheckError
from .plan import compile_spec

__all__ = [
    "check",
    "check_shapes",
    "shapecheck",
    "spec_of",
    "enable",
    "disable",
    "enabled",
    "Bindings",
    "ShapeCheckError",
    "compile_spec",
]
