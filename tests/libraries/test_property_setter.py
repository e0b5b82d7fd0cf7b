"""Properties with a setter (issue 22: transformers' ``config._attn_implementation`` and
``config.num_labels``): a write ``obj.p = v`` runs the setter's body on the instance, and a read runs
the getter, so what it shows is what the setter computed from ``v``; on the instance being built the
setter is a helper of the constructor.  Other references to the object (an alias, a caller's, a
model's ``self.config``) do not see the write: what the setter assigns is unknown there, never
stale.  Each program is run with torch for the truth."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.libraries.conftest import CheckWithSite, reveals, torch_shapes

CONFIG = """
import torch
import torch.nn as nn


class Config:
    def __init__(self, width, heads=2):
        self.heads = heads
        self.width = width

    @property
    def width(self):
        return self._width

    @width.setter
    def width(self, value):
        if value % self.heads != 0:
            raise ValueError("width must divide into heads")
        self._width = 2 * value
        self.head_dim = self._width // self.heads


class Block(nn.Module):
    def __init__(self, config, width=None):
        super().__init__()
        if width is not None:
            config.width = width
        self.config = config
        self.proj = nn.Linear(config.width, config.head_dim)

    def forward(self, x):
        return self.proj(x)
"""

USER = """
import torch
from tensorshape import reveal_shape
from cfglib.config import Block, Config


def widen(c):
    c.width = 10


config = Config(4)
reveal_shape(torch.randn(config.width, config.head_dim))
config.width = 6
reveal_shape(torch.randn(config.width, config.head_dim))
reveal_shape(Block(config)(torch.randn(3, 12)))
reveal_shape(Block(Config(4), width=10)(torch.randn(3, 20)))
other = config
other.width = 8
reveal_shape(torch.randn(config.width))
widen(config)
reveal_shape(torch.randn(config.head_dim))
"""

#: What torch gives on each ``reveal_shape`` line.
TRUTH = {12: "[8 4]", 14: "[12 6]", 15: "[3 6]", 16: "[3 10]", 19: "[16]", 21: "[10]"}


def _torch_shapes(tmp_path: Path, user: str, modules: dict[str, str]) -> dict[int, str]:
    return torch_shapes(tmp_path, user, "cfglib", modules)


def test_the_programs_truth(tmp_path: Path) -> None:
    assert _torch_shapes(tmp_path, USER, {"config": CONFIG}) == TRUTH


def test_a_write_runs_the_setter(check_with_site: CheckWithSite) -> None:
    shown = reveals(check_with_site(USER, {"cfglib": {"config": CONFIG}}))
    # Set in ``__init__`` through the setter: the getter reads what it computed.
    assert shown[12] == f"revealed shape: {TRUTH[12]}", shown
    # Written after construction: the setter's body ran with the new value (``2 * 6``).
    assert shown[14] == f"revealed shape: {TRUTH[14]}", shown
    assert shown[15] == f"revealed shape: {TRUTH[15]}", shown
    # Written on the config a constructor was given, while it builds the block.
    assert shown[16] == f"revealed shape: {TRUTH[16]}", shown


def test_other_references_are_never_stale(check_with_site: CheckWithSite) -> None:
    """A write through an alias of this activation is seen by every variable holding the object; one
    inside a helper (``widen(config)``) is not carried back: what the setter assigns is unknown after
    the call, never the value before it (``[8]``; torch: ``[10]``)."""
    shown = reveals(check_with_site(USER, {"cfglib": {"config": CONFIG}}))
    assert shown[19] == f"revealed shape: {TRUTH[19]}", shown
    assert shown[21] == "revealed shape: [...]", shown


def test_a_setter_that_raises_is_no_false_error(check_with_site: CheckWithSite) -> None:
    """``config.width = 7``: the setter raises (Python's ``ValueError``, the heads do not divide 7):
    that check of known ints is the one error, at the user's write (line 13, where Python raises).
    What the setter assigns is unknown after the write, never the values before it: the block built
    from the config is no false error (with the old width its ``nn.Linear(8, 4)`` would be fed 12
    features)."""
    user = USER.replace("config.width = 6", "config.width = 7")
    found = check_with_site(user, {"cfglib": {"config": CONFIG}})
    errors = [d for d in found if d[1] != "TS900"]
    assert [(line, code) for line, code, _ in errors] == [(13, "TS101")], found
    assert "this check always raises: `value % self.heads != 0`: 1 vs 0" in errors[0][2], errors
    assert reveals(found)[14] != "revealed shape: [8 4]", found


@pytest.mark.parametrize(
    "setter",
    [
        # A setter that stores under a name not known: what it sets is not followed.
        "        setattr(self, '_' + 'width', 2 * value)\n        self.head_dim = None\n",
    ],
)
def test_a_setter_not_followed_leaves_the_property_unknown(check_with_site: CheckWithSite, setter: str) -> None:
    body = "        self._width = 2 * value\n        self.head_dim = self._width // self.heads\n"
    assert body in CONFIG
    user = "import torch\nfrom tensorshape import reveal_shape\nfrom cfglib.config import Config\n\nconfig = Config(4)\nconfig.width = 6\nreveal_shape(torch.randn(config.width))\n"
    shown = reveals(check_with_site(user, {"cfglib": {"config": CONFIG.replace(body, setter)}}))
    assert shown[7] in ("revealed shape: [...]", "revealed shape: [12]"), shown


#: A setter like transformers' ``num_labels``: it stores a label map, which the getter measures.
LABELS = """import torch
import torch.nn as nn
from tensorshape import reveal_shape


class Config:
    def __init__(self, hidden_size=32, num_labels=2, id2label=None):
        self.hidden_size = hidden_size
        self.id2label = id2label
        if self.id2label is None:
            self.num_labels = num_labels

    @property
    def num_labels(self):
        return len(self.id2label)

    @num_labels.setter
    def num_labels(self, num_labels):
        if self.id2label is None or len(self.id2label) != num_labels:
            self.id2label = {i: f"LABEL_{i}" for i in range(num_labels)}
            self.label2id = dict(zip(self.id2label.values(), self.id2label.keys()))


class Classifier(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.num_labels = config.num_labels
        self.head = nn.Linear(config.hidden_size, config.num_labels)

    def forward(self, x):
        return self.head(x)


x = torch.randn(4, 32)
config = Config(num_labels=5)
reveal_shape(Classifier(config)(x))
config.num_labels = 3
reveal_shape(Classifier(config)(x))
named = Config(id2label={0: "cat", 1: "dog"})
reveal_shape(Classifier(named)(x))
"""


def test_a_setter_that_builds_a_label_map(check_with_site: CheckWithSite, tmp_path: Path) -> None:
    """``self.num_labels = n`` in ``__init__`` and ``config.num_labels = 3`` after it: the setter
    builds ``{i: f"LABEL_{i}" for i in range(n)}``, whose length (``n`` keys, distinct) the getter
    returns; a map given as a literal with int keys is not measured (unknown, never wrong)."""
    shown = reveals(check_with_site(LABELS, {}))
    assert _torch_shapes(tmp_path, LABELS, {}) == {37: "[4 5]", 39: "[4 3]", 41: "[4 2]"}
    assert shown[37] == "revealed shape: [4 5]", shown
    assert shown[39] == "revealed shape: [4 3]", shown
    assert shown[41] == "revealed shape: [4 ?]", shown
