# torch.nested with layout=torch.jagged: one ragged dim (dim 1), written `jagged=n` in annotations.
# Rules: tensorshape/rules/ops/jagged.py.

from tensorshape.rules.stubdsl import names, rule
from torch import Tensor

@rule("nested_tensor")
@names("nested_tensor", "as_nested_tensor")
def _nested(tensor_list, *, dtype=None, layout=None, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor: ...

@rule("nested_from_jagged")
def nested_tensor_from_jagged(values, offsets=None, lengths=None, jagged_dim=None, min_seqlen=None, max_seqlen=None) -> Tensor: ...

@rule("to_padded")
def to_padded_tensor(input, padding: float, output_size=None) -> Tensor: ...
