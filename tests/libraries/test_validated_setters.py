"""What a validated configuration holds after its constructor, and a ``try`` whose body cannot
raise (issue 22).

transformers' ``BertConfig`` keeps its attention implementation behind a property whose setter
writes ``_attn_implementation_internal``; ``@strict`` runs validators after the constructor, and
the model's constructor then picks the implementation in a ``try`` whose ``except`` falls back to
another one.  Built here in small: a validator may call any method of the class, but a property's
setter is not a method it can call (the class holds the property, which is not callable), so what
only the setter writes stays known unless some method assigns the property; and a ``try`` body that
runs only interpreted code, reaches no ``raise`` and knows every value does not run its handlers.
Each shape is torch's (the programs run with torch too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.libraries.conftest import CheckWithSite, reveals, torch_shapes
from tests.libraries.test_config_classes import CONFIG, HUB

#: A property whose setter writes an internal attribute (set by the base's ``__post_init__``).
IMPL = """
    @property
    def _impl(self):
        return self._impl_internal

    @_impl.setter
    def _impl(self, value):
        self._impl_internal = value
"""

VALIDATED = CONFIG.replace('    model_type = "tiny"\n', '    model_type = "tiny"\n' + IMPL).replace(
    '        self.name_or_path = str(kwargs.pop("name_or_path", ""))\n',
    '        self.name_or_path = str(kwargs.pop("name_or_path", ""))\n        self._impl = kwargs.pop("impl", None)\n',
)

MODEL = """
import torch.nn as nn

from .config import TinyConfig

WIDTHS = {"wide": 64, "narrow": 8, "plain": 16}


class TinyModel(nn.Module):
    supports_wide = True

    def __init__(self, config: TinyConfig):
        super().__init__()
        self.config = config
        self.config._impl_internal = self.pick(config._impl)
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.proj = nn.Linear(config.hidden_size, WIDTHS[self.config._impl])

    def can_go_wide(self):
        if not self.supports_wide:
            raise ValueError("not supported")
        return True

    def pick(self, requested):
        chosen = "wide" if requested is None else requested
        if chosen == "wide":
            try:
                self.can_go_wide()
            except (ValueError, ImportError):
                chosen = "narrow"
        return chosen

    def forward(self, ids):
        return self.proj(self.embed(ids))
"""

USER = """
import torch
import torch.nn as nn
from tensorshape import reveal_shape
from tinylib.config import TinyConfig
from tinylib.model import TinyModel

config = TinyConfig(hidden_size=32, num_labels=3)
model = TinyModel(config)
out = model(torch.randint(0, 100, (2, 5)))
reveal_shape(out)
head = nn.Linear(8, 3)
logits = head(out)
"""


def _modules(config: str = VALIDATED, model: str = MODEL) -> dict[str, str]:
    return {"hub": HUB, "config": config, "model": model}


def test_the_programs_truth(tmp_path: Path) -> None:
    """torch: the wide projection (64), so the head built for 8 raises at line 13."""
    with pytest.raises(Exception, match="returned non-zero"):
        torch_shapes(tmp_path, USER, "tinylib", _modules())
    fine = USER.replace("nn.Linear(8, 3)", "nn.Linear(64, 3)")
    assert torch_shapes(tmp_path, fine, "tinylib", _modules()) == {11: "[2 5 64]"}


def test_the_setter_written_attribute_stays_known(check_with_site: CheckWithSite) -> None:
    """``@strict``'s validators run after the constructor: ``_impl_internal`` is written only by the
    property's setter, which no method assigns, so it keeps the constructor's value (``None``), the
    ``try`` picks ``"wide"`` and the head built for 8 is torch's error at the user's line."""
    found = check_with_site(USER, {"tinylib": _modules()})
    assert reveals(found)[11] == "revealed shape: [2 5 64]", found
    assert [(line, code) for line, code, _ in found if code == "TS101"] == [(13, "TS101")], found


@pytest.mark.parametrize(
    ("where", "old", "new"),
    [
        # A method assigns the property: a validator may call it, and the setter then runs.
        (
            "config",
            "    def validate_sizes(self):\n",
            '    def reset(self):\n        self._impl = "plain"\n\n    def validate_sizes(self):\n',
        ),
        # The ``try`` body may raise (the flag is not known): the ``except`` is joined in.
        ("model", "    supports_wide = True\n", "    supports_wide = bool(len(__name__) % 2)\n"),
        # The ``try`` body calls what is not interpreted.
        (
            "model",
            "                self.can_go_wide()\n",
            "                self.can_go_wide()\n                print(self)\n",
        ),
    ],
)
def test_what_may_change_it_stays_unknown(check_with_site: CheckWithSite, where: str, old: str, new: str) -> None:
    source = VALIDATED if where == "config" else MODEL
    assert old in source
    config, model = (VALIDATED.replace(old, new), MODEL) if where == "config" else (VALIDATED, MODEL.replace(old, new))
    found = check_with_site(USER, {"tinylib": _modules(config, model)})
    assert reveals(found)[11] in ("revealed shape: [2 5 ?]", "revealed shape: unknown"), found
    assert [d for d in found if d[1] == "TS101"] == []  # never an error from a value not known


def test_a_body_that_raises_joins_the_handler(tmp_path: Path, check_with_site: CheckWithSite) -> None:
    """The flag is known false: the body raises and torch takes the handler's ``"narrow"`` (8).  The
    analysis joins the handler in (a call that always raises is not taken to end the path): the
    width is unknown, never the body's 64, and the head built for 8 is no error."""
    model = MODEL.replace("    supports_wide = True\n", "    supports_wide = False\n")
    assert torch_shapes(tmp_path, USER, "tinylib", _modules(model=model)) == {11: "[2 5 8]"}
    found = check_with_site(USER, {"tinylib": _modules(model=model)})
    assert reveals(found)[11] == "revealed shape: [2 5 ?]", found
    assert [d for d in found if d[1] == "TS101"] == [], found
