"""The constructs model libraries are built from, and the edits fine-tuning makes (issue 22 items 2-3).

Each case is user-style code checked against torch (see ``torch_cases``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tensorshape.infer import CheckSettings, check_file
from tensorshape.infer.project import Project
from tensorshape.model.diagnostics import Severity

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import torch
import torch.nn as nn
from tensorshape import reveal_shape


class Classifier(nn.Module):
    def __init__(self, width=16, num_classes=10):
        super().__init__()
        self.stem = nn.Linear(4, width)
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.fc(self.stem(x))


class Wide(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Linear(4, 32)
        self.classifier = nn.Sequential(nn.Linear(32, 24), nn.ReLU(), nn.Linear(24, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


class Heads(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        return self.head(x)


class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(4, 32)
        self.heads = Heads()

    def forward(self, x):
        return self.heads(self.embed(x))


"""

REGISTRY = """
_model_entrypoints = {}


def register_model(fn):
    _model_entrypoints[fn.__name__] = fn
    return fn


@register_model
def net_small(**kwargs):
    return Classifier(width=8, **kwargs)


@register_model
def net_large(num_classes=10, **kwargs):
    return Classifier(width=64, num_classes=num_classes)


def create_model(model_name, **kwargs):
    if model_name not in _model_entrypoints:
        raise RuntimeError(f"Unknown model {model_name}")
    create_fn = _model_entrypoints[model_name]
    return create_fn(**kwargs)
"""

CASES = {
    "new_head": """
        model = Classifier()
        x = torch.randn(2, 4)
        reveal_shape(model(x))
        model.fc = nn.Linear(16, 3)
        reveal_shape(model(x))
        """,
    "new_head_wrong_in_features": """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Linear(4, 16)
                self.fc = nn.Linear(16, 10)

            def forward(self, x):
                return self.fc(self.body(x))  # E: TS101


        model = Net()
        model.fc = nn.Linear(512, 3)
        model(torch.randn(2, 4))
        """,
    "other_instance_keeps_its_head": """
        a = Classifier()
        b = Classifier()
        a.fc = nn.Linear(16, 2)
        reveal_shape(a(torch.randn(3, 4)))
        reveal_shape(b(torch.randn(3, 4)))
        """,
    "sequential_last_replaced": """
        model = Wide()
        model.classifier[-1] = nn.Linear(24, 5)
        reveal_shape(model(torch.randn(2, 4)))
        """,
    "sequential_last_replaced_wrong": """
        head = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 10))
        head[2] = nn.Linear(24, 5)
        head(torch.randn(2, 4))  # E: TS101
        """,
    "nested_head_replaced": """
        model = Transformer()
        model.heads.head = nn.Linear(32, 7)
        reveal_shape(model(torch.randn(2, 4)))
        """,
    "no_grad_eval_block": """
        model = Classifier(num_classes=6)
        model.eval()
        with torch.no_grad():
            out = model(torch.randn(5, 4))
            reveal_shape(out)
        """,
    "partial_norm_layer": """
        from functools import partial


        class Block(nn.Module):
            def __init__(self, dim, norm_layer=None):
                super().__init__()
                if norm_layer is None:
                    norm_layer = partial(nn.LayerNorm, eps=1e-6)
                self.norm = norm_layer(dim)
                self.proj = nn.Linear(dim, dim * 2)

            def forward(self, x):
                return self.proj(self.norm(x))


        reveal_shape(Block(8)(torch.randn(3, 8)))
        reveal_shape(Block(8, norm_layer=partial(nn.LayerNorm, elementwise_affine=False))(torch.randn(3, 8)))
        """,
    "partial_norm_wrong_dim": """
        from functools import partial

        norm_layer = partial(nn.LayerNorm, eps=1e-6)
        norm = norm_layer(16)
        norm(torch.randn(3, 8))  # E: TS101
        """,
    "kwargs_through_builders": """
        def _create(embed_dim=64, num_classes=1000, **kwargs):
            return Classifier(width=embed_dim, num_classes=num_classes)


        def small(**kwargs):
            return _create(**dict(embed_dim=32, **kwargs))


        def tiny(*, num_classes=10, **kwargs):
            return _create(embed_dim=8, num_classes=num_classes, **kwargs)


        reveal_shape(small(num_classes=5)(torch.randn(2, 4)))
        reveal_shape(tiny()(torch.randn(2, 4)))
        reveal_shape(tiny(num_classes=3)(torch.randn(2, 4)))
        """,
    "make_layer_appends": """
        class Bottleneck(nn.Module):
            expansion = 4

            def __init__(self, inplanes, planes):
                super().__init__()
                self.conv = nn.Conv2d(inplanes, planes * self.expansion, 1)

            def forward(self, x):
                return self.conv(x)


        class Stage(nn.Sequential):
            def __init__(self, *layers):
                super().__init__(*layers)


        def make_layer(block, inplanes, planes, blocks):
            layers = []
            layers.append(block(inplanes, planes))
            inplanes = planes * block.expansion
            for _ in range(1, blocks):
                layers.append(block(inplanes, planes))
            return nn.Sequential(*layers)


        x = torch.randn(2, 8, 5, 5)
        stage = make_layer(Bottleneck, 8, 4, 3)
        reveal_shape(stage(x))
        for layer in stage:
            x = layer(x)
            reveal_shape(x)
        """,
    "make_layer_wrong_channels": """
        layers = [nn.Conv2d(3, 16, 3)]
        for _ in range(1, 3):
            layers.append(nn.Conv2d(16, 16, 3))
        net = nn.Sequential(*layers)
        net(torch.randn(1, 4, 16, 16))  # E: TS101
        """,
    "dataclass_config_fields": """
        from dataclasses import dataclass, field


        @dataclass
        class Config:
            d_in: int = 4
            d_model: int = 64
            num_classes: int = field(default=10)
            tags: list = field(default_factory=list)


        @dataclass
        class BigConfig(Config):
            d_model: int = 128
            depth: int = 2


        class Net(nn.Module):
            def __init__(self, cfg):
                super().__init__()
                self.embed = nn.Linear(cfg.d_in, cfg.d_model)
                self.head = nn.Linear(cfg.d_model, cfg.num_classes)

            def forward(self, x):
                return self.head(self.embed(x))


        x = torch.randn(2, 4)
        reveal_shape(Net(Config())(x))
        reveal_shape(Net(Config(d_model=8, num_classes=3))(x))
        reveal_shape(Net(Config(4, 16, 5))(x))
        big = BigConfig(4, 32, 6, [], 3)
        reveal_shape(Net(big)(x))
        reveal_shape(torch.zeros(big.depth, BigConfig().d_model))
        """,
    "dataclass_config_wrong_width": """
        from dataclasses import dataclass, field


        @dataclass
        class Config:
            d_in: int = field(default=4)


        cfg = Config(d_in=8)
        nn.Linear(cfg.d_in, 2)(torch.randn(2, 4))  # E: TS101
        """,
    "getattr_with_default": """
        from dataclasses import dataclass


        @dataclass
        class Config:
            hidden: int = 16


        class LegacyConfig:
            def __init__(self, hidden=32, dropout_dim=4):
                self.hidden = hidden
                self.dropout_dim = dropout_dim


        class Net(nn.Module):
            def __init__(self, cfg):
                super().__init__()
                width = getattr(cfg, "hidden", 64)
                self.proj = nn.Linear(4, width)
                self.out = nn.Linear(width, getattr(cfg, "num_labels", 3))

            def forward(self, x):
                return self.out(self.proj(x))


        x = torch.randn(2, 4)
        reveal_shape(Net(Config(hidden=8))(x))
        reveal_shape(Net(LegacyConfig())(x))
        legacy = LegacyConfig(hidden=6)
        reveal_shape(torch.zeros(getattr(legacy, "dropout_dim", 1), getattr(legacy, "extra", 5)))
        """,
    "modulelist_appended": """
        class Block(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.fc = nn.Linear(d, d)

            def forward(self, x):
                return torch.relu(self.fc(x))


        class Net(nn.Module):
            def __init__(self, d=8, depth=3, num_classes=2):
                super().__init__()
                self.blocks = nn.ModuleList()
                for _ in range(depth):
                    self.blocks.append(Block(d))
                self.blocks.extend([nn.Linear(d, 2 * d)])
                self.head = nn.Linear(2 * d, num_classes)

            def forward(self, x):
                for blk in self.blocks:
                    x = blk(x)
                return self.head(x)


        reveal_shape(Net()(torch.randn(4, 8)))
        reveal_shape(Net(d=5, depth=2, num_classes=7)(torch.randn(4, 5)))
        seq = nn.Sequential(nn.Linear(4, 8))
        seq.append(nn.ReLU())
        seq.append(nn.Linear(8, 2))
        reveal_shape(seq(torch.randn(5, 4)))
        y = torch.randn(3, 6)
        for blk in Net(d=6, depth=2).blocks:
            y = blk(y)
        reveal_shape(y)
        """,
    "modulelist_appended_wrong": """
        blocks = nn.ModuleList()
        for _ in range(2):
            blocks.append(nn.Linear(8, 8))
        blocks.append(nn.Linear(4, 2))
        y = torch.randn(3, 8)
        for blk in blocks:
            y = blk(y)  # E: TS101
        """,
    "sequential_subclass_and_children": """
        class ConvNormAct(nn.Sequential):
            def __init__(self, cin, cout, kernel_size=3, dilation=1, norm_layer=nn.BatchNorm2d, inplace=True):
                if isinstance(kernel_size, int) and isinstance(dilation, int):
                    padding = (kernel_size - 1) // 2 * dilation
                else:
                    padding = tuple((k - 1) // 2 for k in kernel_size)
                layers = [nn.Conv2d(cin, cout, kernel_size, padding=padding, dilation=dilation)]
                if norm_layer is not None:
                    layers.append(norm_layer(cout))
                params = {} if inplace is None else {"inplace": inplace}
                layers.append(nn.ReLU(**params))
                super().__init__(*layers)
                self.out_channels = cout


        class Conv2dNormAct(ConvNormAct):
            def __init__(self, cin, cout):
                super().__init__(cin, cout, kernel_size=5)


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.stem = Conv2dNormAct(3, 8)
                self.width = 8
                self.body = nn.Sequential(ConvNormAct(8, 16), ConvNormAct(16, 16))
                self.pool = nn.AdaptiveAvgPool2d(1)
                self.fc = nn.Linear(16, 10)

            def forward(self, x):
                return self.fc(torch.flatten(self.pool(self.body(self.stem(x))), 1))


        x = torch.randn(2, 3, 16, 16)
        block = Conv2dNormAct(3, 8)
        reveal_shape(block(x))
        reveal_shape(block[0](x))
        reveal_shape(torch.zeros(len(block), block.out_channels))
        for layer in ConvNormAct(3, 4, norm_layer=None):
            x = layer(x)
        reveal_shape(x)
        net = Net()
        backbone = nn.Sequential(*list(net.children())[:-2])
        reveal_shape(backbone(torch.randn(2, 3, 16, 16)))
        reveal_shape(nn.Sequential(*list(net.body.children())[:1])(torch.randn(2, 8, 4, 4)))
        """,
    "model_name_taken_apart": """
        widths = {"tiny": 8, "small": 16}


        def build(model_name, num_classes=10):
            source, sep, name = model_name.partition(":")
            if not sep:
                name = source
            arch, _, tag = name.split(".", 1)[0].rpartition("_")
            width = widths[tag.lower()] if arch.startswith("net") and not tag.isdigit() else 4
            return nn.Sequential(nn.Linear(4, width), nn.Linear(width, num_classes))


        x = torch.randn(2, 4)
        reveal_shape(build("net_small.in1k", num_classes=3)(x))
        reveal_shape(build("hub:net_TINY")(x))
        reveal_shape(torch.zeros(len("a-b-c".split("-")), "xyz".find("z")))
        head = nn.Linear(widths["tiny"], 2)
        head(build("net_small")(x))  # E: TS101
        """,
    "dataclass_post_init_and_subclass_hook": """
        from dataclasses import dataclass


        @dataclass
        class BaseConfig:
            vocab_size: int = 100
            d_model: int = 64

            def __init_subclass__(cls, **kwargs):
                super().__init_subclass__(**kwargs)
                cls = dataclass(cls, kw_only=True)


        class BlockConfig(BaseConfig):
            n_head: int = 4

            def __post_init__(self):
                self.d_head = self.d_model // self.n_head
                self.d_ff = 4 * self.d_model


        class Block(nn.Module):
            def __init__(self, cfg):
                super().__init__()
                self.qkv = nn.Linear(cfg.d_model, 3 * cfg.n_head * cfg.d_head)
                self.ff = nn.Linear(cfg.d_model, cfg.d_ff)

            def forward(self, x):
                return self.qkv(x), self.ff(x)


        cfg = BlockConfig(d_model=32, n_head=2)
        reveal_shape(torch.zeros(cfg.vocab_size, cfg.d_model, cfg.d_head, cfg.d_ff))
        qkv, ff = Block(cfg)(torch.randn(2, 5, 32))
        reveal_shape(qkv)
        reveal_shape(ff)
        reveal_shape(torch.zeros(BlockConfig().d_head))
        """,
    "dataclass_post_init_wrong_width": """
        from dataclasses import dataclass


        @dataclass
        class Config:
            d_model: int = 64
            expand: int = 2

            def __post_init__(self):
                self.d_inner = self.expand * self.d_model


        cfg = Config(d_model=16)
        proj = nn.Linear(cfg.d_inner, 8)
        proj(torch.randn(3, cfg.d_model))  # E: TS101
        """,
    "layer_given_by_class_or_name": """
        import functools

        _LAYERS = {"relu": nn.ReLU, "gelu": nn.GELU}


        def get_layer(layer="relu"):
            if layer is None:
                return None
            assert isinstance(layer, (type, str, functools.partial))
            if isinstance(layer, functools.partial) or not isinstance(layer, str):
                return layer
            return _LAYERS[layer.lower()]


        class Net(nn.Module):
            def __init__(self, act_layer=nn.ReLU):
                super().__init__()
                self.fc = nn.Linear(4, 6)
                self.act = get_layer(act_layer)()

            def forward(self, x):
                return self.act(self.fc(x))


        x = torch.randn(2, 4)
        reveal_shape(Net(nn.Tanh)(x))
        reveal_shape(Net("GELU")(x))
        reveal_shape(torch.zeros(isinstance(nn.Linear, type) + isinstance(Net, str), 2))
        """,
    "children_backbone_wrong_head": """
        backbone = nn.Sequential(*list(Wide().children())[:-1])
        head = nn.Linear(24, 5)
        head(backbone(torch.randn(2, 4)))  # E: TS101
        """,
    "vgg_style_config_layers": """
        from collections import OrderedDict
        from typing import cast

        cfgs = {"A": [8, "M", 16, "M"], "B": [8, 8, "M"]}


        def make_layers(cfg, batch_norm=False):
            layers = []
            in_channels = 3
            for v in cfg:
                if v == "M":
                    layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
                else:
                    v = cast(int, v)
                    conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
                    if batch_norm:
                        layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
                    else:
                        layers += [conv2d, nn.ReLU(inplace=True)]
                    in_channels = v
            return nn.Sequential(*layers)


        class Weights:
            @classmethod
            def verify(cls, obj):
                if obj is not None:
                    raise TypeError("no weights here")
                return obj


        def vgg(cfg, weights=None, **kwargs):
            weights = Weights.verify(weights)
            if weights is not None:
                kwargs["init_weights"] = False
            return make_layers(cfgs[cfg], **kwargs)


        def encoder(depth, width):
            blocks = OrderedDict()
            for i in range(depth):
                blocks[f"block_{i}"] = nn.Linear(width, width)
            blocks["head"] = nn.Linear(width, 2)
            return nn.Sequential(blocks)


        x = torch.randn(2, 3, 16, 16)
        reveal_shape(vgg("A")(x))
        reveal_shape(vgg("B", batch_norm=True)(x))
        reveal_shape(encoder(3, 6)(torch.randn(5, 6)))
        """,
    "builder_flags_of_known_values": """
        import collections.abc
        import functools
        import itertools


        def get_norm_layer(norm_layer):
            norm_kwargs = {}
            if isinstance(norm_layer, functools.partial):
                norm_kwargs.update(norm_layer.keywords)
                norm_layer = norm_layer.func
            if norm_kwargs:
                norm_layer = functools.partial(norm_layer, **norm_kwargs)
            return norm_layer


        class Stem(nn.Module):
            def __init__(self, stem_type="", output_stride=32, channels=(8, 16), norm_layer=nn.BatchNorm2d):
                super().__init__()
                assert output_stride in (8, 16, 32)
                norm_layer = get_norm_layer(norm_layer)
                deep = "deep" in stem_type
                if deep:
                    self.conv = nn.Sequential(nn.Conv2d(3, channels[0], 3), nn.Conv2d(channels[0], channels[1], 3))
                else:
                    self.conv = nn.Conv2d(3, channels[-1], 7)
                self.norm = norm_layer(channels[-1]) if channels else None
                self.extra = nn.Identity() if "pool" not in {"norm": 1} else None

            def forward(self, x):
                x = self.norm(self.conv(x))
                return x if self.extra is None else self.extra(x)


        def to_ntuple(n):
            def parse(x):
                if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
                    return tuple(x)
                return tuple(itertools.repeat(x, n))

            return parse


        def head(width, pool_type=None):
            pool_type = pool_type or "avg"
            mult = 2 if pool_type.endswith("catavgmax") else 1
            return nn.Linear(width * mult, 3)


        blocks = to_ntuple(2)(Stem)
        widths = to_ntuple(2)((4, 8))
        reveal_shape(blocks[-1]()(torch.randn(1, 3, 16, 16)))
        reveal_shape(torch.zeros(widths[1], widths[0]))
        reveal_shape(head(16)(torch.randn(2, 16)))
        x = torch.randn(2, 3, 16, 16)
        reveal_shape(Stem()(x))
        reveal_shape(Stem("deep_tiered")(x))
        reveal_shape(Stem(norm_layer=functools.partial(nn.BatchNorm2d, eps=1e-3))(x))
        """,
    "checkpointed_blocks": """
        from torch.utils.checkpoint import checkpoint


        class Stage(nn.Module):
            def __init__(self, grad_checkpointing=False):
                super().__init__()
                self.grad_checkpointing = grad_checkpointing
                self.blocks = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 6))

            def forward(self, x):
                if self.grad_checkpointing:
                    return checkpoint(self.blocks, x, use_reentrant=False)
                return self.blocks(x)


        x = torch.randn(2, 4)
        reveal_shape(checkpoint(nn.Linear(4, 3), x, use_reentrant=False))
        reveal_shape(Stage(True)(x))
        nn.Linear(8, 2)(checkpoint(Stage(True), x, use_reentrant=False))  # E: TS101
        """,
    "kwargs_filtered_by_comprehension": """
        def build(width=None, num_classes=None, **kwargs):
            kwargs = dict(width=width, num_classes=num_classes, **kwargs)
            kwargs = {k: v for k, v in kwargs.items() if v is not None}
            sizes = [v for v in (4, None, 8) if v is not None]
            return Classifier(**kwargs), nn.Linear(sizes[0], sizes[-1])


        model, proj = build(num_classes=3)
        reveal_shape(model(torch.randn(2, 4)))
        reveal_shape(proj(torch.randn(2, 4)))
        nn.Linear(16, 2)(build(width=8)[0](torch.randn(2, 4)))  # E: TS101
        """,
    "registry_literal_name": REGISTRY
    + """
x = torch.randn(2, 4)
reveal_shape(net_small()(x))
reveal_shape(create_model("net_small", num_classes=5)(x))
reveal_shape(create_model("net_large")(x))
""",
    "registry_wrong_input": REGISTRY
    + """
model = create_model("net_large", num_classes=3)
nn.Linear(10, 2)(model(torch.randn(2, 4)))  # E: TS101
""",
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("library_constructs"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)


def test_registry_with_a_non_literal_key_is_a_counted_cause(tmp_path: Path) -> None:
    path = tmp_path / "registry_argv.py"
    path.write_text(HEADER + "import sys\n" + REGISTRY + "reveal_shape(create_model(sys.argv[1])(torch.randn(2, 4)))\n")
    result = check_file(path, CheckSettings(), Project([tmp_path]))
    (reveal,) = [d for d in result.diagnostics if d.code.id == "TS900"]
    assert reveal.message == "revealed shape: unknown (registry read with a key that is not a literal)"
    assert result.stats.get("cause:registry read with a key that is not a literal", 0) >= 1
    assert not [d for d in result.diagnostics if d.severity >= Severity.WARNING]


def test_class_level_default_is_never_read_for_an_unseen_constructor(tmp_path: Path) -> None:
    """transformers' configs are made dataclasses by their base's ``__init_subclass__``.  A hook that
    only calls ``dataclass(cls, ...)`` gives the field the value the call passed (``hidden_size=64``,
    never the class-level 768); a hook that does more with the class (wraps its ``__init__``) leaves
    its attributes unknown, class-level ones included (the wrapper may set them), and the cause is
    counted."""
    hook = "        cls = dataclass(cls, kw_only=True)\n"
    wrapped = hook + "        cls.__init__ = wrap(cls.__init__)\n"
    shown = {}
    for name, body in (("plain", hook), ("wrapped", wrapped)):
        path = tmp_path / f"config_{name}.py"
        path.write_text(
            HEADER
            + "from dataclasses import dataclass\n\n\n"
            + "def wrap(init):\n    return init\n\n\n"
            + "@dataclass\nclass Base:\n    name: str = 'base'\n\n"
            + "    def __init_subclass__(cls, **kwargs):\n        super().__init_subclass__(**kwargs)\n"
            + body
            + "\n\nclass Config(Base):\n    hidden_size: int = 768\n    depth = 2\n\n\n"
            + "cfg = Config(hidden_size=64)\nreveal_shape(torch.zeros(cfg.hidden_size))\n"
            + "reveal_shape(torch.zeros(Config().depth))\n"
        )
        result = check_file(path, CheckSettings(), Project([tmp_path]))
        shown[name] = [d.message for d in result.diagnostics if d.code.id == "TS900"]
        assert not [d for d in result.diagnostics if d.severity >= Severity.WARNING]
        if name == "wrapped":
            cause = f"cause:`config_{name}.Base.__init_subclass__` changes the class"
            assert any(k.startswith(cause) and n >= 1 for k, n in result.stats.items()), result.stats
    assert shown == {
        "plain": ["revealed shape: [64]", "revealed shape: [2]"],
        "wrapped": ["revealed shape: [...]", "revealed shape: [...]"],
    }


def test_children_of_a_module_assigned_twice_are_unknown(tmp_path: Path) -> None:
    """``self.head = None`` then ``self.head = nn.Linear(...)``: torch registers the module when it is
    assigned, after ``body``, which the attribute order does not show: unknown, never a wrong order."""
    path = tmp_path / "children_twice.py"
    path.write_text(
        HEADER
        + "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        + "        self.head = None\n        self.body = nn.Linear(4, 8)\n        self.head = nn.Linear(8, 2)\n\n"
        + "    def forward(self, x):\n        return self.head(self.body(x))\n\n\n"
        + "reveal_shape(nn.Sequential(*list(Net().children())[:1])(torch.randn(2, 4)))\n"
        + "reveal_shape(nn.Sequential(*list(Classifier().children())[:1])(torch.randn(2, 4)))\n"
    )
    result = check_file(path, CheckSettings(), Project([tmp_path]))
    reveals = [d.message for d in result.diagnostics if d.code.id == "TS900"]
    assert reveals == ["revealed shape: unknown", "revealed shape: [2 16]"]


def test_an_empty_dict_or_a_missing_key_is_never_known_false() -> None:
    """A registry filled by modules the analysis has not run looks empty: ``name in registry`` and
    ``if registry:`` stay unknown then (a path cut by a stale dict would hide the code after it),
    while a key that is there, a non-empty dict and a tuple's literals are known."""
    from tensorshape.infer.expressions import _contains
    from tensorshape.infer.values import truthiness
    from tensorshape.model.values import DictV, IntV, NoneV, StrV, TupleV

    registry = DictV((("resnet18", NoneV()),))
    assert truthiness(DictV(())) is None
    assert truthiness(registry) is True
    assert _contains(registry, StrV("resnet18")) is True
    assert _contains(registry, StrV("vit_small")) is None
    assert _contains(TupleV((IntV(8), IntV(16), IntV(32))), IntV(16)) is True
    assert _contains(TupleV((IntV(8), IntV(16), IntV(32))), IntV(4)) is False
    assert _contains(StrV("deep_tiered"), StrV("deep")) is True
    assert _contains(StrV(""), StrV("deep")) is False
