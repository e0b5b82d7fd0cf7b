# torch.nn.utils.rnn: padding variable-length sequences into one batch (rules in rules/ops/shape_ops.py).

from tensorshape.rules.stubdsl import rule
from torch import Tensor

@rule("pad_sequence")
def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0, padding_side: str = "right") -> Tensor: ...
