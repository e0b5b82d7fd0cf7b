"""Python rules, one module per family.  Importing this package registers them all."""

from . import attrs, create, einops_rules, einsum, fbgemm, firstclass, index, jagged, matmul, nn, reduce, shape_ops  # noqa: F401
