"""A registering decorator that finds its function's module (issue 22, timm's ``register_model``):
``sys.modules[fn.__module__]`` is the module that defines ``fn`` (a module imported so far),
``hasattr(mod, name)`` is true of a global the module has bound by then, and ``mod.name`` reads
it, so a table the module defines before its decorated builders (timm's ``default_cfgs``) reaches
the registry.  (A literal key such a module-level dict lacks is not decided absent: modules not run
yet may fill it.)  A key of ``sys.modules`` that is not an imported project module, and ``hasattr`` of
a global the module has not bound (a later definition, a star import, a module ``__getattr__``)
are not known."""

from __future__ import annotations

from pathlib import Path

from tests.libraries.conftest import CheckWithSite, reveals, torch_shapes

REGISTRY = """
import sys

_entrypoints = {}
_widths = {}


def register(fn):
    mod = sys.modules[fn.__module__]
    name = fn.__name__
    _entrypoints[name] = fn
    if hasattr(mod, "default_widths") and name in mod.default_widths:
        _widths[name] = mod.default_widths[name]
    else:
        _widths[name] = 7
    return fn


def create(name, **kwargs):
    kwargs.setdefault("width", _widths[name])
    return _entrypoints[name](**kwargs)
"""

MODELS = """
import torch.nn as nn
from ._registry import register

default_widths = {"small": 12, "tiny": 5}


class Net(nn.Module):
    def __init__(self, width, num_classes=3):
        super().__init__()
        self.body = nn.Linear(4, width)
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.head(self.body(x))


@register
def small(**kwargs):
    return Net(**kwargs)


@register
def tiny(**kwargs):
    return Net(**kwargs)
"""

USER = """
import torch
from tensorshape import reveal_shape
from pkg._registry import _widths, create
import pkg.models

model = create("small", num_classes=6)
reveal_shape(model.body(torch.randn(2, 4)))
reveal_shape(model(torch.randn(2, 4)))
reveal_shape(create("tiny").body(torch.randn(2, 4)))
"""

PACKAGE = {"_registry": REGISTRY, "models": MODELS}


def test_the_decorated_functions_module_is_found(check_with_site: CheckWithSite, tmp_path: Path) -> None:
    truth = torch_shapes(tmp_path, USER, "pkg", PACKAGE)
    assert truth == {8: "[2 12]", 9: "[2 6]", 10: "[2 5]"}
    found = check_with_site(USER, {"pkg": PACKAGE})
    assert not [f for f in found if f[1] != "TS900"], found
    shown = reveals(found)
    for line, shape in truth.items():
        assert shape in shown[line], (line, shown[line])


UNBOUND = """
import sys
import torch
import torch.nn as nn
from tensorshape import reveal_shape


def width_of(fn):
    mod = sys.modules[fn.__module__]
    return 5 if hasattr(mod, "later") else 9


def build():
    return nn.Linear(4, 4)


w = width_of(build)
reveal_shape(nn.Linear(4, w)(torch.randn(2, 4)))
reveal_shape(nn.Linear(4, 3)(torch.randn(2, 4)))
later = 1
"""


def test_a_global_not_bound_yet_is_not_decided(check_with_site: CheckWithSite) -> None:
    # The checked file's own functions: ``__module__`` may be ``"__main__"`` (not known), and a
    # global bound after the call is not there yet: never ``True`` (torch gives ``[2 9]``).
    shown = reveals(check_with_site(UNBOUND, {}))
    assert "[2 5]" not in shown[18], shown[18]
    assert "[2 3]" in shown[19]


BRANCHED = """
import sys

_widths = {}


def register(fn):
    if not sys.argv[1:]:
        _widths[fn.__name__] = 12
    else:
        _widths[fn.__name__] = 7
    return fn


@register
def small():
    return None
"""

BRANCHED_USER = """
import torch
import torch.nn as nn
from tensorshape import reveal_shape
from pkg.reg import _widths

reveal_shape(nn.Linear(4, _widths["small"])(torch.randn(2, 4)))
"""


def test_a_global_dict_written_on_one_branch_joins(check_with_site: CheckWithSite, tmp_path: Path) -> None:
    # A registering decorator's writes into a global dict under a test that is not known: the
    # entry is either value (it was the last branch's, 7, where torch gives 12: silently wrong).
    truth = torch_shapes(tmp_path, BRANCHED_USER, "pkg", {"reg": BRANCHED})
    assert truth == {7: "[2 12]"}
    shown = reveals(check_with_site(BRANCHED_USER, {"pkg": {"reg": BRANCHED}}))
    assert "[2 7]" not in shown[7] and "[2 12]" not in shown[7], shown[7]
    assert shown[7].startswith("revealed shape: [2 "), shown[7]


OWN_MODULE = """
import torch.nn as nn


def plain():
    return None


class Moved(nn.Module):
    __module__ = "pkg._registry"
"""

OWN_USER = """
import torch
import torch.nn as nn
from tensorshape import reveal_shape
from pkg.models import Moved, plain

widths = {"pkg._registry": 7, "pkg.models": 12}
reveal_shape(nn.Linear(4, widths[Moved.__module__])(torch.randn(2, 4)))
reveal_shape(nn.Linear(4, widths[plain.__module__])(torch.randn(2, 4)))
"""


def test_a_class_body_sets_its_own_module(check_with_site: CheckWithSite, tmp_path: Path) -> None:
    # ``__module__`` set in the class body is the class's (torch: 7, not the defining module's 12).
    package = {"_registry": REGISTRY, "models": OWN_MODULE}
    truth = torch_shapes(tmp_path, OWN_USER, "pkg", package)
    assert truth == {8: "[2 7]", 9: "[2 12]"}
    shown = reveals(check_with_site(OWN_USER, {"pkg": package}))
    for line, shape in truth.items():
        assert shape in shown[line], (line, shown[line])
