"""``getattr(self, "_name", default)`` of an installed ``nn.Module`` whose package writes ``_name``
only in functions the analysis has not reached (issue 22: transformers' ``PreTrainedModel.train``
reads ``getattr(self, "_use_kernels", False)``, which only ``set_use_kernels``, the ``use_kernels``
setter and ``kernelize`` write).  A module the program built and never gave to code not interpreted
(nor to a call cut short) lacks it then: the default.  Once one of those functions has run (on any
object) the answer is what the analysis saw set, or not decided.  Each program is run with torch for
the truth."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.libraries.conftest import CheckWithSite, reveals, torch_shapes

BASE = """
import torch
import torch.nn as nn


def enable(model):
    model._fast = True


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 4)

    @property
    def fast(self):
        return getattr(self, "_fast", False)

    @fast.setter
    def fast(self, value):
        self._fast = value

    def train(self, mode=True):
        out = super().train(mode)
        if self.fast:
            self.proj = nn.Linear(8, 2)
        return out

    def forward(self, x):
        if getattr(self, "_fast", False):
            return self.proj(x).sum(-1)
        return self.proj(x)
"""

USER = """
import torch
from tensorshape import reveal_shape
from kernlib.base import Base, enable

x = torch.randn(2, 8)
model = Base()
model.eval()
reveal_shape(model(x))
other = Base()
enable(other)
reveal_shape(other(x))
later = Base()
later.eval()
reveal_shape(later(x))
"""

#: Torch's shapes by line.
TRUTH = {9: "[2 4]", 12: "[2]", 15: "[2 4]"}


@pytest.mark.torch
def test_truth(tmp_path: Path) -> None:
    assert torch_shapes(tmp_path, USER, "kernlib", {"base": BASE}) == TRUTH


def test_private_attribute_never_written(check_with_site: CheckWithSite) -> None:
    shown = reveals(check_with_site(USER, {"kernlib": {"base": BASE}}))
    assert shown[9] == f"revealed shape: {TRUTH[9]}"
    assert shown[12] == f"revealed shape: {TRUTH[12]}"
    # ``enable`` has run (on another object): the writers of ``_fast`` are no longer all unreached,
    # so neither branch is picked (never a guess).
    assert shown[15] in ("revealed shape: [...]", "revealed shape: unknown")


#: A write of ``_fast`` at module level (a place not in a function): never decided.
AT_TOP = (
    BASE
    + """

_default = Base()
_default._fast = True
"""
)


def test_write_outside_a_function_is_not_decided(check_with_site: CheckWithSite) -> None:
    user = USER.split("other = Base()")[0]
    shown = reveals(check_with_site(user, {"kernlib": {"base": AT_TOP}}))
    assert shown[9] in ("revealed shape: [...]", "revealed shape: unknown")


def test_package_writers(tmp_path: Path) -> None:
    from tensorshape.infer.writers import PackageWriters

    root = tmp_path / "pkg"
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "a.py").write_text(
        "def read(m):\n    return getattr(m, '_x', None), hasattr(m, '_x'), m._x\n\n"
        "def put(m):\n    setattr(m, '_x', 1)\n\n"
        "class C:\n    @property\n    def x(self):\n        return self._x\n\n"
        "    @x.setter\n    def x(self, v):\n        self._x = v\n\n"
        "    @x.deleter\n    def x(self):\n        del self._x\n"
    )
    (root / "b.py").write_text("def f(**kw):\n    return kw\n\ndef g():\n    return f(_y=1)\n\nzz = 1\n")
    where = str((root / "a.py").resolve())
    writers = PackageWriters()
    assert writers.writers(root, "_x") == {(where, "put"), (where, "x:setter"), (where, "x:deleter")}
    assert writers.writers(root, "_y") == {(str((root / "b.py").resolve()), "g")}
    assert writers.writers(root, "_never") == frozenset()
    (root / "c.py").write_text("import pkg.a\npkg.a.C()._z = 1\n")
    (root / "d.py").write_text("F = lambda m: setattr(m, '_w', 1)\n")
    again = PackageWriters()  # (the files of a package are listed once)
    assert again.writers(root, "_z") is None  # at module level
    assert again.writers(root, "_w") is None  # in a lambda


def test_private_module_names_are_torchs() -> None:
    import torch.nn as nn
    from tensorshape.infer.values import NN_MODULE_PRIVATE_NAMES

    assert {n for n in dir(nn.Module()) if n.startswith("_") and not n.startswith("__")} <= NN_MODULE_PRIVATE_NAMES
