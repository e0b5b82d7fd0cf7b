"""Python rules, one module per family.  Importing this package registers them all."""

from . import (  # noqa: F401
    attrs,
    create,
    data,
    eager,
    einops_rules,
    einsum,
    fbgemm,
    firstclass,
    index,
    jagged,
    matmul,
    nn,
    nn_init,
    packed,
    reduce,
    shape_ops,
)
