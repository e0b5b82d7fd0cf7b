"""A loop that pops each name of a long table from a dict of keywords (issue 22): transformers'
``PreTrainedConfig.__post_init__`` runs ``for name in GenerationConfig._get_default_generation_params()
.keys(): kwargs.pop(name, None)`` over 36 names, then ``setattr(self, key, value)`` for what is left.
Joined over its passes, the loop popped a key of any name, so the keywords were unknown, the
``setattr`` set a name not known and every attribute of the config was unknown: a
``ViTConfig(..., num_labels=5)`` (or any config given a keyword that is not a field) lost its
``image_size`` and ``hidden_size``.  Such a loop is now run pass by pass over a known table (as one
that stores into a registry is), so each pop is of a known key.

Truth from torch: the program runs with real torch and every shape it shows at a ``reveal_shape``
fits the checker's claim (``test_param_learning.agree``).
"""

from __future__ import annotations

import pytest

from tests.infer.test_param_learning import agree, check, run_torch

pytestmark = pytest.mark.torch

NAMES = ", ".join(f'"name{i}": {i}' for i in range(36))

POPS = f"""
def defaults():
    return {{{NAMES}, "dropped": 9}}


class Config:
    def __init__(self, hidden=64, **kwargs):
        self.hidden = hidden
        for name in defaults().keys():
            kwargs.pop(name, None)
        for key, value in kwargs.items():
            setattr(self, key, value)


def main(x):
    c = Config(hidden=32, labels=5, dropped=1)
    reveal_shape(torch.zeros(c.hidden))
    reveal_shape(torch.zeros(c.labels))
    reveal_shape(torch.zeros(getattr(c, "dropped", 7)))
"""


def test_a_loop_popping_a_table_of_names_keeps_the_other_keywords() -> None:
    """``labels`` is not in the table: it is set, with its value; ``dropped`` is popped (the
    ``getattr`` gives its default); the fields stay known (they were all unknown)."""
    reveals, errors, _ = check(POPS)
    assert errors == set()
    assert reveals[21] == "[32]" and reveals[22] == "[5]" and reveals[23] == "[7]", reveals
    seen, raised = run_torch(POPS, "None")
    assert raised == [None]
    agree(reveals, seen)
