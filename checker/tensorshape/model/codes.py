"""The registry of diagnostic codes.

Codes are stable: an id, once published, keeps its meaning.  Every code has an
entry in ``docs/diagnostics.md`` (a test checks it) and a SARIF rule.

Numbering: ``TS0xx`` input and tool problems, ``TS1xx`` shape errors,
``TS2xx`` einsum/einops, first-class dims and jagged tensors, ``TS3xx`` Vollo
layout rules, ``TS9xx`` notes.
"""

from __future__ import annotations

from .diagnostics import Code, Severity

__all__ = ["ALL_CODES", "lookup"]

ALL_CODES: dict[str, Code] = {}
_BY_NAME: dict[str, Code] = {}


def _code(id: str, name: str, severity: Severity, summary: str, default_enabled: bool = True) -> Code:
    code = Code(id, name, severity, summary, default_enabled)
    assert id not in ALL_CODES and name not in _BY_NAME, id
    ALL_CODES[id] = code
    _BY_NAME[name] = code
    return code


def lookup(key: str) -> Code | None:
    """A code by id (``TS101``) or name (``shape-mismatch``)."""
    return ALL_CODES.get(key.upper()) or _BY_NAME.get(key.lower())


E, W, N = Severity.ERROR, Severity.WARNING, Severity.NOTE

# -- input and tool problems ---------------------------------------------------------
SHAPE_SYNTAX = _code("TS001", "shape-syntax", E, "Malformed shape string in an annotation")
JAXTYPING_COMPAT = _code("TS002", "jaxtyping-compat", W, "Annotation spelling that jaxtyping's runtime checker rejects")
SYNTAX_ERROR = _code("TS003", "syntax-error", E, "The file is not valid Python or cannot be decoded")
INTERNAL_ERROR = _code("TS004", "internal-error", E, "tensorshape failed while analysing this function")
CONFIG_ERROR = _code("TS005", "config-error", E, "Invalid tensorshape configuration")
UNKNOWN_OP = _code(
    "TS006", "unknown-op", N, "A torch function tensorshape does not model (its result is unknown)", False
)
BAD_ANNOTATION = _code("TS007", "bad-annotation", W, "A shape annotation tensorshape cannot use")
FILE_SKIPPED = _code(
    "TS008",
    "file-skipped",
    W,
    "A file tensorshape did not analyse (unreadable, not a regular file, too big or too deep)",
)

# -- shape errors ---------------------------------------------------------------------
SHAPE_MISMATCH = _code("TS101", "shape-mismatch", E, "A dim differs from the size an operation or annotation requires")
BROADCAST = _code("TS102", "broadcast-mismatch", E, "Shapes cannot be broadcast together")
RANK_MISMATCH = _code("TS103", "rank-mismatch", E, "A tensor has the wrong number of dims")
SYMBOLIC_MISMATCH = _code(
    "TS104", "symbolic-mismatch", E, "Two distinct annotated dims must be equal but nothing says they are"
)
DIM_RANGE = _code("TS105", "dim-out-of-range", E, "A dim argument is outside the tensor's rank")
RESHAPE = _code("TS106", "reshape-mismatch", E, "A reshape or view does not preserve the number of elements")
INDEX_RANGE = _code("TS107", "index-out-of-range", E, "An index or slice bound is outside a dim's size")
INVALID_ARG = _code("TS108", "invalid-argument", E, "An argument value the operation rejects")
UNSOLVABLE = _code(
    "TS109", "unsolvable", E, "A dim equation has no integer solution (not divisible, not a perfect square)"
)
REMOVED_API = _code("TS110", "removed-api", W, "A tensor API that the targeted torch (2.13) no longer has")
SIZE_CONDITION = _code(
    "TS115", "size-condition", W, "An operation that works only for some sizes the code allows (the condition is named)"
)

# -- data pipelines --------------------------------------------------------------------
LAST_BATCH = _code(
    "TS120", "last-batch", W, "Code that holds for full batches but not for a DataLoader's smaller last batch"
)
OPTION_DEFAULT = _code(
    "TS121", "option-default", W, "A requirement that fails with a command-line option's default value"
)

# -- einsum, einops, first-class dims, jagged tensors ---------------------------------
DIM_REBIND = _code(
    "TS201", "dim-rebind", E, "A first-class dim (functorch.dim) is bound to a size other than the one it has"
)

# -- Vollo data-dimension rules (``--vollo``) -------------------------------------------
VOLLO_POINTWISE = _code(
    "TS301", "vollo-pointwise", E, "Vollo: operands of a pointwise op or concatenation have different data dims"
)
VOLLO_MATMUL = _code(
    "TS302", "vollo-matmul-unsupported", E, "Vollo: a matrix multiplication layout Vollo cannot compile"
)
VOLLO_DYNAMIC_WEIGHTS = _code(
    "TS303", "vollo-dynamic-weights", E, "Vollo: a matmul that compiles only with allow_dynamic_weights"
)
VOLLO_RESHAPE = _code("TS304", "vollo-reshape", E, "Vollo: a reshape that does not preserve the data dim's stride")
VOLLO_REDUCE = _code("TS305", "vollo-reduce-keepdim", E, "Vollo: a reduction over the data dim without keepdim")
VOLLO_DATA_DIM_REMOVED = _code(
    "TS306", "vollo-data-dim-removed", E, "Vollo: indexing or squeezing removes the data dim"
)
VOLLO_NORM = _code("TS307", "vollo-norm", E, "Vollo: a LayerNorm/RMSNorm that does not normalise over the data dim")
VOLLO_CONV = _code("TS308", "vollo-conv", E, "Vollo: a Conv1d whose input's data dim is not the channel axis")
VOLLO_OUTPUT = _code("TS309", "vollo-output", E, "Vollo: a model output whose data dim is not its last axis")

# -- notes --------------------------------------------------------------------------
REVEAL = _code("TS900", "reveal", N, "The shape revealed by reveal_shape()")
OBLIGATION = _code(
    "TS901", "runtime-obligation", N, "A requirement that involves an unknown shape becomes a runtime check", False
)
