"""Read shape specs from annotations without evaluating them.

An annotation that is still a string (``from __future__ import annotations``,
or a quoted annotation) is parsed as text, never evaluated: evaluating it
(``typing.get_type_hints``) would run whatever code it contains.  An
annotation Python already evaluated (a jaxtyping class) gives its ``dim_str``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable
from typing import Any

from ..lang.jaxtyping import JAXTYPING_DTYPES

__all__ = ["spec_of", "spec_in_text", "raw_annotations"]


def spec_in_text(text: str) -> str | None:
    """The spec of an annotation written ``Dtype[Array, "spec"]`` (``Float``, ``jt.Int32``...), else ``None``.

    The text is parsed, never evaluated; a quoted annotation inside is read too.
    """
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    return _spec_in_node(node, 0)


def _spec_in_node(node: ast.expr, depth: int) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and depth < 2:
        try:
            inner = ast.parse(node.value.strip(), mode="eval").body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return None
        return _spec_in_node(inner, depth + 1)
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Tuple) or len(node.slice.elts) != 2:
        return None
    head = node.value
    name = head.attr if isinstance(head, ast.Attribute) else head.id if isinstance(head, ast.Name) else None
    spec = node.slice.elts[1]
    if name in JAXTYPING_DTYPES and isinstance(spec, ast.Constant) and isinstance(spec.value, str):
        return spec.value
    return None


def spec_of(annotation: Any) -> str | None:
    """The shape string of a jaxtyping annotation (``Float[Tensor, "b d"]`` -> ``"b d"``), else ``None``.

    A string annotation is read as text (never evaluated).
    """
    if isinstance(annotation, str):
        return spec_in_text(annotation)
    dim_str = getattr(annotation, "dim_str", None)
    return dim_str if isinstance(dim_str, str) else None


def raw_annotations(fn: Callable[..., Any]) -> dict[str, Any]:
    """The function's annotations as they are: strings stay strings, nothing is evaluated."""
    if sys.version_info >= (3, 14):  # pragma: no cover - lazily evaluated annotations (PEP 649)
        import annotationlib

        return dict(annotationlib.get_annotations(fn, format=annotationlib.Format.STRING))
    ann = getattr(fn, "__annotations__", None)
    return dict(ann) if isinstance(ann, dict) else {}
