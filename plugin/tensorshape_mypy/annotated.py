"""jaxtyping annotations become tensor types that carry their shape.

For mypy, jaxtyping's ``Float``, ``Int``... are ``typing.Annotated``, so
``Float[Tensor, "b c"]`` reaches the type-analyze hook of ``typing.Annotated``
(as does every other ``Annotated``, hundreds of times inside torch: anything
that is not a jaxtyping annotation of a tensor is analysed as mypy would).
"""

from __future__ import annotations

from mypy import errorcodes as mypy_codes
from mypy.plugin import AnalyzeTypeContext
from mypy.types import (
    AnyType,
    Instance,
    RawExpressionType,
    Type,
    TypeOfAny,
    UnboundType,
    get_proper_type,
)
from tensorshape.lang.jaxtyping import JAXTYPING_DTYPES
from tensorshape.lang.parse import ShapeSyntaxError, try_parse_shape
from tensorshape.model import codes

from . import carry
from .errorcodes import error_code
from .translate import is_tensor

__all__ = ["ANNOTATED", "analyze_annotated"]

ANNOTATED = frozenset({"typing.Annotated", "typing_extensions.Annotated"})


def _shape_text(t: Type) -> str | None:
    """The shape string, in either of the two forms mypy hands it over."""
    if isinstance(t, RawExpressionType) and isinstance(t.literal_value, str):
        return t.literal_value
    if isinstance(t, UnboundType) and t.original_str_expr is not None:
        return t.original_str_expr
    return None


def analyze_annotated(ctx: AnalyzeTypeContext) -> Type:
    t = ctx.type
    if len(t.args) < 2:
        ctx.api.fail(
            "Annotated[...] must have exactly one type argument and at least one annotation",
            t,
            code=mypy_codes.VALID_TYPE,
        )
        return AnyType(TypeOfAny.from_error)
    base = ctx.api.analyze_type(t.args[0])
    family = t.name.rsplit(".", 1)[-1]
    if len(t.args) != 2 or family not in JAXTYPING_DTYPES:
        return base
    array = get_proper_type(base)
    if not isinstance(array, Instance) or not is_tensor(array):
        return base
    text = _shape_text(t.args[1])
    if text is None:
        code = codes.BAD_ANNOTATION
        ctx.api.fail("the shape of a jaxtyping annotation must be a string literal", t.args[1], code=error_code(code))
        return base
    parsed = try_parse_shape(text)
    if isinstance(parsed, ShapeSyntaxError):
        code = codes.SHAPE_SYNTAX
        ctx.api.fail(f"malformed shape {text!r}: {parsed.message}", t.args[1], code=error_code(code))
        return base
    for _, msg in parsed.notes:
        ctx.api.fail(msg, t.args[1], code=error_code(codes.JAXTYPING_COMPAT))
    return carry.attach(array, carry.annotation_text(text, JAXTYPING_DTYPES[family]))
