# `torch.linalg`: shape signatures.  See docs/stubs.md.

from tensorshape.rules.stubdsl import rule
from torch import Tensor

def pinv(input: "*b m n", *, atol=None, rtol=None, hermitian: bool = False, out=None) -> "*b n m": ...

@rule("reduce")
def vector_norm(input, ord=2, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor: ...
