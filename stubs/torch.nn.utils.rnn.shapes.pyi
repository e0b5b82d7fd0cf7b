# torch.nn.utils.rnn: padding and packing variable-length sequences (rules in rules/ops/shape_ops.py and
# rules/ops/packed.py).

from tensorshape.rules.stubdsl import rule
from torch import Tensor

@rule("pad_sequence")
def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0, padding_side: str = "right") -> Tensor: ...

@rule("pack_padded_sequence")
def pack_padded_sequence(input, lengths, batch_first: bool = False, enforce_sorted: bool = True): ...

@rule("pack_sequence")
def pack_sequence(sequences, enforce_sorted: bool = True): ...

@rule("pad_packed_sequence")
def pad_packed_sequence(sequence, batch_first: bool = False, padding_value: float = 0.0, total_length=None) -> tuple: ...
