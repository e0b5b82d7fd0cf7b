"""Which calls the plugin asks mypy to hand it (a hook costs mypy more than the call it makes)."""

from __future__ import annotations

import pytest
from mypy.errors import Errors
from mypy.options import Options
from tensorshape_mypy.main import TensorShapePlugin

pytestmark = pytest.mark.mypy


def _plugin(*, daemon: bool = False) -> tuple[TensorShapePlugin, Errors]:
    options = Options()
    options.fine_grained_incremental = daemon
    plugin = TensorShapePlugin(options)
    errors = Errors(options)
    errors.ignored_files.add("/venv/site-packages/torch/functional.py")
    return plugin, errors


def test_calls_in_modules_whose_messages_mypy_hides_are_not_hooked() -> None:
    plugin, errors = _plugin()
    # Before the first call hands over mypy's error collector, every call is hooked.
    assert plugin.get_function_hook("torch.functional.einsum") is not None
    plugin._errors = errors
    errors.set_file("/venv/site-packages/torch/functional.py", "torch.functional", errors.options)
    assert plugin.get_function_hook("torch.functional.einsum") is None
    assert plugin.get_method_hook("torch._tensor.Tensor.view") is None
    errors.set_file("model.py", "model", errors.options)  # a user module: its calls may be given dims
    assert plugin.get_function_hook("torch.functional.einsum") is not None
    assert plugin.get_method_hook("torch._tensor.Tensor.view") is not None
    # mypy's own business, never hooked.
    assert plugin.get_function_hook("builtins.len") is None


def test_the_daemon_hooks_every_call() -> None:
    """Under the daemon each call is a signal of the module mypy works on (``replay.py``)."""
    plugin, errors = _plugin(daemon=True)
    plugin._errors = errors
    errors.set_file("/venv/site-packages/torch/functional.py", "torch.functional", errors.options)
    assert plugin.get_function_hook("torch.functional.einsum") is not None
