# FBGEMM's jagged tensor operators (torch.ops.fbgemm.*, from fbgemm-gpu / fbgemm-gpu-cpu).
# A jagged tensor is `values` (rows of all sub-tensors stacked: [total, *inner]) plus a list of
# `offsets` tensors ([B+1] for the outer dim) and, for dense conversion, `max_lengths`.
# Rules: tensorshape/rules/ops/fbgemm.py.

from tensorshape.rules.stubdsl import names, rule
from torch import Tensor

@rule("fbgemm_jagged_to_dense")
def jagged_to_padded_dense(values, offsets, max_lengths, padding_value: float = 0.0) -> Tensor: ...

@rule("fbgemm_jagged_2d_to_dense", values_rank=2)
def jagged_2d_to_dense(values, offsets, max_sequence_length: int) -> Tensor: ...

@rule("fbgemm_jagged_2d_to_dense", values_rank=1)
def jagged_1d_to_dense(values, offsets, max_sequence_length: int, padding_value: int = 0) -> Tensor: ...

@rule("fbgemm_dense_to_jagged")
def dense_to_jagged(dense, x_offsets, total_L=None) -> Tensor: ...

@rule("fbgemm_jagged_dense_elementwise", output="dense")
def jagged_dense_elementwise_add(x_values, x_offsets, y) -> Tensor: ...

@rule("fbgemm_jagged_dense_elementwise", output="jagged")
@names("jagged_dense_elementwise_mul", "jagged_dense_elementwise_add_jagged_output")
def _jagged_out(x_values, x_offsets, y) -> Tensor: ...

@rule("fbgemm_jagged_dense_elementwise", output="jagged", second="y_1")
def jagged_dense_dense_elementwise_add_jagged_output(x_values, x_offsets, y_0, y_1) -> Tensor: ...

@rule("fbgemm_stacked_to_dense")
@names("stacked_jagged_2d_to_dense", "stacked_jagged_1d_to_dense")
def _stacked(values, lengths, offset_per_key, max_lengths_per_key, padding_value: int = 0) -> Tensor: ...

@rule("fbgemm_jagged_jagged_bmm")
def jagged_jagged_bmm(x_values, y_values, x_offsets, max_length: int) -> Tensor: ...

@rule("fbgemm_jagged_dense_bmm")
def jagged_dense_bmm(x_values, x_offsets, y, max_length: int) -> Tensor: ...

@rule("fbgemm_jagged_softmax")
def jagged_softmax(values, x_offsets, max_L: int) -> Tensor: ...
