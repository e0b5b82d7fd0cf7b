# Shape signatures of functions in the `torch` namespace.
#
# A string annotation is a shape spec in jaxtyping's syntax (the parameter is a
# tensor; a Python number passed there counts as a 0-d tensor).  Names bind
# across the parameters of one call.  `#` dims broadcast.  `@rule("name")`
# hands the call to a Python rule in tensorshape/rules/ops/.  See docs/stubs.md.

from collections.abc import Sequence

from tensorshape.rules.stubdsl import kind, names, rule
from torch import Tensor, dtype

# -- elementwise, one input -----------------------------------------------------------
@kind("pointwise")
@names(
    "abs", "absolute", "acos", "arccos", "acosh", "arccosh", "asin", "arcsin", "asinh", "arcsinh",
    "atan", "arctan", "atanh", "arctanh", "ceil", "cos", "cosh", "deg2rad", "digamma", "erf", "erfc",
    "erfinv", "exp", "exp2", "expm1", "fix", "floor", "frac", "lgamma", "log", "log10", "log1p", "log2",
    "neg", "negative", "positive", "rad2deg", "reciprocal", "rsqrt", "sigmoid", "sign", "sgn", "sin",
    "sinc", "sinh", "sqrt", "square", "tan", "tanh", "trunc", "relu", "i0", "angle", "conj", "clone",
    "detach", "bitwise_not", "nan_to_num", "logit", "round", "selu", "celu",
)
def _unary(input: "*s", *args, **kwargs) -> "*s": ...

@kind("pointwise", "compare")
@names("isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "logical_not", "signbit")
def _predicate(input: "*s", *args, **kwargs) -> "*s": ...

# -- elementwise, broadcasting ----------------------------------------------------------
@kind("pointwise")
@names(
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
    "remainder", "fmod", "pow", "float_power", "atan2", "arctan2", "hypot", "maximum", "minimum", "fmax",
    "fmin", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
    "copysign", "nextafter", "xlogy", "ldexp", "heaviside", "rsub", "igamma", "igammac", "gcd", "lcm",
    "logaddexp", "logaddexp2",
)
def _binary(input: "*#s", other: "*#s", *, alpha=..., rounding_mode=..., out=None) -> "*s": ...

@kind("pointwise", "compare")
@names(
    "eq", "ne", "not_equal", "lt", "less", "le", "less_equal", "gt", "greater", "ge", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "isclose",
)
def _compare(input: "*#s", other: "*#s", *args, **kwargs) -> "*s": ...

@kind("pointwise")
@names("addcmul", "addcdiv")
def _ternary(input: "*#s", tensor1: "*#s", tensor2: "*#s", *, value=1, out=None) -> "*s": ...

@kind("pointwise")
def lerp(input: "*#s", end: "*#s", weight: "*#s", *, out=None) -> "*s": ...

@kind("pointwise")
def where(condition: "*#s", input: "*#s", other: "*#s", *, out=None) -> "*s": ...

@kind("pointwise")
@names("clamp", "clip")
def _clamp(input: "*#s", min: "*#s" | None = None, max: "*#s" | None = None, *, out=None) -> "*s": ...

@kind("pointwise")
def dropout(input: "*s", p: float = 0.5, train: bool = True) -> "*s": ...

@rule("same_shape")
def softmax(input, dim: int, dtype=None) -> Tensor: ...

# -- matrix products -------------------------------------------------------------------------
@rule("matmul")
def matmul(input, other, *, out=None) -> Tensor: ...

@rule("matmul_fixed", ranks=(2, 2), other="mat2")
def mm(input, mat2, *, out=None) -> Tensor: ...

@rule("matmul_fixed", ranks=(3, 3), other="mat2")
def bmm(input, mat2, *, out=None) -> Tensor: ...

@rule("matmul_fixed", ranks=(2, 1), other="vec")
def mv(input, vec, *, out=None) -> Tensor: ...

@rule("matmul_fixed", ranks=(1, 1), other="tensor")
@names("dot", "vdot")
def _dot(input, tensor, *, out=None) -> Tensor: ...

@rule("inner")
def inner(input, other, *, out=None) -> Tensor: ...

@names("outer", "ger")
def _outer(input: " n", vec2: " m", *, out=None) -> "n m": ...

@rule("addmm", operands=("mat1", "mat2"), ranks=(2, 2))
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None) -> Tensor: ...

@rule("addmm", operands=("batch1", "batch2"), ranks=(3, 3))
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None) -> Tensor: ...

@rule("addmm", operands=("batch1", "batch2"), ranks=(3, 3), reduce_batch=True)
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None) -> Tensor: ...

@rule("addmm", operands=("mat", "vec"), ranks=(2, 1))
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None) -> Tensor: ...

@rule("addmm", operands=("vec1", "vec2"), ranks=(1, 1), outer=True)
def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None) -> Tensor: ...

@rule("kron")
def kron(input, other, *, out=None) -> Tensor: ...

@rule("cross")
def cross(input, other, dim: int | None = None, *, out=None) -> Tensor: ...

def cdist(x1: "*#b p m", x2: "*#b r m", p: float = 2.0, compute_mode=None) -> "*b p r": ...

def trace(input: "n m") -> "": ...

def det(A: "*b n n") -> "*b": ...

def inverse(input: "*b n n", *, out=None) -> "*b n n": ...

# -- shape manipulation ---------------------------------------------------------------------
@rule("view")
def reshape(input, shape) -> Tensor: ...

@rule("flatten")
def flatten(input, start_dim: int = 0, end_dim: int = -1) -> Tensor: ...

@rule("unflatten")
def unflatten(input, dim: int, sizes) -> Tensor: ...

@rule("squeeze")
def squeeze(input, dim=None) -> Tensor: ...

@rule("unsqueeze")
def unsqueeze(input, dim: int) -> Tensor: ...

@rule("permute")
def permute(input, dims) -> Tensor: ...

@rule("transpose")
@names("transpose", "swapaxes", "swapdims")
def _transpose(input, dim0: int, dim1: int) -> Tensor: ...

@rule("t")
def t(input) -> Tensor: ...

@rule("movedim")
@names("movedim", "moveaxis")
def _movedim(input, source, destination) -> Tensor: ...

@rule("narrow")
def narrow(input, dim: int, start: int, length: int) -> Tensor: ...

@rule("split")
def split(tensor, split_size_or_sections, dim: int = 0) -> tuple: ...

@rule("chunk")
def chunk(input, chunks: int, dim: int = 0) -> tuple: ...

@rule("unbind")
def unbind(input, dim: int = 0) -> tuple: ...

@rule("einsum")
def einsum(equation: str, *operands) -> Tensor: ...

@rule("cat")
@names("cat", "concat", "concatenate")
def _cat(tensors, dim: int = 0, *, out=None) -> Tensor: ...

@rule("stack")
def stack(tensors, dim: int = 0, *, out=None) -> Tensor: ...

@rule("expand")
def broadcast_to(input, size) -> Tensor: ...

@rule("repeat", tile=True)
def tile(input, dims) -> Tensor: ...

@rule("same_shape")
def flip(input, dims) -> Tensor: ...

@rule("same_shape", aligned="shifts")
def roll(input, shifts, dims=None) -> Tensor: ...

@rule("same_shape", min_rank=2)
@names("tril", "triu")
def _triangle(input, diagonal: int = 0, *, out=None) -> Tensor: ...

@rule("same_shape")
@names("cumsum", "cumprod", "logcumsumexp", "log_softmax")
def _along_dim(input, dim: int, *, dtype=None, out=None) -> Tensor: ...

@rule("diff")
def diff(input, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor: ...

@rule("same_shape", min_rank=2)
def renorm(input, p: float, dim: int, maxnorm: float, *, out=None) -> Tensor: ...

@rule("same_shape", dtype="int64")
def argsort(input, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor: ...

def fliplr(input: "a b *rest") -> "a b *rest": ...

def flipud(input: " a *rest") -> " a *rest": ...

def diag_embed(input: "*b n", offset: int = 0, dim1: int = -2, dim2: int = -1) -> "*b n n": ...

# -- reductions ---------------------------------------------------------------------------------
@rule("reduce")
@names("sum", "mean", "nansum", "nanmean", "amax", "amin", "logsumexp", "std", "var", "prod", "norm")
def _reduce(input, dim=None, keepdim: bool = False, *, dtype=None, correction=None, out=None) -> Tensor: ...

@rule("reduce", dtype="bool")
@names("all", "any")
def _reduce_bool(input, dim=None, keepdim: bool = False, *, out=None) -> Tensor: ...

@rule("reduce", dtype="int64")
@names("argmax", "argmin")
def _arg_reduce(input, dim=None, keepdim: bool = False) -> Tensor: ...

@rule("reduce", dtype="int64")
def count_nonzero(input, dim=None) -> Tensor: ...

@kind("pointwise")
@names("max", "min")
def _minmax_binary(input: "*#s", other: Tensor, *, out=None) -> "*s": ...

@rule("reduce_indices")
@names("max", "min", "median", "mode", "nanmedian")
def _minmax_dim(input, dim: int, keepdim: bool = False, *, out=None) -> tuple: ...

@rule("reduce")
@names("max", "min", "median", "nanmedian")
def _minmax_all(input) -> Tensor: ...

@rule("reduce_indices")
def kthvalue(input, k: int, dim: int = -1, keepdim: bool = False, *, out=None) -> tuple: ...

@rule("topk")
def topk(input, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, *, out=None) -> tuple: ...

@rule("multinomial")
def multinomial(input, num_samples: int, replacement: bool = False, *, generator=None, out=None) -> Tensor: ...

@rule("sort")
@names("sort", "cummax", "cummin")
def _sort(input, dim: int = -1, descending: bool = False, *, stable: bool = False, out=None) -> tuple: ...

# -- creation ---------------------------------------------------------------------------------------
@kind("constant")
@rule("create")
@names("zeros", "ones", "empty", "rand", "randn")
def _create(*size: int, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False, pin_memory: bool = False, generator=None, names=None, memory_format=None) -> Tensor: ...

@kind("constant")
@rule("create", fill=True, dtype=None)
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor: ...

@kind("constant")
@rule("create", dtype="int64")
def randint(high: int, size: Sequence, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor: ...

@kind("constant")
@rule("create", dtype="int64")
def randint(low: int, high: int, size: Sequence, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor: ...

@kind("constant")
@rule("arange")
def arange(end, *, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor: ...

@kind("constant")
@rule("arange")
def arange(start, end, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor: ...

@kind("constant")
@rule("linspace")
@names("linspace", "logspace")
def _linspace(start, end, steps: int, *args, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False, base=10.0) -> Tensor: ...

@kind("constant")
@rule("eye")
def eye(n: int, m: int | None = None, *, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor: ...

@kind("constant")
def randperm(n: int, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad: bool = False, pin_memory: bool = False) -> " n": ...

@rule("like")
@names("zeros_like", "ones_like", "empty_like", "rand_like", "randn_like", "randint_like", "full_like")
def _like(input, *args, dtype=None, layout=None, device=None, requires_grad: bool = False, memory_format=None, **kwargs) -> Tensor: ...

@kind("constant")
@rule("tensor")
@names("tensor", "as_tensor")
def _tensor(data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor: ...

# -- indexing ---------------------------------------------------------------------------------------
@rule("index_select")
def index_select(input, dim: int, index, *, out=None) -> Tensor: ...

@rule("gather")
def gather(input, dim: int, index, *, sparse_grad: bool = False, out=None) -> Tensor: ...

@rule("scatter")
@names("scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_fill", "index_put")
def _scatter(input, dim: int, index, src=None, *args, **kwargs) -> Tensor: ...

@rule("masked")
@names("masked_fill", "masked_scatter")
def _masked(input, mask, value) -> Tensor: ...

@rule("masked_select")
def masked_select(input, mask, *, out=None) -> Tensor: ...

@rule("nonzero")
def nonzero(input, *, out=None, as_tuple: bool = False) -> Tensor: ...

@rule("bincount")
def bincount(input, weights=None, minlength: int = 0) -> Tensor: ...

def take(input: "*s", index: "*i") -> "*i": ...

@rule("take_along_dim")
def take_along_dim(input, indices, dim: int | None = None, *, out=None) -> Tensor: ...

@rule("numel")
def numel(input) -> int: ...

def broadcast_tensors(*tensors) -> Tensor: ...

@rule("meshgrid")
def meshgrid(*tensors, indexing: str | None = None) -> tuple: ...

# -- values and predicates (issue 15) -----------------------------------------------------------------
@rule("is_tensor")
def is_tensor(obj) -> bool: ...

@rule("dtype_is", kind="complex")
def is_complex(input) -> bool: ...

@rule("dtype_is", kind="floating")
def is_floating_point(input) -> bool: ...

@rule("default_dtype")
def get_default_dtype() -> dtype: ...

@kind("constant")
def scalar_tensor(s: float, *, dtype=None, layout=None, device=None, pin_memory: bool = False, requires_grad: bool = False) -> "": ...

@rule("view_as_real")
def view_as_real(input) -> Tensor: ...

@rule("bucketize")
def bucketize(input, boundaries, *, out_int32: bool = False, right: bool = False, out=None) -> Tensor: ...

def view_as_complex(input: "*s 2") -> "*s": ...

@rule("unique")
def unique(input, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None) -> Tensor: ...

@rule("repeat_interleave")
def repeat_interleave(input, repeats=None, dim: int | None = None, *, output_size: int | None = None) -> Tensor: ...

# -- `torch._foreach_*`: one op over lists of tensors (the optimizers' fused steps) ------------------------
# `@rule("foreach", operands=...)`: the operands after the list `self` (a number, a 0-d tensor, a list of
# numbers, or a list of tensors broadcasting item by item); `inplace=True`: each item keeps its shape.
@rule("foreach", operands=())
@names("_foreach_sqrt", "_foreach_exp", "_foreach_log", "_foreach_abs", "_foreach_neg", "_foreach_reciprocal", "_foreach_sign")
def _foreach_unary(self) -> list: ...

@rule("foreach", operands=(), inplace=True)
@names("_foreach_sqrt_", "_foreach_exp_", "_foreach_log_", "_foreach_abs_", "_foreach_neg_", "_foreach_reciprocal_", "_foreach_sign_", "_foreach_zero_")
def _foreach_unary_(self) -> list: ...

@rule("foreach", operands=("other",))
@names("_foreach_add", "_foreach_sub")
def _foreach_add(self, other, *, alpha=1) -> list: ...

@rule("foreach", operands=("other",), inplace=True)
@names("_foreach_add_", "_foreach_sub_")
def _foreach_add_(self, other, *, alpha=1) -> list: ...

@rule("foreach", operands=("other",))
@names("_foreach_mul", "_foreach_div", "_foreach_maximum", "_foreach_minimum", "_foreach_pow")
def _foreach_binary(self, other) -> list: ...

@rule("foreach", operands=("other",), inplace=True)
@names("_foreach_mul_", "_foreach_div_", "_foreach_maximum_", "_foreach_minimum_", "_foreach_pow_")
def _foreach_binary_(self, other) -> list: ...

@rule("foreach", operands=("tensor1", "tensor2", "value"))
@names("_foreach_addcdiv", "_foreach_addcmul")
def _foreach_addc(self, tensor1, tensor2, value=1) -> list: ...

@rule("foreach", operands=("tensor1", "tensor2", "value"), inplace=True)
@names("_foreach_addcdiv_", "_foreach_addcmul_")
def _foreach_addc_(self, tensor1, tensor2, value=1) -> list: ...

@rule("foreach", operands=("tensors1", "weights"))
def _foreach_lerp(self, tensors1, weights) -> list: ...

@rule("foreach", operands=("tensors1", "weights"), inplace=True)
def _foreach_lerp_(self, tensors1, weights) -> list: ...

@rule("foreach", operands=("src",), inplace=True)
def _foreach_copy_(self, src, non_blocking: bool = False) -> list: ...

@rule("foreach", operands=(), norm=True)
def _foreach_norm(self, ord=2, dtype=None) -> list: ...
