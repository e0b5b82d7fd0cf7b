"""A model factory as timm's ``create_model`` builds it (issue 22): each model module groups its
pretrained configurations with ``generate_default_cfgs`` (a ``defaultdict`` of ``DefaultCfg``
dataclasses, whose ``tags`` is a ``deque`` and ``cfgs`` a dict from ``field(default_factory=...)``,
edited through the variable each is read into), ``@register_model`` files each under its name when
``isinstance(default_cfg, DefaultCfg)``, and the builder takes ``num_classes``/``in_chans`` from the
registered configuration where the caller gave none (``kwargs.setdefault``), then ``model_cls(**kwargs)``.
The user's model has the caller's classes and the configuration's channels; a mismatch is reported
at the user's line."""

from __future__ import annotations

from pathlib import Path

from tensorshape.infer.api import check_file
from tensorshape.infer.libraries import Libraries
from tensorshape.infer.project import Project

from tests.libraries.test_follow import _setup

PRETRAINED = """
from collections import deque, defaultdict
from dataclasses import dataclass, field, replace
from typing import Any, Deque, Dict, Optional, Tuple


@dataclass
class PretrainedCfg:
    url: Optional[str] = None
    architecture: Optional[str] = None
    tag: Optional[str] = None
    input_size: Tuple[int, int, int] = (3, 224, 224)
    num_classes: int = 1000

    @property
    def has_weights(self):
        return self.url


@dataclass
class DefaultCfg:
    tags: Deque[str] = field(default_factory=deque)
    cfgs: Dict[str, PretrainedCfg] = field(default_factory=dict)
    is_pretrained: bool = False


def split_model_name_tag(model_name, no_tag=''):
    model_name, *tag_list = model_name.split('.', 1)
    tag = tag_list[0] if tag_list else no_tag
    return model_name, tag


def generate_default_cfgs(cfgs):
    out = defaultdict(DefaultCfg)
    default_set = set()
    for k, v in cfgs.items():
        if isinstance(v, dict):
            v = PretrainedCfg(**v)
        has_weights = v.has_weights
        model, tag = split_model_name_tag(k)
        is_default_set = model in default_set
        priority = (has_weights and not tag) or (tag.endswith('*') and not is_default_set)
        tag = tag.strip('*')
        default_cfg = out[model]
        if priority:
            default_cfg.tags.appendleft(tag)
            default_set.add(model)
        elif has_weights and not default_cfg.is_pretrained:
            default_cfg.tags.appendleft(tag)
        else:
            default_cfg.tags.append(tag)
        if has_weights:
            default_cfg.is_pretrained = True
        default_cfg.cfgs[tag] = v
    return out


_model_entrypoints = {}
_model_pretrained_cfgs = {}


def register_model(fn):
    mod = sys.modules[fn.__module__]
    model_name = fn.__name__
    _model_entrypoints[model_name] = fn
    if hasattr(mod, 'default_cfgs') and model_name in mod.default_cfgs:
        default_cfg = mod.default_cfgs[model_name]
        if not isinstance(default_cfg, DefaultCfg):
            default_cfg = DefaultCfg(tags=deque(['']), cfgs={'': PretrainedCfg(**default_cfg)})
        for tag_idx, tag in enumerate(default_cfg.tags):
            pretrained_cfg = replace(default_cfg.cfgs[tag], architecture=model_name, tag=tag if tag else None)
            if tag_idx == 0:
                _model_pretrained_cfgs[model_name] = pretrained_cfg
    return fn


def build_model_with_cfg(model_cls, variant, **kwargs):
    cfg = _model_pretrained_cfgs.get(variant, None)
    if not cfg:
        cfg = PretrainedCfg()
    kwargs.setdefault('num_classes', cfg.num_classes)
    kwargs.setdefault('in_chans', cfg.input_size[0])
    return model_cls(**kwargs)


def create_model(model_name, **kwargs):
    kwargs = {k: v for k, v in kwargs.items() if v is not None}
    if model_name not in _model_entrypoints:
        raise RuntimeError(model_name)
    return _model_entrypoints[model_name](**kwargs)
"""

NETS = """
import torch.nn as nn
from ._pretrained import build_model_with_cfg, generate_default_cfgs, register_model

__all__ = ["Net"]


class Net(nn.Module):
    def __init__(self, num_classes=1000, in_chans=3, width=8):
        super().__init__()
        self.conv = nn.Conv2d(in_chans, width, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.fc(self.pool(self.conv(x)).flatten(1))


def _cfg(url='', **kwargs):
    return {'url': url, 'num_classes': 1000, 'input_size': (3, 224, 224), **kwargs}


default_cfgs = generate_default_cfgs({%s})


@register_model
def net_small(pretrained=False, **kwargs):
    return build_model_with_cfg(Net, 'net_small', **dict(dict(width=16), **kwargs))


@register_model
def net_gray(pretrained=False, **kwargs):
    return build_model_with_cfg(Net, 'net_gray', **kwargs)
"""

USER = """
import torch
import cfglib

m = cfglib.create_model("net_small", num_classes=4)
reveal_shape(m(torch.randn(2, 3, 32, 32)))
g = cfglib.create_model("net_gray")
reveal_shape(g(torch.randn(2, 1, 32, 32)))
g(torch.randn(2, 3, 32, 32))
"""


def _package(tmp_path: Path) -> tuple[Path, Libraries]:
    main, libs = _setup(tmp_path)
    pkg = Path(libs.paths[0]) / "cfglib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from ._pretrained import create_model\nfrom .nets import *\n")
    (pkg / "_pretrained.py").write_text("import sys\n" + PRETRAINED)
    # More configurations than a loop is unrolled over in general (24), a few tags of each model; the
    # first tag with weights is the default (``net_small.w``), or the one marked ``*``.
    table = [f"'net_{i}.t{j}': _cfg(url='u{i}', num_classes={10 + j})" for i in range(10) for j in range(3)]
    table += ["'net_small.t': _cfg(num_classes=12)", "'net_small.w': _cfg(url='u', num_classes=14)"]
    table += ["'net_gray.b': _cfg()", "'net_gray.a*': _cfg(url='g', input_size=(1, 32, 32), num_classes=6)"]
    table += ["'net_gray.c': _cfg(url='w')"]
    (pkg / "nets.py").write_text(NETS % ", ".join(table))
    main.write_text(USER)
    return main, libs


def test_create_model_takes_the_registered_configuration(tmp_path: Path) -> None:
    main, libs = _package(tmp_path)
    by_line = {d.span.line: d for d in check_file(main, project=Project([main.parent], libs)).diagnostics}
    assert sorted(by_line) == [6, 8, 9], by_line
    assert by_line[6].message == "revealed shape: [2 4]"  # the caller's classes
    assert by_line[8].message == "revealed shape: [2 6]"  # the default configuration's, marked ``*``
    assert by_line[9].code.id == "TS101" and "expected input with 1 channel" in by_line[9].message
