"""Op rules: the shape semantics of torch functions, Tensor methods and nn modules.

Signatures are declared in ``stubs/*.shapes.pyi`` (read by :mod:`.stubs`):
a shape string on a parameter and on the return is a declarative rule, checked
by :mod:`tensorshape.unify.match`; ``@rule("name")`` names a short Python rule
from :mod:`.ops` for what a declaration cannot say (conv arithmetic, reshape,
indexing, einsum).  :mod:`.engine` binds a call to its signature and applies it.
"""
