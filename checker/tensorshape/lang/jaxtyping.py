"""jaxtyping's dtype classes (``Float``, ``Int32``...), shared by both front ends."""

from __future__ import annotations

__all__ = ["JAXTYPING_DTYPES", "tensor_dtype"]

#: jaxtyping's dtype classes, and the dtype a tensor annotated with them has.
JAXTYPING_DTYPES: dict[str, str | None] = {
    "Shaped": None,
    "Num": None,
    "Real": None,
    "Inexact": "float",
    "Float": "float",
    "Complex": "complex",
    "Integer": "int",
    "Int": "int",
    "UInt": "uint",
    "Bool": "bool",
    "Key": None,
    "BFloat16": "bfloat16",
    "Float16": "float16",
    "Float32": "float32",
    "Float64": "float64",
    "Complex64": "complex64",
    "Complex128": "complex128",
    **{f"Int{n}": f"int{n}" for n in (2, 4, 8, 16, 32, 64)},
    **{f"UInt{n}": f"uint{n}" for n in (2, 4, 8, 16, 32, 64)},
    **{
        n: "float8"
        for n in ("Float4e2m1fn", "Float8e4m3b11fnuz", "Float8e4m3fn", "Float8e4m3fnuz", "Float8e5m2", "Float8e5m2fnuz")
    },
}


def tensor_dtype(family: str | None) -> str | None:
    """The dtype a value annotated with a jaxtyping family has (``None`` for a family of dtypes)."""
    return None if family in (None, "float", "int", "uint", "complex") else family
