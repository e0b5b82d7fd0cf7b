# Shape signatures of `torch.Tensor` methods and properties.
#
# A method not declared here falls back to the function `torch.<name>` with the
# tensor as its first argument (`x.sum(1)` is `torch.sum(x, 1)`), and an in-place
# `name_` to `name` plus the rule that the result keeps the tensor's shape.

from tensorshape.rules.stubdsl import kind, names, rule
from torch import Size, Tensor

@kind("property")
@rule("shape")
def shape(self) -> Size: ...

@kind("property")
@rule("ndim")
def ndim(self) -> int: ...

@kind("property")
@rule("dtype")
def dtype(self) -> dtype: ...

@kind("property")
@rule("reverse_dims")
@names("T", "H")
def _T(self) -> Tensor: ...

@kind("property")
@rule("matrix_transpose")
@names("mT", "mH")
def _mT(self) -> Tensor: ...

@kind("property")
@names("data", "grad", "real", "imag")
def _same(self: "*s") -> "*s": ...

@rule("size")
def size(self, dim: int | None = None) -> Size: ...

@rule("ndim")
@names("dim", "ndimension")
def _dim(self) -> int: ...

@rule("numel")
@names("numel", "nelement")
def _numel(self) -> int: ...

@rule("view")
@names("view", "reshape")
def _view(self, *shape: int) -> Tensor: ...

@rule("view_as")
@names("view_as", "reshape_as")
def _view_as(self, other) -> Tensor: ...

@rule("expand")
def expand(self, *sizes: int) -> Tensor: ...

@rule("expand")
def expand_as(self, other) -> Tensor: ...

@rule("repeat")
def repeat(self, *repeats: int) -> Tensor: ...

@rule("permute")
def permute(self, *dims: int) -> Tensor: ...

@rule("to")
def to(self, *args, dtype=None, non_blocking: bool = False, copy: bool = False, memory_format=None, device=None) -> Tensor: ...

@rule("to", dtype="float32")
def float(self, memory_format=None) -> Tensor: ...

@rule("to", dtype="float64")
def double(self, memory_format=None) -> Tensor: ...

@rule("to", dtype="float16")
def half(self, memory_format=None) -> Tensor: ...

@rule("to", dtype="bfloat16")
def bfloat16(self, memory_format=None) -> Tensor: ...

@rule("to", dtype="int64")
def long(self, memory_format=None) -> Tensor: ...

@rule("to", dtype="int32")
def int(self, memory_format=None) -> Tensor: ...

@rule("to", dtype="bool")
def bool(self, memory_format=None) -> Tensor: ...

@rule("to")
@names("contiguous", "cpu", "cuda", "requires_grad_", "pin_memory", "share_memory_", "detach_", "zero_", "uniform_", "normal_", "fill_", "bernoulli_", "random_", "exponential_", "cauchy_", "log_normal_", "geometric_")
def _same_tensor(self, *args, **kwargs) -> Tensor: ...

@rule("to")
def type_as(self, other) -> Tensor: ...

@rule("create")
@names("new_zeros", "new_ones", "new_empty")
def _new(self, *size: int, dtype=None, device=None, requires_grad: bool = False, layout=None, pin_memory: bool = False) -> Tensor: ...

@rule("create", fill=True, dtype=None)
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor: ...

@rule("tensor")
def new_tensor(self, data, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor: ...

@rule("getitem")
def __getitem__(self, index) -> Tensor: ...

@rule("masked")
def masked_fill(self, mask, value) -> Tensor: ...

@rule("split")
def split(self, split_size, dim: int = 0) -> tuple: ...

@rule("squeeze")
def squeeze(self, dim=None) -> Tensor: ...

@rule("flatten")
def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor: ...

@rule("unflatten")
def unflatten(self, dim: int, sizes) -> Tensor: ...

@rule("transpose")
def transpose(self, dim0: int, dim1: int) -> Tensor: ...

def item(self: "*s") -> float: ...

@rule("tolist")
def tolist(self) -> list: ...

@rule("reduce")
@names("sum", "mean", "nansum", "nanmean", "amax", "amin", "logsumexp", "std", "var", "prod", "norm")
def _reduce(self, dim=None, keepdim: bool = False, *, dtype=None, correction=None) -> Tensor: ...

@rule("gather")
def gather(input, dim: int, index) -> Tensor: ...

@rule("index_select")
def index_select(input, dim: int, index) -> Tensor: ...

# -- named tensors: gone from torch 2.13 ---------------------------------------------------
@rule("removed_api", what="named tensors")
@names("refine_names", "align_to", "align_as", "rename", "rename_")
def _named(self, *args, **kwargs) -> Tensor: ...

@kind("property")
@rule("removed_api", what="named tensors")
def names(self) -> tuple: ...

# -- jagged (torch.nested) tensors -----------------------------------------------------------
@rule("jagged_values")
def values(self) -> Tensor: ...

@rule("jagged_offsets")
def offsets(self) -> Tensor: ...

@rule("to_padded")
def to_padded_tensor(self, padding: float, output_size=None) -> Tensor: ...

# -- issue 15 -----------------------------------------------------------------------------------------
@rule("copy_into")
def copy_(self, src, non_blocking: bool = False) -> Tensor: ...

def int_repr(self: "*s") -> "*s": ...

@rule("repeat_interleave")
def repeat_interleave(self, repeats, dim: int | None = None, *, output_size: int | None = None) -> Tensor: ...
