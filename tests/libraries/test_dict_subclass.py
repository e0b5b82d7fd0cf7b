"""Registries built like transformers' (issue 22): ``ACT2FN = ClassInstantier(ACT2CLS)``, a subclass of
``OrderedDict`` whose ``__getitem__`` instantiates the class stored under a key (the instance keeps the
items the dict's constructor gave it), a ``MutableMapping`` subclass (``AttentionInterface``: the
abstract base has no constructor).
Every edit of the items the analysis does not follow leaves them unknown, never stale."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.libraries.conftest import CheckWithSite, reveals

ACTIVATIONS = """
from collections import OrderedDict

import torch
import torch.nn as nn


class Doubling(nn.Module):
    def forward(self, x):
        return torch.cat([x, x], dim=-1)


class Clip(nn.Module):
    def __init__(self, lo, hi):
        super().__init__()
        self.lo, self.hi = lo, hi

    def forward(self, x):
        return x.clamp(self.lo, self.hi)


class ClassInstantier(OrderedDict):
    def __getitem__(self, key):
        content = super().__getitem__(key)
        cls, kwargs = content if isinstance(content, tuple) else (content, {})
        return cls(**kwargs)


ACT2CLS = {"double": Doubling, "clip": (Clip, {"lo": -1, "hi": 1}), "relu": nn.ReLU}
ACT2FN = ClassInstantier(ACT2CLS)


class Block(nn.Module):
    def __init__(self, act):
        super().__init__()
        self.act = ACT2FN[act]
        self.proj = nn.Linear(16, 4)

    def forward(self, x):
        return self.proj(self.act(x))
"""

USER = """
import torch
import torch.nn as nn
from tensorshape import reveal_shape
from actlib.activations import ACT2FN, Block

x = torch.randn(2, 8)
reveal_shape(ACT2FN["double"](x))
reveal_shape(ACT2FN["clip"](x))
reveal_shape(Block("double")(x))
head = nn.Linear(8, 3)
logits = head(ACT2FN["double"](x))
"""


def test_a_dict_subclass_keeps_its_items(check_with_site: CheckWithSite) -> None:
    found = check_with_site(USER, {"actlib": {"activations": ACTIVATIONS}})
    shown = reveals(found)
    assert shown[8] == "revealed shape: [2 16]", shown
    assert shown[9] == "revealed shape: [2 8]", shown
    assert shown[10] == "revealed shape: [2 4]", shown
    # The head built for 8 features fed the doubled 16: torch raises at the user's line.
    assert [line for line, code, _ in found if code == "TS101"] == [12], found


def test_the_registry_runs_as_the_checker_reads_it(tmp_path: Path) -> None:
    """The synthetic library is real Python: torch gives the shapes the checker reveals, and raises
    where it reports the error."""
    (tmp_path / "actlib").mkdir()
    (tmp_path / "actlib" / "__init__.py").write_text("")
    (tmp_path / "actlib" / "activations.py").write_text(ACTIVATIONS)
    probe = USER.replace("from tensorshape import reveal_shape\n", "def reveal_shape(t):\n    print(list(t.shape))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert out.stdout.split("\n")[:3] == ["[2, 16]", "[2, 8]", "[2, 4]"]
    assert "mat1 and mat2 shapes cannot be multiplied" in out.stderr


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        # A key set later: the item read is the new one.
        ('ACT2FN["double"] = nn.Tanh', "revealed shape: [2 8]"),
        ('ACT2FN.update({"double": nn.Tanh})', "revealed shape: [2 8]"),
        # Edits not followed: the items are not known after them.
        ('ACT2FN[str(len(x))] = nn.Tanh', "revealed shape: unknown"),
        ('del ACT2FN["double"]', "revealed shape: unknown"),
        ("register(ACT2FN)", "revealed shape: unknown"),
    ],
)
def test_edited_items_are_never_stale(check_with_site: CheckWithSite, edit: str, expected: str) -> None:
    user = (
        "import torch\nimport torch.nn as nn\nfrom tensorshape import reveal_shape\n"
        "from actlib.activations import ACT2FN\n\n"
        'def register(table):\n    table["double"] = nn.Tanh\n\n'
        f"x = torch.randn(2, 8)\n{edit}\nreveal_shape(ACT2FN['double'](x))\n"
    )
    shown = reveals(check_with_site(user, {"actlib": {"activations": ACTIVATIONS}}))
    assert shown[11] == expected, shown


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # A class that stores items its own way: they are not the constructor's.
        ("        return cls(**kwargs)\n", "        return cls(**kwargs)\n\n    def __setitem__(self, key, value):\n        pass\n"),
        # A constructor of its own: the dict's is not what builds the items.
        ("        return cls(**kwargs)\n", "        return cls(**kwargs)\n\n    def __init__(self, table):\n        super().__init__()\n"),
        # Items not known when built.
        ("ACT2FN = ClassInstantier(ACT2CLS)", "ACT2FN = ClassInstantier(list(ACT2CLS.items()))"),
    ],
)
def test_items_not_from_the_dict_constructor_stay_unknown(check_with_site: CheckWithSite, old: str, new: str) -> None:
    assert old in ACTIVATIONS
    found = check_with_site(USER, {"actlib": {"activations": ACTIVATIONS.replace(old, new)}})
    shown = reveals(found)
    assert shown[8] == "revealed shape: unknown", shown
    assert [d for d in found if d[1] == "TS101"] == []


MAPPING = """
import torch
from collections.abc import MutableMapping


class Interface(MutableMapping):
    _global_mapping = {}
    width = 16

    def __init__(self):
        self._local_mapping = {}

    def __getitem__(self, key):
        if key in self._local_mapping:
            return self._local_mapping[key]
        return self._global_mapping[key]

    def __setitem__(self, key, value):
        self._local_mapping.update({key: value})

    def __delitem__(self, key):
        del self._local_mapping[key]

    def __iter__(self):
        return iter({**self._global_mapping, **self._local_mapping})

    def __len__(self):
        return len(self._global_mapping.keys() | self._local_mapping.keys())


INTERFACE = Interface()
"""


def test_a_mutable_mapping_subclass_has_its_class_attributes(check_with_site: CheckWithSite) -> None:
    """``MutableMapping`` defines no constructor: the instance has what its own ``__init__`` and its
    class give it (``width``), not an unknown attribute from a base not analysed."""
    user = (
        "import torch\nfrom tensorshape import reveal_shape\nfrom reglib.interface import INTERFACE\n"
        "reveal_shape(torch.randn(2, INTERFACE.width))\n"
    )
    shown = reveals(check_with_site(user, {"reglib": {"interface": MAPPING}}))
    assert shown[4] == "revealed shape: [2 16]", shown
