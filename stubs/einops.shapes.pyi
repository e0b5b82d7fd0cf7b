# Shape signatures of einops (https://einops.rocks): patterns are solved by the
# Python rules in tensorshape/rules/ops/einops_rules.py.

from tensorshape.rules.stubdsl import rule
from torch import Tensor

@rule("einops_rearrange")
def rearrange(tensor, pattern: str, **axes_lengths) -> Tensor: ...

@rule("einops_reduce")
def reduce(tensor, pattern: str, reduction, **axes_lengths) -> Tensor: ...

@rule("einops_repeat")
def repeat(tensor, pattern: str, **axes_lengths) -> Tensor: ...

@rule("einops_pack")
def pack(tensors, pattern: str) -> tuple: ...

@rule("einops_einsum")
def einsum(*tensors_and_pattern) -> Tensor: ...
