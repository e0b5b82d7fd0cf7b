"""The shape language: jaxtyping's annotation grammar plus tensorshape's marks."""

from .parse import ShapeSyntaxError, parse_shape, try_parse_shape

__all__ = ["ShapeSyntaxError", "parse_shape", "try_parse_shape"]
