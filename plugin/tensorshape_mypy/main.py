"""The plugin class: the core's analysis of each user module, reported through mypy."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mypy.errors import ErrorInfo, Errors
from mypy.nodes import MypyFile
from mypy.options import Options
from mypy.plugin import (
    AnalyzeTypeContext,
    AttributeContext,
    ClassDefContext,
    DynamicClassDefContext,
    FunctionContext,
    FunctionSigContext,
    MethodContext,
    MethodSigContext,
    Plugin,
    ReportConfigContext,
)
from mypy.types import FunctionLike, Type

# mypy must know the error codes before it reads ``# type: ignore[...]`` and
# ``disable_error_code``: they are registered when the plugin loads.
from . import errorcodes as errorcodes
from .dims import dim_result
from .session import Session, is_user_path

if TYPE_CHECKING:
    from .replay import Fresh, Replay, Unit
    from .session import Findings

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
        #: The daemon: the module mypy parsed at each user path (for the dependencies of :func:`depend`).
        self._module_of: dict[str, str] = {}
        if options.fine_grained_incremental:
            from .replay import Replay

            self._replay = Replay(self._fresh)

    # -- calls: mypy's error collector, first-class dims ----------------------------------------
    def _call(self, ctx: FunctionContext | MethodContext) -> Type:
        self._errors = errors = ctx.api.msg.errors
        if self._replay is not None:
            self._replay.signal(errors)
        if errors.file in errors.ignored_files:
            # torch and the other installed packages (most calls of a cold run), modules mypy silences:
            # nothing is shown for them, and their types stay plain mypy's.
            return ctx.default_return_type
        return dim_result(ctx, self._modules or {})

    def _hooks_calls(self, fullname: str) -> bool:
        """Whether mypy should call :meth:`_call` for a call of ``fullname`` in the module it checks now.

        Not in a module whose messages mypy does not show (torch and the other installed packages, most
        of a cold run's calls; modules mypy silences), once the first call has handed over mypy's error
        collector: a hook costs mypy more than the call (it maps the arguments onto the parameters for
        the hook's context), and there the hook would return mypy's own type.  The daemon asks for
        every call: each is a signal (``replay.py``).
        """
        if fullname.startswith(_FOREIGN):
            return False
        errors = self._errors
        return errors is None or self._replay is not None or errors.file not in errors.ignored_files

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        return self._call if self._hooks_calls(fullname) else None

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        return self._call if self._hooks_calls(fullname) else None

    # -- the daemon: every other hook mypy asks for says where it is ------------------------------
    # A re-check of a function or of a module's top level calls no per-module hook, and may make no
    # call; it asks for a hook at each annotation, attribute, signature, class or assignment of a
    # call it analyses.  None is given: the question is the signal (`replay.py`).
    def _signal(self) -> None:
        # (Each asks `self._replay` first: outside the daemon a getter costs a test, not a call.)
        if self._replay is not None and self._errors is not None:
            self._replay.signal(self._errors)

    def get_type_analyze_hook(self, fullname: str) -> Callable[[AnalyzeTypeContext], Type] | None:
        if self._replay is not None:
            self._signal()
        return None

    def get_function_signature_hook(self, fullname: str) -> Callable[[FunctionSigContext], FunctionLike] | None:
        if self._replay is not None:
            self._signal()
        return None

    def get_method_signature_hook(self, fullname: str) -> Callable[[MethodSigContext], FunctionLike] | None:
        if self._replay is not None:
            self._signal()
        return None

    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        if self._replay is not None:
            self._signal()
        return None

    def get_class_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        if self._replay is not None:
            self._signal()
        return None

    def get_class_decorator_hook_2(self, fullname: str) -> Callable[[ClassDefContext], bool] | None:
        if self._replay is not None:
            self._signal()
        return None

    def get_base_class_hook(self, fullname: str) -> Callable[[ClassDefContext], None] | None:
        if self._replay is not None:
            self._signal()
        return None

    def get_dynamic_class_hook(self, fullname: str) -> Callable[[DynamicClassDefContext], None] | None:
        if self._replay is not None:
            self._signal()
        return None

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
            if is_user_path(file.path):
                self._module_of[os.path.realpath(file.path)] = file.fullname
        if not file.is_stub and self.reports_on(file.fullname, file.path) is not None:
            self.session.prefetch(file.path, file.fullname)
            if self._replay is not None:
                path = file.path
                self._replay.checking(path, lambda: _units(self.session.result(path)))
        return []

    def get_additional_indirect_deps(self, file: MypyFile) -> set[str]:
        """Called after ``file`` is type checked, before its messages are flushed: report the core's findings."""
        if self._replay is not None and is_user_path(file.path):
            from .replay import stamp

            stamp(file)
        errors = None if file.is_stub else self.reports_on(file.fullname, file.path)
        if errors is None or errors.file != file.path:
            return set()
        result = self.session.result(file.path)
        early = self._replay.reported_early(file.path) if self._replay is not None else None
        if early is None:
            from .replay import recorded

            early = [(line, unit, recorded(errors, unit(errors))) for line, unit in _units(result)]
        if early:
            from .replay import mark, targets_of

            # Each in the function it is in, as mypy's own errors: the daemon re-checks that function.
            target = targets_of(file)
            reported = [(target(line), unit, infos) for line, unit, infos in early]
            for name, _, infos in reported:
                mark(infos, name)
        else:
            reported = []
        if self._replay is not None:
            from .replay import depend

            files = result.files()
            self._replay.keep(errors, file.path, reported, result.reveals, files)
            depend(file, (m for m in map(self._module_of.get, files) if m is not None))
        if result.reveals:
            from .reveal import rewrite_reveals

            rewrite_reveals(errors, file.path, result.reveals)
        return set()

    def _fresh(self, path: str) -> Fresh:
        """The daemon: analyse ``path`` again (files its analysis read changed since)."""
        self.session.prefetch(path)
        result = self.session.result(path)
        return _units(result), result.files(), result.reveals

    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        """Cached results are stale when the plugin, the stubs, the configuration or a file read changes."""
        checked = not ctx.is_check and self.reports_on(ctx.id, ctx.path) is not None
        return self.session.config_data(ctx.id, ctx.path, ctx.is_check, checked)


def _units(result: Findings) -> list[tuple[int, Unit]]:
    """What reports the findings of one file: its diagnostics, or its configuration's error."""
    if result.config_error is not None:
        message = result.config_error

        def config_error(errors: Errors) -> list[ErrorInfo]:
            from tensorshape.model import codes

            return [errors.report(1, 0, message, errorcodes.error_code(codes.CONFIG_ERROR))]

        return [(1, config_error)]
    from .replay import units_of

    return units_of(result.diagnostics)


def _find_errors(options: Options) -> Errors | None:
    """mypy's error collector, when no checker callback has handed it over (a module without calls)."""
    import gc

    for ref in gc.get_referrers(options):
        errors = getattr(ref, "errors", None)
        if isinstance(errors, Errors):
            return errors
    return None
