# `torch.nn.init`: initialisers that fill a tensor in place and return it (its shape kept).
#
# `@rule("init", ranks=(lo, hi), message=...)`: the ranks torch accepts and its message when the
# rank is wrong; `check` names a further check (dirac_'s groups, xavier's fan of 0); `fan=True`: kaiming's initialisers skip the fan (and its check) for a tensor
# with no elements.  See docs/stubs.md.

from tensorshape.rules.stubdsl import names, rule
from torch import Tensor

@rule("init")
def constant_(tensor, val: float) -> Tensor: ...

@rule("init")
@names("zeros_", "ones_")
def _fill(tensor) -> Tensor: ...

@rule("init")
def normal_(tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor: ...

@rule("init")
def uniform_(tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor: ...

@rule("init")
def trunc_normal_(tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0, generator=None) -> Tensor: ...

@rule("init", ranks=(2, 64), fan=True, message="Fan in and fan out can not be computed for tensor with fewer than 2 dimensions", hint="a weight's fan needs at least two dims (out, in); init a bias with zeros_ or uniform_")
@names("kaiming_uniform_", "kaiming_normal_")
def _kaiming(tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator=None) -> Tensor: ...

@rule("init", ranks=(2, 64), check="xavier", message="Fan in and fan out can not be computed for tensor with fewer than 2 dimensions", hint="a weight's fan needs at least two dims (out, in); init a bias with zeros_ or uniform_")
@names("xavier_uniform_", "xavier_normal_")
def _xavier(tensor, gain: float = 1.0, generator=None) -> Tensor: ...

@rule("init", ranks=(2, 64), message="Only tensors with 2 or more dimensions are supported")
def orthogonal_(tensor, gain: float = 1, generator=None) -> Tensor: ...

@rule("init", ranks=(2, 2), message="Only tensors with 2 dimensions are supported")
def eye_(tensor) -> Tensor: ...

@rule("init", ranks=(3, 5), check="dirac", message="Only tensors with 3, 4, or 5 dimensions are supported")
def dirac_(tensor, groups: int = 1) -> Tensor: ...

@rule("init", ranks=(2, 2), message="Only tensors with 2 dimensions are supported")
def sparse_(tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor: ...

# The helper model code calls to size its own initialisers (timm's `variance_scaling_`): `(fan_in, fan_out)`.
@rule("fan_in_and_fan_out")
def _calculate_fan_in_and_fan_out(tensor) -> tuple: ...
