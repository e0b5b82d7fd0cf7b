"""Output classes built like transformers' ``ModelOutput`` (issue 22): a dataclass whose base is an
``OrderedDict`` with a ``__setattr__`` that also stores the item and ends in ``super().__setattr__``,
and a ``__post_init__`` that reads ``fields(self)`` and ``self.__dict__`` and sets attributes with
``setattr`` and ``self[name] = value``.  The generated ``__init__`` runs no base constructor, the
``__setattr__`` is transparent, and running ``__post_init__`` follows what it sets: a field is the
value passed.  Each piece that is not safe to follow leaves the field unknown, never wrong."""

from __future__ import annotations

import pytest

from tests.libraries.conftest import CheckWithSite, Found, reveals

GENERIC = """
from collections import OrderedDict
from dataclasses import dataclass, fields, is_dataclass
from typing import Optional

import importlib.util

import torch

# Whether torch is there is not known to the checker: ``is_tensor`` is not decided.
_torch_available = importlib.util.find_spec("torch") is not None


def is_tensor(x):
    return _torch_available and isinstance(x, torch.Tensor)


class ModelOutput(OrderedDict):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.__class__ != ModelOutput and not is_dataclass(self):
            raise TypeError("not a dataclass")

    def __post_init__(self):
        class_fields = fields(self)
        if not len(class_fields):
            raise ValueError("no fields")
        if not all(field.default is None for field in class_fields[1:]):
            raise ValueError("more than one required field")
        first_field = getattr(self, class_fields[0].name)
        other_fields_are_none = all(self.__dict__.get(field.name) is None for field in class_fields[1:])
        if other_fields_are_none and not is_tensor(first_field):
            if isinstance(first_field, dict):
                iterator = first_field.items()
                first_field_iterator = True
            else:
                try:
                    iterator = iter(first_field)
                    first_field_iterator = True
                except TypeError:
                    first_field_iterator = False
            if first_field_iterator:
                setattr(self, class_fields[0].name, None)
                for idx, element in enumerate(iterator):
                    if not isinstance(element, (list, tuple)) or len(element) != 2 or not isinstance(element[0], str):
                        if idx == 0:
                            self[class_fields[0].name] = first_field
                        else:
                            raise ValueError("mixed iterator")
                        break
                    setattr(self, element[0], element[1])
                    if element[1] is not None:
                        self[element[0]] = element[1]
            elif first_field is not None:
                self[class_fields[0].name] = first_field
        else:
            for field in class_fields:
                v = self.__dict__.get(field.name)
                if v is not None:
                    self[field.name] = v

    def __setattr__(self, name, value):
        field_names = {field.name for field in fields(self)}
        if name in field_names and value is not None:
            super().__setitem__(name, value)
        super().__setattr__(name, value)

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)


@dataclass
class BaseOutput(ModelOutput):
    last_hidden_state: Optional[torch.FloatTensor] = None
    pooler_output: Optional[torch.FloatTensor] = None
    attentions: Optional[tuple] = None
"""

MODEL = """
import torch
import torch.nn as nn

from .generic import BaseOutput


class Encoder(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.proj = nn.Linear(8, hidden)
        self.pool = nn.Linear(hidden, hidden)

    def forward(self, x):
        h = self.proj(x)
        return BaseOutput(last_hidden_state=h, pooler_output=self.pool(h[:, 0]))

    def hidden(self, x):
        return BaseOutput(last_hidden_state=self.proj(x))
"""

USER = """
import torch
import torch.nn as nn
from tensorshape import reveal_shape
from shapedlib.model import Encoder

encoder = Encoder(16)
out = encoder(torch.randn(2, 5, 8))
reveal_shape(out.last_hidden_state)
reveal_shape(out.pooler_output)
head = nn.Linear(32, 3)
logits = head(out.pooler_output)
# Only the first field: ``__post_init__`` tries it as an iterator of (key, value) pairs; a batch of 2
# rows is no such iterator, so the field is set back to the tensor.
reveal_shape(encoder.hidden(torch.randn(2, 5, 8)).last_hidden_state)
"""


def _check(check_with_site: CheckWithSite, generic: str = GENERIC) -> Found:
    return check_with_site(USER, {"shapedlib": {"generic": generic, "model": MODEL}})


def test_model_output_fields_are_the_values_passed(check_with_site: CheckWithSite) -> None:
    found = _check(check_with_site)
    assert (9, "TS900", "revealed shape: [2 5 16]") in found
    assert (10, "TS900", "revealed shape: [2 16]") in found
    # The head built for 32 features fed the 16-wide pooled output: torch raises at the user's line.
    assert [line for line, code, _ in found if code == "TS101"] == [12]
    assert (15, "TS900", "revealed shape: [2 5 16]") in found


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # A ``__setattr__`` that changes the value: not transparent.
        (
            "        super().__setattr__(name, value)\n\n    def __setitem__",
            "        super().__setattr__(name, value[0])\n\n    def __setitem__",
        ),
        # One that may return before storing.
        ("            super().__setitem__(name, value)\n", "            return\n"),
        # A ``__post_init__`` that writes through ``self.__dict__``.
        (
            "                if v is not None:\n                    self[field.name] = v",
            "                self.__dict__[field.name] = None",
        ),
        # A ``__post_init__`` that sets an attribute by a name it does not know: each may be that value.
        (
            "                if v is not None:\n                    self[field.name] = v",
            "                setattr(self, str(v), None)",
        ),
    ],
)
def test_what_is_not_followed_stays_unknown(check_with_site: CheckWithSite, old: str, new: str) -> None:
    assert old in GENERIC
    found = _check(check_with_site, GENERIC.replace(old, new))
    shown = reveals(found)
    assert not shown[9].startswith("revealed shape: [2 5 16]"), shown[9]
    assert [d for d in found if d[1] == "TS101"] == []  # never an error from a value not known


ENUMERATE = """
import torch
from tensorshape import reveal_shape
def first(x):
    out = None
    for i, row in enumerate(x):
        if i == 0:
            out = row
            break
    return out
reveal_shape(first(torch.randn(2, 7)))
reveal_shape(first(torch.randn(100, 7)))
"""

ALL_ANY = """
import torch
from tensorshape import reveal_shape
xs = (torch.randn(2), None)
if all(x is not None for x in xs):
    y = torch.randn(3)
else:
    y = torch.randn(4)
reveal_shape(y)
if any(x is None for x in xs):
    z = torch.randn(5)
else:
    z = torch.randn(6)
reveal_shape(z)
"""


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # ``enumerate`` of a tensor whose first size is a small known int gives its rows one by one:
        # the first pass certainly runs, with index 0 (a larger or symbolic batch: a loop of some
        # passes).
        (ENUMERATE, {11: "revealed shape: [7]", 12: "revealed shape: optional"}),
        # ``all``/``any`` of items whose truth is known are known.
        (ALL_ANY, {9: "revealed shape: [4]", 14: "revealed shape: [5]"}),
    ],
    ids=["enumerate-a-small-batch", "all-and-any-of-known-items"],
)
def test_loops_decided_by_known_items(check_with_site: CheckWithSite, source: str, expected: dict[int, str]) -> None:
    shown = reveals(check_with_site(source, {}))
    assert {line: shown[line] for line in expected} == expected
