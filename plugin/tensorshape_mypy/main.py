"""The plugin class: the core's analysis of each user module, reported through mypy."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mypy.errors import Errors
from mypy.nodes import MypyFile
from mypy.options import Options
from mypy.plugin import FunctionContext, MethodContext, Plugin, ReportConfigContext
from mypy.types import Type

# mypy must know the error codes before it reads ``# type: ignore[...]`` and
# ``disable_error_code``: they are registered when the plugin loads.
from . import errorcodes as errorcodes
from .dims import dim_result
from .session import Session, is_user_path

if TYPE_CHECKING:
    from .replay import Replay

__all__ = ["TensorShapePlugin"]

#: Calls not hooked: they never see first-class dims' tensors, or are mypy's own business.
_FOREIGN = ("builtins.", "typing.", "typing_extensions.", "collections.", "_typeshed.", "types.", "enum.", "abc.")


class TensorShapePlugin(Plugin):
    """Shape checking inside mypy: ``tensorshape check``'s findings for each module mypy checks."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        # The daemon keeps the plugin between builds: the worker (its imports, its caches) stays too.
        self.session = Session(options.cache_dir, keep_worker=options.fine_grained_incremental)
        #: mypy's error collector (one per build): found by the first checker callback.
        self._errors: Errors | None = None
        #: The daemon: shape errors reported again when it re-checks some functions of a module.
        self._replay: Replay | None = None
        if options.fine_grained_incremental:
            from .replay import Replay

            self._replay = Replay()

    # -- calls: mypy's error collector, first-class dims ----------------------------------------
    def _call(self, ctx: FunctionContext | MethodContext) -> Type:
        self._errors = errors = ctx.api.msg.errors
        if self._replay:
            self._replay.on_call(errors)
        if errors.file in errors.ignored_files:
            # torch and the other installed packages (most calls of a cold run), modules mypy silences:
            # nothing is shown for them, and their types stay plain mypy's.
            return ctx.default_return_type
        return dim_result(ctx, self._modules or {})

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        return None if fullname.startswith(_FOREIGN) else self._call

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        return None if fullname.startswith(_FOREIGN) else self._call

    def errors(self) -> Errors | None:
        if self._errors is None:
            self._errors = _find_errors(self.options)
        return self._errors

    # -- after a module is type checked ------------------------------------------------------------
    def reports_on(self, module: str, path: str) -> Errors | None:
        """mypy's error collector if the plugin reports on ``module`` (at ``path``): a user module mypy
        does not silence (``follow_imports = silent``, installed packages, ``ignore_errors``)."""
        if not is_user_path(path) or self.options.clone_for_module(module).ignore_errors:
            return None
        errors = self.errors()
        if errors is None or path in errors.ignored_files:
            return None
        return errors

    def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
        """Called when mypy has parsed ``file`` (cold, or stale on a warm run): the worker starts on it.

        Not for a module whose errors mypy silences (``follow_imports = silent``, an installed
        package, ``ignore_errors``): mypy has marked it when it parsed it."""
        if self._replay is not None:
            self._replay.forget(file.path)
        if not file.is_stub and self.reports_on(file.fullname, file.path) is not None:
            self.session.prefetch(file.path, file.fullname)
        return []

    def get_additional_indirect_deps(self, file: MypyFile) -> set[str]:
        """Called after ``file`` is type checked, before its messages are flushed: report the core's findings."""
        errors = None if file.is_stub else self.reports_on(file.fullname, file.path)
        if errors is None or errors.file != file.path:
            return set()
        result = self.session.result(file.path)
        if result.config_error is not None:
            from tensorshape.model import codes

            errors.report(1, 0, result.config_error, errorcodes.error_code(codes.CONFIG_ERROR))
            return set()
        if result.diagnostics:
            from .replay import report_in_targets, targets_of

            # Each in the function it is in, as mypy's own errors: the daemon re-checks that function.
            by_target = report_in_targets(errors, result.diagnostics, targets_of(file))
            if self._replay is not None:
                self._replay.keep(errors, file.path, by_target)
        if result.reveals:
            from .reveal import rewrite_reveals

            rewrite_reveals(errors, file.path, result.reveals)
        return set()

    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        """Cached results are stale when the plugin, the stubs, the configuration or a file read changes."""
        checked = not ctx.is_check and self.reports_on(ctx.id, ctx.path) is not None
        return self.session.config_data(ctx.id, ctx.path, ctx.is_check, checked)


def _find_errors(options: Options) -> Errors | None:
    """mypy's error collector, when no checker callback has handed it over (a module without calls)."""
    import gc

    for ref in gc.get_referrers(options):
        errors = getattr(ref, "errors", None)
        if isinstance(errors, Errors):
            return errors
    return None
