"""``collections.abc.Mapping``'s mixin methods on a project subclass (issue 22: transformers'
``AttentionInterface.get_interface`` ends in ``super().get(key, default)``): ``get``, ``keys``,
``items``, ``values`` and ``in`` read the keys the subclass's ``__iter__`` gives and, for each, what
its ``__getitem__`` returns; ``get(k, d)`` is ``self[k]`` for a key it has and ``d`` for one it has
not.  Keys not known leave them unknown (counted), never a guess.  Torch gives the truth."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.libraries.conftest import CheckWithSite, reveals

REGISTRY = """
from collections.abc import Mapping

import torch
import torch.nn.functional as F


def eager_attention(q, k, v):
    w = torch.softmax(q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5, dim=-1)
    return w @ v


def sdpa_attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v).transpose(1, 2)


class Interface(Mapping):
    _global_mapping = {"sdpa": sdpa_attention}

    def __getitem__(self, key):
        return self._global_mapping[key]

    def __iter__(self):
        return iter(self._global_mapping)

    def __len__(self):
        return len(self._global_mapping)

    def get_interface(self, name, default):
        if name != "eager" and name not in self:
            raise KeyError(name)
        return super().get(name, default)


FUNCTIONS = Interface()
"""

USER = """import torch
from tensorshape import reveal_shape
from attnlib.interface import FUNCTIONS, eager_attention

q = torch.randn(2, 4, 16, 8)
reveal_shape(FUNCTIONS.get_interface("sdpa", eager_attention)(q, q, q))
reveal_shape(FUNCTIONS.get_interface("eager", eager_attention)(q, q, q))
reveal_shape(FUNCTIONS.get("sdpa", eager_attention)(q, q, q))
reveal_shape(FUNCTIONS.get("eager", eager_attention)(q, q, q))
reveal_shape(torch.randn(len(FUNCTIONS.keys()), len(list(FUNCTIONS.items()))))
reveal_shape(list(FUNCTIONS.values())[0](q, q, q))
reveal_shape(torch.randn(2 if "sdpa" in FUNCTIONS else 3))
"""

#: Torch's shapes, by line.
TRUTH = {6: "[2 16 4 8]", 7: "[2 4 16 8]", 8: "[2 16 4 8]", 9: "[2 4 16 8]", 10: "[1 1]", 11: "[2 16 4 8]", 12: "[2]"}


def test_the_programs_truth(tmp_path: Path) -> None:
    (tmp_path / "attnlib").mkdir()
    (tmp_path / "attnlib" / "__init__.py").write_text("")
    (tmp_path / "attnlib" / "interface.py").write_text(REGISTRY)
    probe = USER.replace(
        "from tensorshape import reveal_shape\n",
        "import sys\nreveal_shape = lambda t: print(sys._getframe(1).f_lineno - 1, list(t.shape))\n",
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True)
    seen = {int(r.split(" ", 1)[0]): r.split(" ", 1)[1] for r in out.stdout.splitlines()}
    assert {k: v.replace(",", "") for k, v in seen.items()} == TRUTH


def test_the_mixins_read_the_subclass_items(check_with_site: CheckWithSite) -> None:
    found = check_with_site(USER, {"attnlib": {"interface": REGISTRY}})
    assert reveals(found) == {line: f"revealed shape: {shape}" for line, shape in TRUTH.items()}
    assert [d for d in found if d[1] != "TS900"] == [], found


def test_keys_not_known_leave_the_mixins_unknown(check_with_site: CheckWithSite) -> None:
    """An ``__iter__`` whose keys are not known (here: ``sorted`` of the dict, not modelled): ``get``
    and ``in`` are not decided (neither branch of the ``if``), nor an error."""
    registry = REGISTRY.replace(
        "        return iter(self._global_mapping)\n", "        return iter(sorted(self._global_mapping))\n"
    )
    found = check_with_site(USER, {"attnlib": {"interface": registry}})
    shown = reveals(found)
    assert shown[8] == "revealed shape: unknown", shown
    assert shown[12] not in ("revealed shape: [2]", "revealed shape: [3]"), shown
    assert [d for d in found if d[1] != "TS900"] == [], found
