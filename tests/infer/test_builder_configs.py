"""Model builders that resolve their keyword arguments from a dataclass configuration, as timm's
``build_model_with_cfg`` does (issue 22): a helper that fills the caller's ``kwargs`` in place
(``kwargs.setdefault(n, cfg[n])``, ``kwargs.pop(n, None)``), a config turned into a dict
(``dataclasses.asdict``, filtered item by item over more fields than a loop is unrolled over in
general, with a set of names to keep), ``dataclasses.replace`` and ``copy.deepcopy`` of it.  Torch is
the judge of each shape (see ``torch_cases.py``); what the analysis does not follow stays unknown,
never stale."""

from __future__ import annotations

from pathlib import Path

import pytest
from tensorshape.infer.api import check_source

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

pytestmark = pytest.mark.torch

HEADER = """\
import copy
import dataclasses
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Dict, Optional, Tuple

import torch
import torch.nn as nn
from tensorshape import reveal_shape


@dataclass
class PretrainedCfg:
    url: Optional[str] = None
    file: Optional[str] = None
    hf_hub_id: Optional[str] = None
    architecture: Optional[str] = None
    tag: Optional[str] = None
    custom_load: bool = False
    input_size: Tuple[int, int, int] = (3, 224, 224)
    test_input_size: Optional[Tuple[int, int, int]] = None
    min_input_size: Optional[Tuple[int, int, int]] = None
    fixed_input_size: bool = False
    interpolation: str = "bicubic"
    crop_pct: float = 0.875
    test_crop_pct: Optional[float] = None
    crop_mode: str = "center"
    mean: Tuple[float, ...] = (0.485, 0.456, 0.406)
    std: Tuple[float, ...] = (0.229, 0.224, 0.225)
    num_classes: int = 1000
    label_offset: Optional[int] = None
    label_names: Optional[Tuple[str]] = None
    pool_size: Optional[Tuple[int, ...]] = None
    test_pool_size: Optional[Tuple[int, ...]] = None
    first_conv: Optional[str] = None
    classifier: Optional[str] = None
    license: Optional[str] = None
    description: Optional[str] = None
    origin_url: Optional[str] = None
    paper_name: Optional[str] = None
    paper_ids: Optional[str] = None
    notes: Optional[Tuple[str]] = None

    def to_dict(self, remove_source=False, remove_null=True):
        return filter_cfg(asdict(self), remove_source=remove_source, remove_null=remove_null)


def filter_cfg(cfg, remove_source=False, remove_null=True):
    filtered_cfg = {}
    keep_null = {"pool_size", "first_conv", "classifier"}
    for k, v in cfg.items():
        if remove_source and k in {"url", "file", "hf_hub_id"}:
            continue
        if remove_null and v is None and k not in keep_null:
            continue
        filtered_cfg[k] = v
    return filtered_cfg


def _filter_kwargs(kwargs, names):
    if not kwargs or not names:
        return
    for n in names:
        kwargs.pop(n, None)


def _update_default_model_kwargs(pretrained_cfg, kwargs, kwargs_filter):
    default_kwarg_names = ("num_classes", "global_pool", "in_chans")
    if pretrained_cfg.get("fixed_input_size", False):
        default_kwarg_names += ("img_size",)
    for n in default_kwarg_names:
        if n == "img_size":
            input_size = pretrained_cfg.get("input_size", None)
            if input_size is not None:
                assert len(input_size) == 3
                kwargs.setdefault(n, input_size[-2:])
        elif n == "in_chans":
            input_size = pretrained_cfg.get("input_size", None)
            if input_size is not None:
                assert len(input_size) == 3
                kwargs.setdefault(n, input_size[0])
        elif n == "num_classes":
            default_val = pretrained_cfg.get(n, None)
            if default_val is not None and default_val >= 0:
                kwargs.setdefault(n, pretrained_cfg[n])
        else:
            default_val = pretrained_cfg.get(n, None)
            if default_val is not None:
                kwargs.setdefault(n, pretrained_cfg[n])
    _filter_kwargs(kwargs, names=kwargs_filter)


class PatchNet(nn.Module):
    def __init__(self, img_size=224, patch_size=16, in_chans=3, num_classes=1000, embed_dim=32, global_pool="avg"):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, embed_dim, patch_size, stride=patch_size)
        n = (img_size[0] // patch_size) * (img_size[1] // patch_size)
        self.pos = nn.Parameter(torch.zeros(1, n, embed_dim))
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, x):
        x = self.proj(x).flatten(2).transpose(1, 2)
        x = x + self.pos
        return self.head(x.mean(1))


def build_model_with_cfg(model_cls, pretrained_cfg, kwargs_filter=None, **kwargs):
    pruned = kwargs.pop("pruned", False)
    pretrained_cfg = pretrained_cfg.to_dict()
    _update_default_model_kwargs(pretrained_cfg, kwargs, kwargs_filter)
    model = model_cls(**kwargs)
    model.pretrained_cfg = pretrained_cfg
    return model
"""

CASES = {
    "kwargs_filled_in_place": """
        cfg = PretrainedCfg(input_size=(3, 64, 64), fixed_input_size=True, num_classes=10)
        model = build_model_with_cfg(PatchNet, cfg, num_classes=5)
        reveal_shape(model(torch.randn(2, 3, 64, 64)))
        gray = build_model_with_cfg(PatchNet, replace(cfg, input_size=(1, 32, 32)), kwargs_filter=("features_only",), features_only=True)
        reveal_shape(gray(torch.randn(2, 1, 32, 32)))
    """,
    "kwargs_filled_in_place_bad_head": """
        cfg = PretrainedCfg(input_size=(3, 64, 64), fixed_input_size=True, num_classes=10)
        model = build_model_with_cfg(PatchNet, cfg, num_classes=5)
        logits = model(torch.randn(2, 3, 64, 64))
        reveal_shape(logits)
        calibrate = nn.Linear(10, 10)
        calibrate(logits)  # E: TS101
    """,
    "a_deep_copy_and_replace_keep_the_fields": """
        base = PretrainedCfg(input_size=(3, 48, 48), num_classes=7)
        mine = copy.deepcopy(base)
        wide = dataclasses.replace(mine, num_classes=12)
        as_dict = mine.to_dict()
        reveal_shape(torch.zeros(wide.num_classes, as_dict["num_classes"], as_dict["input_size"][1]))
        reveal_shape(torch.zeros(*as_dict["input_size"]))
        head = nn.Linear(16, as_dict["num_classes"])
        reveal_shape(head(torch.randn(4, 16)))
    """,
    "a_helper_appends_to_a_list": """
        def add_block(layers, c_in, c_out):
            layers.append(nn.Conv2d(c_in, c_out, 3, padding=1))
            layers.append(nn.ReLU())

        layers = [nn.Conv2d(3, 8, 3, padding=1)]
        add_block(layers, 8, 16)
        net = nn.Sequential(*layers)
        reveal_shape(net(torch.randn(2, 3, 8, 8)))
        reveal_shape(torch.zeros(len(layers)))
    """,
    "a_config_edited_after_it_was_built": """
        cfg = PretrainedCfg(num_classes=7)
        cfg.num_classes = 5
        head = nn.Linear(16, cfg.num_classes)
        reveal_shape(head(torch.randn(2, 16)))
    """,
    "keywords_only_a_subclass_takes": """
        class Attention(nn.Module):
            def __init__(self, dim, num_heads=2, qkv_bias=False):
                super().__init__()
                self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
                self.proj = nn.Linear(dim, dim)

            def forward(self, x):
                q, k, v = self.qkv(x).chunk(3, dim=-1)
                return self.proj(torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v)

        class DiffAttention(Attention):
            def __init__(self, dim, num_heads=2, qkv_bias=False, depth=0):
                super().__init__(dim, num_heads, qkv_bias)
                self.lam = nn.Parameter(torch.zeros(depth + 1))

        def create_attn(attn_layer, dim, num_heads, depth=0, **kwargs):
            if issubclass(attn_layer, DiffAttention):
                kwargs["depth"] = depth
            return attn_layer(dim, num_heads=num_heads, **kwargs)

        dd = {"qkv_bias": True}
        attn = create_attn(Attention, 24, 2, depth=3, **dd)
        reveal_shape(attn(torch.randn(2, 5, 24)))
        diff = create_attn(DiffAttention, 24, 2, depth=3, **dd)
        reveal_shape(diff.lam)
    """,
    "a_helper_fills_a_local_dict": """
        def add_defaults(kwargs, width):
            kwargs.setdefault("out_features", width)
            kwargs.setdefault("bias", True)

        args = {"in_features": 8}
        add_defaults(args, 6)
        layer = nn.Linear(**args)
        reveal_shape(layer(torch.randn(3, 8)))
        layer(torch.randn(3, 6))  # E: TS101
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("builders"), HEADER, CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)


def _reveals(source: str) -> dict[int, str]:
    return {
        d.span.line: d.message.removeprefix("revealed shape: ")
        for d in check_source(source).diagnostics
        if d.code.id == "TS900"
    }


def test_a_helper_that_rebinds_its_parameter_leaves_the_dict_unknown() -> None:
    """``kwargs = dict(kwargs)`` inside the helper: its edits are on another dict (torch: the caller's
    ``args`` keeps 8, the helper's copy has 4); never the helper's value."""
    source = (
        "import torch\nimport torch.nn as nn\nfrom tensorshape import reveal_shape\n\n"
        "def fill(kwargs):\n    kwargs = dict(kwargs)\n    kwargs['in_features'] = 4\n    return kwargs\n\n"
        "args = {'in_features': 8}\nfill(args)\n"
        "reveal_shape(torch.zeros(args['in_features']))\n"
    )
    assert _reveals(source)[12] in ("[8]", "[?]", "[...]")


def test_a_list_edited_where_the_analysis_does_not_follow_is_never_stale() -> None:
    """A list handed to a function not interpreted (``random.shuffle``, ``extend_all``) holds what it
    may hold afterwards (torch: 3 items); it kept its old items before (a ``Sequential`` one layer
    short, silently)."""
    source = (
        "import random\nimport torch\nfrom tensorshape import reveal_shape\n\n"
        "def extend_all(xs, n):\n    if n > 0:\n        xs.append(n)\n        extend_all(xs, n - 1)\n\n"
        "xs = [1]\nextend_all(xs, 2)\nreveal_shape(torch.zeros(len(xs)))\n"
    )
    assert _reveals(source)[12] in ("[?]", "[3]"), _reveals(source)


def test_edits_of_known_lists_and_sets_are_never_stale() -> None:
    """``remove``/``clear``/``sort``/``add`` of a list or set of known items (torch: [2], [0], [2], [3])."""
    source = (
        "import torch\nfrom tensorshape import reveal_shape\n\n"
        "xs = [1, 2, 3]\nxs.remove(1)\nreveal_shape(torch.zeros(len(xs)))\n"
        "ys = [4, 5]\nys.clear()\nreveal_shape(torch.zeros(len(ys)))\n"
        "zs = [5, 4]\nzs.sort()\nreveal_shape(torch.zeros(len(zs)))\n"
        "seen = {'a', 'b'}\nseen.add('c')\nreveal_shape(torch.zeros(len(seen)))\n"
        "keep = {'a', 'b'}\nreveal_shape(torch.zeros(len(keep), 2 if 'a' in keep else 5, 1 if 'c' in keep else 3))\n"
    )
    r = _reveals(source)
    # (``seen.add("c")`` of a literal is followed: 3 items.)
    assert (r[6], r[9], r[12], r[15], r[17]) == ("[?]", "[0]", "[2]", "[3]", "[2 2 3]"), r


def test_what_replace_and_asdict_do_not_know_stays_unknown() -> None:
    """A field ``init=False`` (``replace`` does not pass it), a change that is not a field (Python
    raises), ``asdict`` of an object that is not a dataclass: unknown, never an error."""
    source = (
        "import dataclasses\nfrom dataclasses import dataclass, field\n\nimport torch\n"
        "from tensorshape import reveal_shape\n\n"
        "@dataclass\nclass A:\n    n: int = 4\n    m: int = field(default=3, init=False)\n\n"
        "@dataclass\nclass B:\n    n: int = 4\n\n"
        "class C:\n    n = 4\n\n"
        "reveal_shape(torch.zeros(dataclasses.replace(A(), n=5).n))\n"
        "reveal_shape(torch.zeros(dataclasses.replace(B(), k=5).n))\n"
        "reveal_shape(torch.zeros(dataclasses.replace(B(), n=6).n))\n"
        "reveal_shape(torch.zeros(dataclasses.asdict(B())['n']))\n"
        "reveal_shape(torch.zeros(dataclasses.asdict(C())['n']))\n"
    )
    found = check_source(source).diagnostics
    assert [d for d in found if d.code.id != "TS900"] == [], found
    r = _reveals(source)
    assert (r[21], r[22], r[23]) == ("[6]", "[4]", "[...]") and "4" not in r[19] and "5" not in r[20], r


def test_an_edit_through_one_reference_of_a_config_is_never_stale_through_another() -> None:
    """``cfg.n = 5`` with the same object in a dict, then ``d["a"].n = 7`` (torch: 5, then 7 through
    ``cfg``): the other references read what they may hold, never the old value."""
    source = (
        "import torch\nfrom dataclasses import dataclass\nfrom tensorshape import reveal_shape\n\n"
        "@dataclass\nclass C:\n    n: int = 2\n\n"
        "cfg = C()\nd = {'a': cfg}\ncfg.n = 5\nreveal_shape(torch.zeros(cfg.n))\n"
        "reveal_shape(torch.zeros(d['a'].n))\nx = d['a']\nx.n = 7\n"
        "reveal_shape(torch.zeros(x.n))\nreveal_shape(torch.zeros(cfg.n))\n"
    )
    r = _reveals(source)
    # ``[...]``: the other reference's attribute is unknown (written through another reference,
    # :meth:`InstanceV.overwritten`), not only its value; ``[7]``: the dict's item is the object
    # ``cfg`` holds, so the write through ``x`` is seen there; never the stale 2 or 5.
    assert (r[12], r[16]) == ("[5]", "[7]") and r[17] in ("[?]", "[...]", "[7]"), r
    assert r[13] in ("[?]", "[5]", "[...]"), r
