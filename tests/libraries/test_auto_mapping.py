"""A model class looked up by its config's class in a lazy mapping (issue 22: transformers'
``AutoModel.from_config``).  The mapping's ``__contains__`` is the class's own; the registered
extras start empty and only ``register`` fills them, so while it has not run ``type(config) in
self._extra`` is false; a module global filled only at the top level of the module reading it
(``SPECIAL.update(...)``) holds what the analysis saw; ``importlib.import_module(".tiny",
"automodels")`` is the module.  Anything that may have filled them (``register`` reached) leaves the
lookup undecided, never a guess.  Torch gives the truth."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.libraries.conftest import CheckWithSite, reveals

MAPPINGS = """
SPECIAL = {"x-special": "xs"}
NAMES = {"tiny": "TinyConfig"}
MODELS = {"tiny": "TinyModel"}
"""

AUTO = """
import importlib

from .mappings import MODELS, NAMES, SPECIAL

SPECIAL.update({"y": "why"})
DEPRECATED = []


def module_name(key):
    if key in SPECIAL:
        key = SPECIAL[key]
        if key in DEPRECATED:
            key = "old." + key
        return key
    key = key.replace("-", "_")
    if key in DEPRECATED:
        key = "old." + key
    return key


class LazyMapping:
    def __init__(self, configs, models):
        self._configs = configs
        self._reverse = {v: k for k, v in configs.items()}
        self._models = models
        self._extra = {}
        self._modules = {}

    def __contains__(self, item):
        if item in self._extra:
            return True
        if item.__name__ not in self._reverse:
            return False
        return self._reverse[item.__name__] in self._models

    def __getitem__(self, key):
        if key in self._extra:
            return self._extra[key]
        model_type = self._reverse[key.__name__]
        name = module_name(model_type)
        if name not in self._modules:
            self._modules[name] = importlib.import_module(f".{name}", "automodels")
        return getattr(self._modules[name], self._models[model_type])

    def register(self, key, value):
        self._extra[key] = value


MAPPING = LazyMapping(NAMES, MODELS)


class AutoModel:
    _mapping = MAPPING

    @classmethod
    def from_config(cls, config):
        if type(config) in cls._mapping:
            return cls._mapping[type(config)](config)
        raise ValueError("unrecognised config")
"""

TINY = """
import torch.nn as nn


class TinyConfig:
    def __init__(self, hidden=4):
        self.hidden = hidden


class TinyModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.proj = nn.Linear(8, config.hidden)

    def forward(self, x):
        return self.proj(x)


class Wide(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.proj = nn.Linear(8, 2 * config.hidden)

    def forward(self, x):
        return self.proj(x)
"""

PACKAGE = {"automodels": {"mappings": MAPPINGS, "auto": AUTO, "tiny": TINY}}

USER = """import torch
from tensorshape import reveal_shape
from automodels.auto import AutoModel
from automodels.tiny import TinyConfig

model = AutoModel.from_config(TinyConfig(hidden=5))
reveal_shape(model(torch.randn(3, 8)))
"""

#: Torch's shapes, by line.
TRUTH = {7: "[3 5]"}


def test_the_programs_truth(tmp_path: Path) -> None:
    for name, text in PACKAGE["automodels"].items():
        (tmp_path / "automodels").mkdir(exist_ok=True)
        (tmp_path / "automodels" / f"{name}.py").write_text(text)
    (tmp_path / "automodels" / "__init__.py").write_text("")
    probe = USER.replace(
        "from tensorshape import reveal_shape\n",
        "import sys\nreveal_shape = lambda t: print(sys._getframe(1).f_lineno - 1, list(t.shape))\n",
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True)
    seen = {int(r.split(" ", 1)[0]): r.split(" ", 1)[1].replace(",", "") for r in out.stdout.splitlines()}
    assert seen == TRUTH


def test_the_model_class_is_found(check_with_site: CheckWithSite) -> None:
    found = check_with_site(USER, PACKAGE)
    assert reveals(found) == {line: f"revealed shape: {shape}" for line, shape in TRUTH.items()}
    assert [d for d in found if d[1] != "TS900"] == [], found


def test_a_registration_leaves_the_lookup_undecided(check_with_site: CheckWithSite) -> None:
    """``register`` reached: the extras may hold the config's class (here they do, for ``Wide``)."""
    user = USER.replace(
        "from automodels.tiny import TinyConfig\n",
        "from automodels.tiny import TinyConfig, Wide\n\nAutoModel._mapping.register(TinyConfig, Wide)\n",
    )
    shown = reveals(check_with_site(user, PACKAGE))
    assert shown[9] != "revealed shape: [3 5]", shown


def test_an_edit_elsewhere_leaves_a_global_undecided(check_with_site: CheckWithSite) -> None:
    """``SPECIAL`` edited at the top level of another module: the reading module's view may lack it."""
    other = {**PACKAGE["automodels"], "plugin": "from .mappings import SPECIAL\n\nSPECIAL['tiny'] = 'gone'\n"}
    user = USER.replace("from automodels.auto import AutoModel\n", "from automodels.auto import AutoModel\nimport automodels.plugin\n")
    shown = reveals(check_with_site(user, {"automodels": other}))
    assert shown[8] != "revealed shape: [3 5]", shown


def test_package_contents_and_global_writers(tmp_path: Path) -> None:
    from tensorshape.infer.writers import TOP_LEVEL, PackageWriters

    root = tmp_path / "automodels"
    root.mkdir()
    (root / "__init__.py").write_text("")
    for name, text in PACKAGE["automodels"].items():
        (root / f"{name}.py").write_text(text)
    auto = str((root / "auto.py").resolve())
    writers = PackageWriters()
    assert writers.writers(root, "_extra", contents=True) == {(auto, "register")}  # (``= {}`` fills nothing)
    assert writers.writers(root, "SPECIAL", glob=True) == {(auto, TOP_LEVEL)}
    assert writers.writers(root, "DEPRECATED", glob=True) == frozenset()
    (root / "alias.py").write_text("from .mappings import NAMES\n\nKEEP = NAMES\n")
    assert PackageWriters().writers(root, "NAMES", glob=True) is None  # an alias at the top level
