"""The plugin class: picks a callback for each fully qualified name, nothing more."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import tensorshape
from mypy.nodes import MypyFile
from mypy.plugin import (
    AnalyzeTypeContext,
    AttributeContext,
    FunctionContext,
    MethodContext,
    Plugin,
    ReportConfigContext,
)
from mypy.types import Type

# mypy must know the error codes before it reads ``# type: ignore[...]`` and
# ``disable_error_code``: they are registered when the plugin loads.
from . import errorcodes as errorcodes

__all__ = ["TensorShapePlugin"]

# The core and the callbacks are imported on first use: a warm run that
# re-checks nothing never pays for them.
_ANNOTATED = frozenset({"typing.Annotated", "typing_extensions.Annotated"})

#: Where torch defines ``torch.matmul`` and friends for mypy.
_TORCH_FUNCTION_MODULES = ("torch._C._VariableFunctions.", "torch._C._nn.", "torch.functional.")
_TENSOR_CLASSES = frozenset({"torch._C.TensorBase", "torch._tensor.Tensor"})
#: Modules whose methods are never tensors, modules or annotated user code.
_FOREIGN = ("builtins.", "typing.", "typing_extensions.", "collections.", "_typeshed.", "types.", "enum.")
#: Libraries whose functions the stubs model (and whose classes, for torch: einops layers
#: need the sizes the CLI gets by analysing the constructor with its call's arguments).
_MODELLED = ("torch.", "einops.")
_REVEAL = frozenset({"tensorshape.reveal_shape"})
_INT_OPS = frozenset({"__add__", "__radd__", "__sub__", "__mul__", "__rmul__", "__floordiv__"})


def _analyze_annotated(ctx: AnalyzeTypeContext) -> Type:
    from .aftercheck import seen_errors
    from .annotated import analyze_annotated

    seen_errors(getattr(getattr(ctx.api, "api", None), "errors", None))

    return analyze_annotated(ctx)


def _torch_name(fullname: str) -> str:
    from tensorshape.rules.names import canonical

    for prefix in _TORCH_FUNCTION_MODULES:
        if fullname.startswith(prefix):
            return canonical("torch." + fullname[len(prefix) :])
    return canonical(fullname)


class TensorShapePlugin(Plugin):
    """Shape checking inside mypy, with the rules and stubs of the ``tensorshape`` CLI."""

    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        return _analyze_annotated if fullname in _ANNOTATED else None

    @functools.cache  # noqa: B019 - one plugin instance per run; names are pure
    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        if fullname.startswith(_FOREIGN):
            return None
        from tensorshape.rules.engine import table

        from . import calls

        if fullname in _REVEAL:
            return calls.reveal_shape
        if fullname.startswith(_MODELLED):
            q = _torch_name(fullname)
            if table().lookup(q):
                return calls.torch_function(q)
            if q in table().classes and fullname.startswith("torch."):
                return calls.construct_module(q)
            return None
        return calls.user_function

    @functools.cache  # noqa: B019
    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        cls, _, name = fullname.rpartition(".")
        if cls == "builtins.int" and name in _INT_OPS:
            from . import calls

            return calls.int_arith(name)
        if fullname.startswith(_FOREIGN):
            return None
        from . import calls

        return calls.method(name)

    @functools.cache  # noqa: B019
    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        cls, _, attr = fullname.rpartition(".")
        if cls not in _TENSOR_CLASSES and not cls.startswith("torch.nn.modules."):
            return None
        from tensorshape.rules.engine import table

        from . import calls

        if cls in _TENSOR_CLASSES:
            defs = table().lookup(f"torch.Tensor.{attr}")
            if defs and "property" in defs[0].kinds:
                return calls.tensor_attribute(attr)
            return None
        if cls.startswith("torch.nn.modules."):
            return calls.module_attribute(attr)
        return None

    def get_additional_indirect_deps(self, file: MypyFile) -> set[str]:
        """Called after ``file`` is type checked: returns are checked, ``reveal_type`` shows shapes."""
        from .aftercheck import finish

        finish(file)
        return set()

    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        """Cached results are stale when the plugin or the stubs change (called for every module)."""
        return _config_data()


@functools.cache
def _config_data() -> dict[str, str]:
    from tensorshape.rules.stubdir import stubs_digest

    return {"version": tensorshape.__version__, "stubs": stubs_digest()}
