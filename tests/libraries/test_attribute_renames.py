"""Attributes renamed through a class-level dict of names (issue 22: transformers' ``attribute_map``,
GPT-2's ``hidden_size`` -> ``n_embd``), the items of a dataclass whose base is a dict
(``ModelOutput``: ``outputs[0]``, ``outputs["logits"]``, ``outputs.to_tuple()``), ``slice(...)``
kept to index with later, and ``isinstance(0, torch.Tensor)``.  Each is Python's semantics; the
shapes are compared with torch's where a program runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.libraries.conftest import CheckWithSite, reveals, torch_shapes
from tests.libraries.test_config_classes import CONFIG, HUB, MODEL, USER
from tests.libraries.test_model_output import GENERIC
from tests.libraries.test_model_output import MODEL as OUTPUT_MODEL

#: A renaming ``__getattribute__`` as transformers' ``PreTrainedConfig`` has.
GETATTRIBUTE = """
    def __getattribute__(self, key):
        if key != "attribute_map" and key in super().__getattribute__("attribute_map"):
            key = super().__getattribute__("attribute_map")[key]
        return super().__getattribute__(key)

    def validate_sizes(self):"""

#: The config of GPT-2's kind: its field is ``d_model``, read and written as ``hidden_size``.
RENAMED = CONFIG.replace(
    '    model_type = "tiny"\n\n    vocab_size: int = 100\n    hidden_size: int = 768\n',
    '    model_type = "tiny"\n    attribute_map = {"hidden_size": "d_model"}\n\n    vocab_size: int = 100\n'
    "    d_model: int = 768\n",
)
assert RENAMED != CONFIG


def _site(config: str) -> dict[str, dict[str, str]]:
    return {"tinylib": {"hub": HUB, "config": config, "model": MODEL}}


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        # Written through the renaming ``__setattr__`` (``hidden_size=64`` is not a field: it reaches
        # ``__post_init__``'s ``setattr``) and read through the renaming ``__getattribute__``: 64.
        (RENAMED.replace("\n    def validate_sizes(self):", GETATTRIBUTE), "[2 5 64]"),
        # No ``__getattribute__``: the value is stored as ``d_model`` and ``config.hidden_size`` reads
        # the class-level default (Python's answer, as torch shows).
        (
            CONFIG.replace(
                '    model_type = "tiny"\n', '    model_type = "tiny"\n    attribute_map = {"hidden_size": "d_model"}\n'
            ),
            "[2 5 768]",
        ),
    ],
    ids=["renamed-both-ways", "renamed-on-write-only"],
)
def test_renamed_attributes_are_pythons(
    check_with_site: CheckWithSite, tmp_path: Path, config: str, expected: str
) -> None:
    assert config not in (CONFIG, RENAMED)
    found = check_with_site(USER, _site(config))
    assert reveals(found)[11] == f"revealed shape: {expected}"
    # The probe built for 768 features: torch raises on the 64-wide embedding, at the user's line.
    assert [line for line, code, _ in found if code == "TS101"] == ([13] if expected == "[2 5 64]" else [])
    ran = USER[: USER.index("probe = ")]
    truth = torch_shapes(tmp_path, ran, "tinylib", _site(config)["tinylib"])
    assert truth[11] == expected


def test_a_table_not_known_leaves_the_attribute_unknown(check_with_site: CheckWithSite) -> None:
    # A name table that is not a dict of known strings: what a write stores is not known.
    config = RENAMED.replace("\n    def validate_sizes(self):", GETATTRIBUTE).replace(
        'attribute_map = {"hidden_size": "d_model"}',
        'attribute_map = {"hidden_size": sys.argv[-1]}',
    )
    config = "import sys\n" + config
    assert "sys.argv" in config
    found = check_with_site(USER, _site(config))
    assert reveals(found)[11] not in ("revealed shape: [2 5 64]", "revealed shape: [2 5 768]")
    assert [d for d in found if d[1] == "TS101"] == []


#: ``ModelOutput``'s item reads: by key through ``dict(self.items())``, by index through ``to_tuple``.
ITEM_READS = GENERIC.replace(
    "    def __setattr__(self, name, value):",
    """    def __getitem__(self, k):
        if isinstance(k, str):
            inner_dict = dict(self.items())
            return inner_dict[k]
        else:
            return self.to_tuple()[k]

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())

    def __setattr__(self, name, value):""",
)

OUTPUT_USER = """
import torch
from tensorshape import reveal_shape
from shapedlib.model import Encoder

out = Encoder(16)(torch.randn(2, 5, 8))
reveal_shape(out[0])
reveal_shape(out[1])
reveal_shape(out[-1])
reveal_shape(out["pooler_output"])
reveal_shape(out.to_tuple()[0])
reveal_shape(torch.randn(len(out.keys())))
# Only the first field was given: ``attentions`` and ``pooler_output`` are ``None``, no item.
only = Encoder(16).hidden(torch.randn(2, 5, 8))
reveal_shape(torch.randn(len(only.to_tuple())))
reveal_shape(only[0])
"""


def test_model_output_items(check_with_site: CheckWithSite, tmp_path: Path) -> None:
    modules = {"generic": ITEM_READS, "model": OUTPUT_MODEL}
    shown = reveals(check_with_site(OUTPUT_USER, {"shapedlib": modules}))
    truth = torch_shapes(tmp_path, OUTPUT_USER, "shapedlib", modules)
    assert len(truth) == 8
    assert {line: shown[line] for line in truth} == {line: f"revealed shape: {s}" for line, s in truth.items()}


def test_items_a_setattr_stores_unseen_are_unknown(check_with_site: CheckWithSite) -> None:
    # A ``__setattr__`` that stores items but is not analysed as transparent (it changes the value):
    # the items are not known, never the ones the fields alone would give.
    generic = ITEM_READS.replace(
        "        super().__setattr__(name, value)\n\n    def __setitem__",
        "        super().__setattr__(name, value[0])\n\n    def __setitem__",
    )
    assert generic != ITEM_READS
    found = check_with_site(OUTPUT_USER, {"shapedlib": {"generic": generic, "model": OUTPUT_MODEL}})
    shown = reveals(found)
    assert shown[7] != "revealed shape: [2 5 16]"
    assert [d for d in found if d[1] == "TS101"] == []


SLICES = """
import torch
from tensorshape import reveal_shape


def keep_last(h, keep):
    if isinstance(keep, torch.Tensor) and keep.ndim == 2:
        return h[keep]
    if isinstance(keep, int):
        keep = slice(-keep, None)
    return h[:, keep, :]


x = torch.randn(2, 16, 64)
reveal_shape(keep_last(x, 0))
reveal_shape(keep_last(x, 3))
reveal_shape(x[:, slice(2, 10, 2)])
reveal_shape(x[slice(1)])
"""


def test_slice_objects_and_isinstance_of_an_int(check_with_site: CheckWithSite, tmp_path: Path) -> None:
    shown = reveals(check_with_site(SLICES, {}))
    truth = torch_shapes(tmp_path, SLICES, "nothing", {})
    assert len(truth) == 4
    assert {line: shown[line] for line in truth} == {line: f"revealed shape: {s}" for line, s in truth.items()}


CLASSES = """
import torch
from collections import OrderedDict
from tensorshape import reveal_shape


class Config:
    pass


class Other:
    pass


config = Config()
names = OrderedDict([("bert", "BertConfig"), ("gpt2", "GPT2Config"), ("vit", "ViTConfig")])
reveal_shape(torch.zeros(len(names)))
reveal_shape(torch.zeros(3 if type(config) is Config else 4))
reveal_shape(torch.zeros(3 if type(config) is Other else 4))
reveal_shape(torch.zeros(len(type(config).__name__)))
"""


def test_type_of_an_instance_and_len_of_a_dict(check_with_site: CheckWithSite, tmp_path: Path) -> None:
    # ``type(config)`` is its class (transformers' ``type(config) in cls._model_mapping``), two class
    # statements are two classes for ``is``, and a dict of known keys has a known ``len``.
    shown = reveals(check_with_site(CLASSES, {}))
    truth = torch_shapes(tmp_path, CLASSES, "nothing", {})
    assert len(truth) == 4
    assert {line: shown[line] for line in truth} == {line: f"revealed shape: {s}" for line, s in truth.items()}
