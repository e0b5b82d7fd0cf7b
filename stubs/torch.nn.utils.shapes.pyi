# torch.nn.utils: gradient clipping in a training loop.

from torch import Tensor

# The total norm of the gradients, a 0-d tensor (the gradients are clipped in place).
def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> "": ...
def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> "": ...
