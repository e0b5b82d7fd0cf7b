"""``hasattr`` on a configuration under construction, written like transformers 5's
``PreTrainedConfig.__post_init__`` (issue 22): the base defines ``__getattribute__`` (renaming through
an ``attribute_map`` class attribute and ending in ``super().__getattribute__(key)``), a mixin's rope
conversion assigns ``self.rope_parameters``, ``__post_init__`` runs it only ``if hasattr(self,
"rope_parameters")``, pops the generation parameters by names it does not know, sets what is left by
``setattr(self, key, value)`` and hands the config to a module-level function that reads
``getattr(config, "layer_types", None)``.

A config class without ``rope_parameters`` then has exactly the fields passed (``hidden_size=64``);
every piece that makes ``hasattr`` undecidable leaves the field unknown, never the class default
(768) and never an error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tensorshape.infer.api import check_file
from tensorshape.infer.libraries import Libraries
from tensorshape.infer.project import Project

CONFIG = """
from dataclasses import dataclass
from typing import ClassVar


class AmbiguousAttributeError(RuntimeError):
    pass


class GenerationConfig:
    max_length = 20
    num_beams = 1
    do_sample = False

    @classmethod
    def default_params(cls):
        return {name: getattr(cls, name) for name in dir(cls) if not name.startswith("_") and name != "default_params"}


def remap_layer_types(layer_types=None, config=None):
    if (layer_types is None) ^ (config is not None):
        raise ValueError("exactly one of layer_types or config")
    if layer_types is not None:
        return [{"sliding": "sliding_attention"}.get(t, t) for t in layer_types]
    if getattr(config, "layer_types", None) is not None:
        if (remapped := remap_layer_types(config.layer_types)) != config.layer_types:
            config.layer_types = remapped


class RopeMixin:
    default_theta = 10_000.0

    def convert_rope(self, **kwargs):
        rope_scaling = kwargs.pop("rope_scaling", None)
        self.rope_parameters = rope_scaling or self.rope_parameters
        self.rope_parameters = self.rope_parameters if self.rope_parameters is not None else {}
        theta = kwargs.pop("rope_theta", getattr(self, "rope_theta", self.default_theta))
        self.rope_parameters.setdefault("rope_theta", theta)
        self.standardize_rope()
        return kwargs

    def standardize_rope(self):
        params = getattr(self, "rope_parameters", None) or {}
        if not params:
            return
        params.setdefault("rope_type", params.get("type", "default"))
        if params["rope_type"] in ["yarn", "longrope"]:
            if hasattr(self, "original_max_position_embeddings"):
                self.rope_parameters["original_max_position_embeddings"] = self.original_max_position_embeddings
        self.rope_parameters = params


class LayerSpecMixin:
    def __getattribute__(self, key):
        spec = super().__getattribute__("__dict__").get("_layer_spec")
        if spec is not None and key in spec:
            raise AmbiguousAttributeError(f"{key} differs per layer")
        return super().__getattribute__(key)


@dataclass
class BaseConfig(RopeMixin, LayerSpecMixin):
    attribute_map: ClassVar[dict[str, str]] = {}
    output_hidden_states: bool = False

    def __post_init__(self, **kwargs):
        if hasattr(self, "rope_parameters"):
            kwargs = self.convert_rope(**kwargs)
        elif kwargs.get("rope_scaling") and kwargs.get("rope_theta"):
            kwargs = self.convert_rope(**kwargs)
        for name in GenerationConfig.default_params().keys():
            kwargs.pop(name, None)
        self.name_or_path = str(kwargs.pop("name_or_path", ""))
        for key, value in kwargs.items():
            setattr(self, key, value)
        remap_layer_types(config=self)

    def __setattr__(self, key, value):
        if key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        super().__setattr__(key, value)

    def __getattribute__(self, key):
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)


@dataclass(kw_only=True)
class TinyConfig(BaseConfig):
    vocab_size: int = 100
    hidden_size: int = 768
    num_heads: int = 12
    num_labels: int = 2

    def __post_init__(self, **kwargs):
        self.head_dim = self.head_dim if hasattr(self, "head_dim") else self.hidden_size // self.num_heads
        super().__post_init__(**kwargs)
"""

USER = """
import torch
import torch.nn as nn
from tensorshape import reveal_shape
from tinylib.config import TinyConfig

config = TinyConfig(hidden_size=64, num_heads=4, num_labels=3)
embed = nn.Embedding(config.vocab_size, config.hidden_size)
reveal_shape(embed(torch.randint(0, 100, (2, 5))))
probe = nn.Linear(768, 4)
wrong = probe(embed(torch.randint(0, 100, (2, 5))))
reveal_shape(torch.zeros(config.num_heads, config.head_dim))
"""


def _write(tmp_path: Path, config: str) -> tuple[Path, Path]:
    site = tmp_path / "site-packages"
    (site / "tinylib").mkdir(parents=True)
    (site / "tinylib" / "__init__.py").write_text("")
    (site / "tinylib" / "config.py").write_text(config)
    user = tmp_path / "proj"
    user.mkdir()
    (user / "main.py").write_text(USER)
    return site, user


def _check(tmp_path: Path, config: str = CONFIG) -> list[tuple[int, str, str]]:
    site, user = _write(tmp_path, config)
    r = check_file(user / "main.py", project=Project([user], Libraries((str(site),))))
    return [(d.span.line, d.code.id, d.message) for d in r.diagnostics]


def test_a_config_without_rope_parameters_has_the_fields_passed(tmp_path: Path) -> None:
    found = _check(tmp_path)
    assert (9, "TS900", "revealed shape: [2 5 64]") in found, found
    assert (12, "TS900", "revealed shape: [4 16]") in found, found
    # A probe built for the class-level default (768) fed the 64-wide embedding: torch raises.
    assert [line for line, code, _ in found if code == "TS101"] == [11], found


def test_the_library_runs_as_the_checker_reads_it(tmp_path: Path) -> None:
    """The synthetic library is real Python: ``hasattr`` is what the checker decides, the field is 64."""
    site, _ = _write(tmp_path, CONFIG)
    probe = (
        "from tinylib.config import TinyConfig\n"
        "c = TinyConfig(hidden_size=64, num_heads=4, num_labels=3)\n"
        "print(c.hidden_size, c.head_dim, hasattr(c, 'rope_parameters'), hasattr(c, 'layer_types'))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=site, check=True)
    assert out.stdout.split() == ["64", "16", "False", "False"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # A ``__getattr__`` may answer any name.
        ("    def __setattr__(self, key, value):", "    def __getattr__(self, key):\n        return 1\n\n    def __setattr__(self, key, value):"),
        # A ``__getattribute__`` that returns something else than the usual lookup.
        ("        return super().__getattribute__(key)\n\n\n@dataclass(kw_only=True)", "        return None\n\n\n@dataclass(kw_only=True)"),
        # A map that renames ``rope_parameters``: the lookup is of another name.
        ('    attribute_map: ClassVar[dict[str, str]] = {}', '    attribute_map: ClassVar[dict[str, str]] = {"rope_parameters": "rope_scaling"}'),
        # A function not in the class sets the attribute first, on an alias the checker does not follow back.
        (
            "    def __post_init__(self, **kwargs):\n",
            "    def __post_init__(self, **kwargs):\n        add_rope(self)\n",
        ),
        # A base that is not analysed may define it.
        ("class LayerSpecMixin:", "class LayerSpecMixin(dict):"),
    ],
)
def test_what_does_not_decide_hasattr_stays_unknown(tmp_path: Path, old: str, new: str) -> None:
    assert old in CONFIG
    config = CONFIG.replace(old, new)
    if "add_rope" in new:
        config += "\n\ndef add_rope(config):\n    config.rope_parameters = {'rope_type': 'default'}\n"
    found = _check(tmp_path, config)
    reveals = {line: msg for line, code, msg in found if code == "TS900"}
    assert "768" not in reveals[9], reveals
    if "__getattr__" in new or "return None" in new:
        # ``hasattr(self, "head_dim")`` is true there (``head_dim`` is 1, or ``None``): never 16.
        assert reveals[12] != "revealed shape: [4 16]", reveals
    assert [d for d in found if d[1] == "TS101" and d[0] != 11] == []


def test_a_config_with_rope_parameters_converts_them(tmp_path: Path) -> None:
    """A subclass that has the field: ``hasattr`` is true, the rope branch runs, the fields stay."""
    config = CONFIG + "\n\n@dataclass(kw_only=True)\nclass RopeConfig(TinyConfig):\n    rope_parameters: dict | None = None\n"
    site, user = _write(tmp_path, config)
    (user / "main.py").write_text(USER.replace("TinyConfig", "RopeConfig"))
    r = check_file(user / "main.py", project=Project([user], Libraries((str(site),))))
    found = [(d.span.line, d.code.id, d.message) for d in r.diagnostics]
    reveals = {line: msg for line, code, msg in found if code == "TS900"}
    assert "768" not in reveals[9], reveals
    assert [d for d in found if d[1] == "TS101" and d[0] != 11] == [], found
