"""Configuration classes built like transformers 5's (issue 22): a base whose ``__init_subclass__``
makes every subclass a ``dataclass(cls, kw_only=True)`` and replaces its ``__init__`` by one taking
any keyword (fields from the keywords or their defaults, the rest passed to ``__post_init__``), a
``__setattr__`` that renames through an ``attribute_map`` class attribute, a ``@strict`` decorator
like huggingface_hub's (a validating ``__setattr__`` ending in the original setter, an ``__init__``
that calls the original and then the validators) and a docstring decorator.  A field is the value
passed, the default otherwise; every piece that is not safe to follow leaves it unknown, never wrong
and never an error."""

from __future__ import annotations

import pytest

from tests.libraries.conftest import CheckWithSite, Found, reveals

HUB = """
from dataclasses import fields, MISSING
from functools import wraps


def strict(cls=None, *, accept_kwargs=False):
    def wrap(cls):
        if not hasattr(cls, "__dataclass_fields__"):
            raise TypeError(f"{cls.__name__} is not a dataclass")
        validators = {}
        for f in fields(cls):
            validators[f.name] = []
        cls.__validators__ = validators

        original_setattr = cls.__setattr__

        def __strict_setattr__(self, name, value):
            for validator in self.__validators__.get(name, []):
                validator(value)
            original_setattr(self, name, value)

        cls.__setattr__ = __strict_setattr__

        class_validators = []
        for name in dir(cls):
            if name.startswith("validate_"):
                class_validators.append(getattr(cls, name))
        cls.__class_validators__ = class_validators

        def validate(self):
            for validator in cls.__class_validators__:
                validator(self)

        cls.validate = validate
        initial_init = cls.__init__

        @wraps(initial_init)
        def init_with_validate(self, *args, **kwargs):
            initial_init(self, *args, **kwargs)
            cls.validate(self)

        setattr(cls, "__init__", init_with_validate)
        return cls

    return wrap(cls) if cls is not None else wrap
"""

CONFIG = """
from dataclasses import dataclass, fields, MISSING
from functools import wraps
from typing import ClassVar

from .hub import strict


def doc(obj=None, *, intro=None):
    def decorate(obj):
        obj.__doc__ = (intro or "") + (obj.__doc__ or "")
        return obj

    if obj:
        return decorate(obj)
    return decorate


def accept_kwargs(cls):
    original_init = cls.__init__

    @wraps(original_init)
    def __init__(self, *args, **kwargs):
        names = {f.name for f in fields(cls)}
        given = {k: v for k, v in kwargs.items() if k in names}
        if len(args) > 0:
            raise ValueError(f"{cls.__name__} takes keywords only")
        for f in fields(cls):
            if f.name in given:
                setattr(self, f.name, given[f.name])
            elif f.default is not MISSING:
                setattr(self, f.name, f.default)
            else:
                raise TypeError(f"missing {f.name}")
        rest = {}
        for name, value in kwargs.items():
            if name not in names:
                rest[name] = value
        self.__post_init__(**rest)

    cls.__init__ = __init__
    return cls


@dataclass
class BaseConfig:
    attribute_map: ClassVar[dict[str, str]] = {}
    model_type: ClassVar[str] = ""
    output_hidden_states: bool = False

    def __post_init__(self, **kwargs):
        self.name_or_path = str(kwargs.pop("name_or_path", ""))
        for key, value in kwargs.items():
            setattr(self, key, value)

    def __init_subclass__(cls, *args, **kwargs):
        super().__init_subclass__(*args, **kwargs)
        if (defaults := cls.__dict__.get("sub_configs")) is not None:
            cls.sub_configs = dict(defaults)
        has_init = "__init__" in cls.__dict__
        cls = dataclass(cls, repr=False, kw_only=True)
        if not has_init:
            cls = accept_kwargs(cls)

    def __setattr__(self, key, value):
        if key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        super().__setattr__(key, value)

    def validate_sizes(self):
        if self.output_hidden_states not in (True, False):
            raise ValueError("a bool")


@doc(intro="A tiny encoder.")
@strict
class TinyConfig(BaseConfig):
    model_type = "tiny"

    vocab_size: int = 100
    hidden_size: int = 768
    num_labels: int = 2
"""

MODEL = """
import torch
import torch.nn as nn

from .config import TinyConfig


class TinyModel(nn.Module):
    def __init__(self, config: TinyConfig):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.head = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, ids):
        return self.head(self.embed(ids))
"""

USER = """
import torch
import torch.nn as nn
from tensorshape import reveal_shape
from tinylib.config import TinyConfig
from tinylib.model import TinyModel

config = TinyConfig(hidden_size=64, num_labels=3, name_or_path="local")
model = TinyModel(config)
reveal_shape(model(torch.randint(0, 100, (2, 5))))
reveal_shape(model.embed(torch.randint(0, 100, (2, 5))))
probe = nn.Linear(768, 4)
wrong = probe(model.embed(torch.randint(0, 100, (2, 5))))
"""


def _check(check_with_site: CheckWithSite, config: str = CONFIG, hub: str = HUB) -> Found:
    return check_with_site(USER, {"tinylib": {"hub": hub, "config": config, "model": MODEL}})


def test_config_fields_are_the_values_passed(check_with_site: CheckWithSite) -> None:
    found = _check(check_with_site)
    assert (10, "TS900", "revealed shape: [2 5 3]") in found, found
    assert (11, "TS900", "revealed shape: [2 5 64]") in found, found
    # A probe built for the class-level default (768) fed the 64-wide embedding: torch raises.
    assert [line for line, code, _ in found if code == "TS101"] == [13], found


@pytest.mark.parametrize(
    ("where", "old", "new"),
    [
        # A decorator that returns another class.
        ("config", "        return obj\n\n    if obj:", "        return dict\n\n    if obj:"),
        # A hook that replaces ``__init__`` by one not followed.
        ("config", "            cls = accept_kwargs(cls)", "            cls.__init__ = lambda self, **kw: None"),
        # A hook that gives the class to a function that is not followed.
        ("config", "            cls = accept_kwargs(cls)", "            cls = register(cls)"),
        # The replaced ``__init__`` sets a field to something else than the value passed.
        (
            "config",
            "                setattr(self, f.name, given[f.name])",
            "                setattr(self, f.name, None)\n                self.hidden_size = 1",
        ),
        # A validating ``__setattr__`` that stores something else.
        ("hub", "            original_setattr(self, name, value)", "            original_setattr(self, name, None)"),
        # A validating ``__init__`` that sets an attribute after the original.
        ("hub", "            cls.validate(self)", "            self.hidden_size = 2"),
    ],
)
def test_what_is_not_followed_stays_unknown(check_with_site: CheckWithSite, where: str, old: str, new: str) -> None:
    config, hub = (CONFIG.replace(old, new), HUB) if where == "config" else (CONFIG, HUB.replace(old, new))
    assert old in (CONFIG if where == "config" else HUB)
    found = _check(check_with_site, config, hub)
    shown = reveals(found)
    assert shown[11] != "revealed shape: [2 5 64]", shown
    assert "768" not in shown[11]
    assert [d for d in found if d[1] == "TS101"] == []  # never an error from a value not known
