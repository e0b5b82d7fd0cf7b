"""Registries filled by a decorator (issue 22): ``create_model("name")`` reads a module-level dict that
``@register_model`` fills when the module defining the builder runs.  A read with a literal key the
dict lacks runs the package's modules that define a decorated function of that name (the modules a
lazy star import never ran: their ``__all__`` does not list the builders); a key no module
registers is unknown with its cause counted, never an error."""

from __future__ import annotations

from pathlib import Path

from tensorshape.infer.api import check_file
from tensorshape.infer.libraries import Libraries
from tensorshape.infer.project import Project

from tests.libraries.test_follow import _setup

REGISTRY = """
import sys
import warnings

__all__ = ["register_model", "register_aliases", "model_entrypoint", "is_model"]

_model_entrypoints = {}
_model_to_module = {}


def _clear(name):
    _model_to_module.pop(name, None)


def register_model(fn):
    mod = sys.modules[fn.__module__]
    name = fn.__name__
    if hasattr(mod, "__all__"):
        if name not in mod.__all__:
            mod.__all__.append(name)
    if name in _model_entrypoints:
        warnings.warn(f"overwriting {name}")
        _clear(name)
    _model_entrypoints[name] = fn
    _model_to_module[name] = fn.__module__
    return fn


def register_aliases(table):
    for alias, current in table.items():
        if alias in _model_entrypoints:
            _clear(alias)
        _model_entrypoints[alias] = _model_entrypoints[current]


def is_model(name):
    return name in _model_entrypoints


def model_entrypoint(name):
    return _model_entrypoints[name]
"""

FACTORY = """
from ._registry import is_model, model_entrypoint


def create_model(model_name, **kwargs):
    if not is_model(model_name):
        raise RuntimeError("Unknown model (%s)" % model_name)
    create_fn = model_entrypoint(model_name)
    return create_fn(**kwargs)
"""

ALPHA = """
import torch.nn as nn
from ._registry import register_aliases, register_model

__all__ = ["Alpha"]


class Alpha(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.fc(x)


@register_model
def alpha_small(num_classes=10, **kwargs):
    return Alpha(num_classes=num_classes)


register_aliases({%s})
"""

BETA = """
import torch.nn as nn
from ._registry import register_model

__all__ = []


@register_model
def beta_tiny(num_classes=10, **kwargs):
    return nn.Linear(8, num_classes)
"""

USER = """
import torch
import reglib

m = reglib.create_model("alpha_small", num_classes=4)
reveal_shape(m(torch.randn(2, 16)))
b = reglib.create_model("beta_tiny", num_classes=3)
reveal_shape(b(torch.randn(2, 8)))
b(torch.randn(2, 9))
n = reglib.create_model("gamma_missing", num_classes=3)
reveal_shape(n(torch.randn(2, 8)))
a = reglib.create_model("alias_7", num_classes=5)
reveal_shape(a(torch.randn(2, 16)))
"""


def _package(tmp_path: Path) -> tuple[Path, Libraries]:
    main, libs = _setup(tmp_path)  # a site folder with a stand-in ``torch``, and a project
    models = Path(libs.paths[0]) / "reglib" / "models"
    models.mkdir(parents=True)
    (models.parent / "__init__.py").write_text("from .models import create_model\n")
    (models / "__init__.py").write_text(
        "from ._factory import create_model\nfrom .alpha import *\nfrom .beta import *\n"
    )
    (models / "_registry.py").write_text(REGISTRY)
    (models / "_factory.py").write_text(FACTORY)
    # More aliases than a loop is unrolled over in general (24): a registry joined over iterations
    # would be unknown.
    (models / "alpha.py").write_text(ALPHA % ", ".join(f'"alias_{i}": "alpha_small"' for i in range(40)))
    (models / "beta.py").write_text(BETA)
    main.write_text(USER)
    return main, libs


def test_registry_read_with_a_literal_key_runs_the_registering_module(tmp_path: Path) -> None:
    main, libs = _package(tmp_path)
    r = check_file(main, project=Project([main.parent], libs))
    found = [(d.span.line, d.code.id, d.message) for d in r.diagnostics]
    assert found[:3] == [
        (6, "TS900", "revealed shape: [2 4]"),
        (8, "TS900", "revealed shape: [2 3]"),
        (9, "TS101", found[2][2]),
    ]
    assert "dim 1 is 9, expected in_features=8" in found[2][2]
    # A key no module registers: unknown, with its cause counted; never an error.
    assert found[3] == (11, "TS900", "revealed shape: unknown (not followed: registry key not found)")
    assert r.stats["cause:not followed: registry key not found"] == 1
    assert found[4:] == [(13, "TS900", "revealed shape: [2 5]")]


def test_decorated_names_index(tmp_path: Path) -> None:
    main, libs = _package(tmp_path)
    project = Project([main.parent], libs)
    assert project.decorated_in("reglib.models._registry", "alpha_small") == ("reglib.models.alpha",)
    assert project.decorated_in("reglib", "beta_tiny") == ("reglib.models.beta",)
    assert project.decorated_in("reglib", "Alpha") == ()  # not decorated
    assert project.decorated_in("reglib", "gamma_missing") == ()


def test_a_local_dict_or_a_plain_module_is_never_filled(tmp_path: Path) -> None:
    """Only a module-level dict of a package is filled: a local dict read with a missing key stays
    unknown without running anything."""
    main, libs = _package(tmp_path)
    main.write_text(
        "import torch\nfrom reglib.models._registry import _model_entrypoints\n\n"
        'registry = {}\nfn = registry.get("alpha_small")\nreveal_shape(torch.randn(2, 3))\n'
    )
    project = Project([main.parent], libs)
    check_file(main, project=project)
    alpha = project.by_name.get("reglib.models.alpha")
    assert alpha is None or not alpha.state
