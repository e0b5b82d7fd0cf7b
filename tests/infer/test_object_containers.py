"""Objects kept in containers and edited through another reference, as timm's registry of
pretrained configurations builds them (issue 22): ``field(default_factory=...)`` (a new object per
instance), ``collections.deque`` and ``defaultdict(factory)``, ``set()`` filled by ``add``, an object
read from a dict and edited through the variable (``default_cfg = out[model];
default_cfg.tags.appendleft(tag)``), writes to one object of a class leaving another known,
``isinstance`` of a project class, ``head, *rest = name.split(".", 1)``, and a config object's
truth.  Torch is the judge of each shape (see ``torch_cases.py``); what the analysis cannot know
stays unknown, never stale."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.infer.test_builder_configs import _reveals
from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

pytestmark = pytest.mark.torch

HEADER = """\
import random
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Deque, Dict, List

import torch
from tensorshape import reveal_shape


@dataclass
class Cfg:
    tags: Deque[str] = field(default_factory=deque)
    sizes: Dict[str, int] = field(default_factory=dict)
    seen: List[int] = field(default_factory=list)
    pretrained: bool = False


"""

CASES = {
    # One new deque, dict and list per instance: an edit of one leaves the other empty.
    "default_factory": """
        a = Cfg()
        b = Cfg()
        a.tags.append("x")
        a.tags.appendleft("y")
        a.sizes["w"] = 5
        a.seen.append(3)
        reveal_shape(torch.zeros(len(a.tags), a.sizes["w"], a.seen[0], len(b.tags) + 1, len(b.seen) + 2))
        reveal_shape(torch.zeros(4 if a.tags[0] == "y" else 6, 7 if a.tags.popleft() == "y" else 8, len(a.tags)))
    """,
    # timm's ``generate_default_cfgs``: a defaultdict of configs edited through the variable that
    # read each one, over more entries than a loop is unrolled over in general.
    "defaultdict_of_configs": """
        def group(cfgs):
            out = defaultdict(Cfg)
            seen = set()
            for k, size in cfgs.items():
                model, *rest = k.split(".", 1)
                tag = rest[0] if rest else ""
                first = model not in seen
                cfg = out[model]
                if tag.endswith("*"):
                    cfg.tags.appendleft(tag.strip("*"))
                    seen.add(model)
                else:
                    cfg.tags.append(tag)
                if size > 4:
                    cfg.pretrained = True
                cfg.sizes[tag.strip("*")] = size
            return out

        table = {
            "m0.t0": 2, "m0.t1": 3, "m0.t2": 4, "m1.t0": 3, "m1.t1": 4, "m1.t2": 5,
            "m2.t0": 4, "m2.t1": 5, "m2.t2": 6, "m3.t0": 5, "m3.t1": 6, "m3.t2": 7,
            "m4.t0": 6, "m4.t1": 7, "m4.t2": 8, "m5.t0": 7, "m5.t1": 8, "m5.t2": 9,
            "m6.t0": 8, "m6.t1": 9, "m6.t2": 10, "m7.t0": 9, "m7.t1": 10, "m7.t2": 11,
            "m8.t0": 10, "m8.t1": 11, "m8.t2": 12, "m9.t0": 11, "m9.t1": 12, "m9.t2": 13,
            "m3.best*": 9, "solo": 3,
        }
        out = group(table)
        m3 = out["m3"]
        reveal_shape(torch.zeros(len(m3.tags), m3.sizes[m3.tags[0]], m3.sizes["t2"], len(m3.seen) + 1))
        reveal_shape(torch.zeros(len(out["solo"].tags), 2 if out["solo"].pretrained else 3, 4 if m3.pretrained else 5))
        reveal_shape(torch.zeros(len(out["m0"].tags), out["m0"].sizes["t0"], 6 if out["m0"].pretrained else 7))
        fresh = out["new"]
        reveal_shape(torch.zeros(len(fresh.tags) + 1, 2 if "new" in out else 3))
    """,
    "defaultdict_of_lists": """
        groups = defaultdict(list)
        for name in ["a", "b", "a", "c", "a"]:
            groups[name].append(len(name) + 1)
        reveal_shape(torch.zeros(len(groups["a"]), groups["c"][0], len(groups["d"]) + 1, 4 if "d" in groups else 5))
    """,
    # Another variable bound to a name forgets what was written through it before.
    "rebinding_forgets_writes": """
        a = Cfg()
        b = Cfg()
        x = a
        x.seen = [1, 2, 3]
        x = b
        reveal_shape(torch.zeros(len(x.seen) + 1, len(a.seen)))
    """,
    "isinstance_of_a_project_class": """
        class Other:
            pass

        c = Cfg()
        reveal_shape(torch.zeros(2 if isinstance(c, Cfg) else 3, 4 if isinstance(c, Other) else 5))
        reveal_shape(torch.zeros(6 if isinstance({"a": 1}, Cfg) else 7, 8 if isinstance(c, (Other, Cfg)) else 9))
    """,
    # A config found, or a default made when none is: an object is true.
    "object_truth": """
        table = {"a": Cfg(seen=[4])}

        def lookup(name):
            return table.get(name, None)

        cfg = lookup("a")
        if not cfg:
            cfg = Cfg(seen=[1, 1])
        reveal_shape(torch.zeros(len(cfg.seen), cfg.seen[0]))
    """,
    # A filter over more items than a loop is unrolled over in general keeps the items it keeps
    # (timm's quickgelu configurations among 313), and a loop over them stores each.
    "filtered_comprehension": """
        table = {
            "m0": 0, "m1": 1, "m2": 2, "m3": 3, "m4": 4, "m5": 5, "m6": 6, "m7": 7, "m8": 8, "m9": 9,
            "m10": 10, "m11": 11, "m12": 12, "m13": 13, "m14": 14, "m15": 15, "m16": 16, "m17": 17, "m18": 18, "m19": 19,
            "m20": 20, "m21": 21, "m22": 22, "m23": 23, "m24": 24, "m25": 25, "m26": 26, "m27": 27, "m28": 28, "m29": 29,
            "m30": 30, "m31": 31, "m32": 32, "m33": 33, "m34": 34, "m35": 35, "m36": 36, "m37": 37, "m38": 38, "m39": 39,
            "a*": 2, "b*": 3,
        }
        marked = [n for n, size in table.items() if n.endswith("*") and size > 1]
        copies = {}
        for n in marked:
            copies[n.strip("*")] = table[n] + 1
        reveal_shape(torch.zeros(len(marked), copies["a"], copies["b"]))
    """,
    # A module's ``defaultdict`` a function fills (timm's ``_model_with_tags[model_name].append``).
    "global_defaultdict": """
        _with_tags = defaultdict(list)

        def register(name, tag):
            _with_tags[name].append(tag)

        register("a", 3)
        register("b", 4)
        register("a", 5)
        reveal_shape(torch.zeros(len(_with_tags["a"]), _with_tags["a"][1], _with_tags["b"][0]))
    """,
    "set_add": """
        seen = set()
        seen.add("a")
        seen.add("b")
        seen.add("a")
        reveal_shape(torch.zeros(len(seen), 2 if "a" in seen else 3, 4 if "c" in seen else 5))
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("containers"), HEADER, CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_agrees_with_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)


def test_cases_are_exact() -> None:
    """Each reveal above is a shape of known dims (torch agreeing with a partial one would pass)."""
    for name, body in CASES.items():
        found = _reveals(HEADER + textwrap.dedent(body))
        known = all("?" not in r and "..." not in r and "unknown" not in r for r in found.values())
        assert found and known, (name, found)


def test_a_deque_is_no_list() -> None:
    source = (
        "import torch\nfrom collections import deque\nfrom tensorshape import reveal_shape\n\n"
        "q = deque([1, 2])\n"
        "reveal_shape(torch.zeros(2 if isinstance(q, list) else 3, 4 if isinstance(q, tuple) else 5))\n"
    )
    assert _reveals(source)[6] == "[3 5]"


def test_a_defaultdict_read_with_a_key_not_known_forgets_its_keys() -> None:
    """``out[name]`` of a name not known may store a key: ``len(out)`` is not the old 1, nor is a
    later read of a missing key an empty config (torch: 2 keys)."""
    source = (
        "import torch\nfrom collections import defaultdict\nfrom tensorshape import reveal_shape\n\n"
        "def f(name):\n    out = defaultdict(list)\n    out['a'].append(1)\n    out[name].append(2)\n"
        "    return out\n\n"
        "o = f(input())\nreveal_shape(torch.zeros(len(o)))\nreveal_shape(torch.zeros(len(o['a'])))\n"
    )
    r = _reveals(source)
    assert "1" not in r[12] and "[1]" != r[13], r


def test_a_write_through_a_joined_reference_reaches_either_object() -> None:
    """``c = a if flag else b; c.n = 5``: both ``a`` and ``b`` may have been written (torch: either)."""
    source = (
        "import random\nimport torch\nfrom dataclasses import dataclass\nfrom tensorshape import reveal_shape\n\n"
        "@dataclass\nclass C:\n    n: int = 2\n\n"
        "def pick(a, b):\n    c = a if random.random() > 0.5 else b\n    c.n = 5\n\n"
        "a = C()\nb = C()\npick(a, b)\nreveal_shape(torch.zeros(a.n))\nreveal_shape(torch.zeros(b.n))\n"
    )
    r = _reveals(source)
    assert r[17] != "[2]" and r[18] != "[2]", r
