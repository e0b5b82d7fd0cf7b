"""Read type annotations: jaxtyping shape annotations and the plain types around them.

``Float[Tensor, "b c"]``, ``jaxtyping.Shaped[torch.Tensor, "*batch d"]``, a
nested ``Float[Image, "b"]``, ``Optional[...]``/``... | None``,
``tuple[Float[...], Float[...]]``, type aliases, string (forward-reference)
annotations, a bare ``Tensor`` (a tensor of unknown shape) and ``int``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from ..lang.jaxtyping import JAXTYPING_DTYPES
from ..lang.parse import ShapeSyntaxError, try_parse_shape
from ..model import codes
from ..model.diagnostics import Code, Span
from ..model.spec import ShapeSpec
from ..model.values import Value
from .values import AnnotationV, ExternalV

__all__ = ["Annotation", "read_annotation", "JAXTYPING_DTYPES", "string_value"]

_TENSOR_TYPES = {"torch.Tensor", "torch.nn.Parameter", "numpy.ndarray", "jax.Array", "jax.numpy.ndarray"}
_TUPLE = {"builtins.tuple", "typing.Tuple", "tuple"}
_LIST = {"builtins.list", "typing.List", "list", "typing.Sequence", "collections.abc.Sequence"}
_OPTIONAL = {"typing.Optional"}
_UNION = {"typing.Union"}
_ANNOTATED = {"typing.Annotated", "typing_extensions.Annotated"}


@dataclass(frozen=True, slots=True)
class Annotation:
    #: ``tensor``, ``tuple``, ``list``, ``int``, ``float``, ``bool``, ``str``, ``none`` or ``other``.
    kind: str
    #: For ``tensor``: the shape spec (``None`` for a bare ``Tensor``: unknown shape).
    spec: ShapeSpec | None = None
    dtype: str | None = None
    #: For ``tuple``/``list``: the item annotations (a list has one).
    items: tuple[Annotation, ...] = ()
    optional: bool = False
    #: Where the shape string is (a span ticket), for errors inside it.
    spec_span: Span | None = None
    #: The shape string's offset inside ``spec_span`` (quote and prefix length), or -1 when unknown.
    spec_offset: int = 0


Report = Callable[[Code, str, Span, str | None], None]
Resolve = Callable[[cst.BaseExpression], Value]
Ticket = Callable[..., Span]


def string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        v = node.evaluated_value
        return v if isinstance(v, str) else None
    return None


def _qual(v: Value) -> str | None:
    return v.qualname if isinstance(v, ExternalV) else None


def read_annotation(node: cst.BaseExpression, resolve: Resolve, report: Report, ticket: Ticket) -> Annotation:
    """The meaning of an annotation expression."""
    text = string_value(node)
    if text is not None:
        try:
            inner = cst.parse_expression(text)
        except cst.ParserSyntaxError:
            return Annotation("other")
        ann = read_annotation(inner, resolve, report, lambda n, *a: ticket(node))
        return ann
    if isinstance(node, cst.Name) and node.value == "None":
        return Annotation("none")
    if type(node) is cst.BinaryOperation and type(node.operator) is cst.BitOr:
        left = read_annotation(node.left, resolve, report, ticket)
        right = read_annotation(node.right, resolve, report, ticket)
        return _union([left, right])
    if type(node) is cst.Subscript:
        base = resolve(node.value)
        q = _qual(base)
        elems = [e.slice.value for e in node.slice if type(e.slice) is cst.Index]
        name = q.rsplit(".", 1)[-1] if q else None
        if q and q.startswith("jaxtyping.") and name in JAXTYPING_DTYPES and len(elems) == 2:
            return _jaxtyping(name, elems[0], elems[1], resolve, report, ticket)
        if q in _OPTIONAL and elems:
            a = read_annotation(elems[0], resolve, report, ticket)
            return _with_optional(a)
        if q in _UNION:
            return _union([read_annotation(e, resolve, report, ticket) for e in elems])
        if q in _ANNOTATED and elems:
            return read_annotation(elems[0], resolve, report, ticket)
        if q in _TUPLE or (isinstance(node.value, cst.Name) and node.value.value == "tuple"):
            if len(elems) == 2 and type(elems[1]) is cst.Ellipsis:
                return Annotation("list", items=(read_annotation(elems[0], resolve, report, ticket),))
            return Annotation("tuple", items=tuple(read_annotation(e, resolve, report, ticket) for e in elems))
        if q in _LIST or (isinstance(node.value, cst.Name) and node.value.value in ("list", "Sequence")):
            return Annotation("list", items=tuple(read_annotation(e, resolve, report, ticket) for e in elems[:1]))
        return Annotation("other")
    v = resolve(node)
    if isinstance(v, AnnotationV):
        return v.annotation
    q = _qual(v)
    if q in _TENSOR_TYPES or (q is not None and q.endswith(".Tensor")):
        return Annotation("tensor")
    if isinstance(node, cst.Name) and node.value in ("int", "float", "bool", "str"):
        return Annotation(node.value)
    if q in ("builtins.int", "builtins.float", "builtins.bool", "builtins.str"):
        return Annotation(q.split(".")[1])
    return Annotation("other")


def _with_optional(a: Annotation) -> Annotation:
    return Annotation(a.kind, a.spec, a.dtype, a.items, True, a.spec_span, a.spec_offset)


def _union(parts: list[Annotation]) -> Annotation:
    real = [p for p in parts if p.kind != "none"]
    if len(real) == 1:
        return _with_optional(real[0]) if len(real) < len(parts) else real[0]
    return Annotation("other")


def _jaxtyping(
    dtype_name: str,
    array: cst.BaseExpression,
    shape: cst.BaseExpression,
    resolve: Resolve,
    report: Report,
    ticket: Ticket,
) -> Annotation:
    dtype = JAXTYPING_DTYPES.get(dtype_name)
    text = string_value(shape)
    if text is None:
        report(
            codes.BAD_ANNOTATION,
            "the shape of a jaxtyping annotation must be a string literal",
            ticket(shape),
            'write the dims as a string: Float[Tensor, "b c"]',
        )
        return Annotation("tensor", None, dtype)
    offset = _literal_offset(shape)
    span = ticket(shape)
    parsed = try_parse_shape(text)
    if isinstance(parsed, ShapeSyntaxError):
        at = ticket(shape, offset + parsed.offset, parsed.end - parsed.offset) if offset >= 0 else span
        report(codes.SHAPE_SYNTAX, f"malformed shape {text!r}: {parsed.message}", at, parsed.hint)
        return Annotation("tensor", None, dtype)
    for off, msg in parsed.notes:
        at = ticket(shape, offset + off, 1) if offset >= 0 else span
        report(codes.JAXTYPING_COMPAT, msg, at, "jaxtyping evaluates `d!` as Python and fails at run time")
    spec = parsed
    inner = read_annotation(array, resolve, report, ticket) if not isinstance(array, cst.Name) or True else None
    if inner is not None and inner.kind == "tensor" and inner.spec is not None:
        if spec.variadic_index is not None and inner.spec.variadic_index is not None:
            report(
                codes.SHAPE_SYNTAX,
                "variadic dims in both the outer and the nested annotation",
                span,
                "use `*name` or `...` at most once overall",
            )
            return Annotation("tensor", None, dtype)
        from ..lang.parse import parse_shape

        spec = parse_shape((text + " " + inner.spec.text).strip())
        dtype = dtype or inner.dtype
    return Annotation("tensor", spec, dtype, spec_span=span, spec_offset=offset)


def _literal_offset(node: cst.BaseExpression) -> int:
    """Where the string's characters start inside the literal, or -1 when offsets do not map."""
    if type(node) is not cst.SimpleString:
        return -1
    raw = node.value
    prefix = len(node.prefix)
    quote = len(node.quote)
    body = raw[prefix + quote : len(raw) - quote]
    if "\\" in body or "\n" in body:
        return -1
    return prefix + quote
