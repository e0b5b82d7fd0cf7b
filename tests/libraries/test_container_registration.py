"""Children a container registers by name (issue 22), as torchvision's DenseNet does: a
``Sequential(OrderedDict([...]))`` stem whose children are read by name (``features.conv0``),
``features.add_module("denseblock%d" % (i + 1), block)`` appending blocks, a ``Sequential``
subclass whose ``__init__`` assigns its layers as attributes (``_Transition``: an empty container
before, so its call kept the input's shape, silently wrong), and an ``nn.ModuleDict`` subclass
filled by ``add_module`` whose ``forward`` iterates ``self.items()``.  A child registered under a
name not known leaves the container unknown, never wrong."""

from __future__ import annotations

from tensorshape.infer.api import check_source

PROGRAM = """
from collections import OrderedDict

import torch
import torch.nn as nn
from tensorshape import reveal_shape


class Transition(nn.Sequential):
    def __init__(self, num_input_features: int, num_output_features: int) -> None:
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(num_input_features, num_output_features, kernel_size=1, bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


class DenseBlock(nn.ModuleDict):
    def __init__(self, num_layers: int, num_input_features: int, growth_rate: int) -> None:
        super().__init__()
        for i in range(num_layers):
            layer = nn.Conv2d(num_input_features + i * growth_rate, growth_rate, 3, padding=1)
            self.add_module("denselayer%d" % (i + 1), layer)

    def forward(self, init_features):
        features = [init_features]
        for name, layer in self.items():
            new_features = layer(torch.cat(features, 1))
            features.append(new_features)
        return torch.cat(features, 1)


class Net(nn.Module):
    def __init__(self, block_config=(2, 3), growth_rate=8, num_init_features=16, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            OrderedDict(
                [
                    ("conv0", nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3, bias=False)),
                    ("norm0", nn.BatchNorm2d(num_init_features)),
                    ("relu0", nn.ReLU(inplace=True)),
                ]
            )
        )
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            block = DenseBlock(num_layers, num_features, growth_rate)
            self.features.add_module("denseblock%d" % (i + 1), block)
            num_features = num_features + num_layers * growth_rate
            if i != len(block_config) - 1:
                trans = Transition(num_features, num_features // 2)
                self.features.add_module("transition%d" % (i + 1), trans)
                num_features = num_features // 2
        self.features.add_module("norm5", nn.BatchNorm2d(num_features))
        self.classifier = nn.Linear(num_features, num_classes)

    def forward(self, x):
        features = self.features(x)
        out = torch.flatten(nn.functional.adaptive_avg_pool2d(features, (1, 1)), 1)
        return self.classifier(out)


net = Net()
x = torch.randn(2, 3, 32, 32)
reveal_shape(net.features.conv0(x))
reveal_shape(net.features(x))
reveal_shape(Transition(32, 16)(torch.randn(2, 32, 16, 16)))
reveal_shape(net(x))
net.classifier = nn.Linear(64, 5)
out = net(x)  # E: TS101
"""


def _found(source: str) -> list[tuple[int, str, str]]:
    return sorted((d.span.line, d.code.id, d.message) for d in check_source(source).diagnostics)


def _line(source: str, text: str) -> int:
    return source.splitlines().index(text) + 1


def _reveal(found: list[tuple[int, str, str]], line: int) -> str:
    return next(msg for at, code, msg in found if code == "TS900" and at == line).removeprefix("revealed shape: ")


def test_children_registered_by_name() -> None:
    found = _found(PROGRAM)
    # torch: (2, 16, 16, 16), (2, 40, 8, 8), (2, 16, 8, 8), (2, 10); the new head's 64 inputs get 40.
    assert _reveal(found, _line(PROGRAM, "reveal_shape(net.features.conv0(x))")) == "[2 16 16 16]"
    assert _reveal(found, _line(PROGRAM, "reveal_shape(net.features(x))")) == "[2 40 8 8]"
    transition = "reveal_shape(Transition(32, 16)(torch.randn(2, 32, 16, 16)))"
    assert _reveal(found, _line(PROGRAM, transition)) == "[2 16 8 8]"
    assert _reveal(found, _line(PROGRAM, "reveal_shape(net(x))")) == "[2 10]"
    errors = [(line, code) for line, code, _ in found if code != "TS900"]
    # Raised in ``forward`` (at the classifier), reached from the user's call.
    assert errors == [(_line(PROGRAM, "        return self.classifier(out)"), "TS101")], found


def test_blocks_added_in_a_longer_loop() -> None:
    # Ten layers (torch: [2 96 8 8]): a loop that registers children by a computed name is unrolled
    # up to 24 passes (DenseNet-121's blocks have 6 to 24 layers).
    source = PROGRAM.replace("block_config=(2, 3)", "block_config=(2, 10)").replace(
        "net.classifier = nn.Linear(64, 5)\nout = net(x)  # E: TS101\n", ""
    )
    found = _found(source)
    assert _reveal(found, _line(source, "reveal_shape(net.features(x))")) == "[2 96 8 8]", found
    assert [d for d in found if d[1] != "TS900"] == [], found


def test_a_name_not_known_leaves_the_container_unknown() -> None:
    # Thirty layers: the loop is not unrolled, so each name is not known.
    source = PROGRAM.replace("block_config=(2, 3)", "block_config=(2, 30)").replace(
        "net.classifier = nn.Linear(64, 5)\nout = net(x)  # E: TS101\n", ""
    )
    found = _found(source)
    shown = _reveal(found, _line(source, "reveal_shape(net.features(x))"))
    assert "?" in shown or "..." in shown or shown == "unknown", found
    assert [d for d in found if d[1] != "TS900"] == [], found


def test_a_layer_given_a_list_of_features() -> None:
    # DenseNet's ``_DenseLayer.forward(self, input: Tensor)`` is given the list of earlier features:
    # ``isinstance(input, Tensor)`` is false for a list (torch: [2 8 8 8]).
    source = (
        "import torch\nimport torch.nn as nn\nfrom torch import Tensor\nfrom tensorshape import reveal_shape\n\n\n"
        "class Layer(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.conv = nn.Conv2d(96, 8, 1)\n\n    def forward(self, input: Tensor) -> Tensor:\n"
        "        if isinstance(input, Tensor):\n            prev = [input]\n        else:\n            prev = input\n"
        "        return self.conv(torch.cat(prev, 1))\n\n\n"
        "reveal_shape(Layer()([torch.randn(2, 64, 8, 8), torch.randn(2, 32, 8, 8)]))\n"
    )
    found = _found(source)
    assert [msg for _, code, msg in found if code == "TS900"] == ["revealed shape: [2 8 8 8]"], found


def test_percent_formatting_of_known_values() -> None:
    source = (
        "import torch\nfrom tensorshape import reveal_shape\n"
        'd = {"block2": torch.zeros(3), "x1.5": torch.zeros(4)}\n'
        'reveal_shape(d["block%d" % (1 + 1)])\nreveal_shape(d["%s%.1f" % ("x", 1.5)])\n'
    )
    found = _found(source)
    assert [msg for _, _, msg in found] == ["revealed shape: [3]", "revealed shape: [4]"], found


ENCODER = """
from collections import OrderedDict

import torch
import torch.nn as nn
from tensorshape import reveal_shape


def encoder(num_layers: int, width: int) -> nn.Sequential:
    layers: OrderedDict[str, nn.Module] = OrderedDict()
    for i in range(num_layers):
        layers[f"encoder_layer_{i}"] = nn.Linear(WIDTH_IN, WIDTH_OUT)
    return nn.Sequential(layers)


x = torch.randn(2, 8)
reveal_shape(encoder(12, 8)(x))
"""


def test_sequential_of_a_dict_filled_in_a_loop() -> None:
    # ViT-B's twelve ``encoder_layer_{i}`` (a loop too long to unroll): each block keeps the width.
    same = _found(ENCODER.replace("WIDTH_IN", "width").replace("WIDTH_OUT", "width"))
    assert [msg for _, code, msg in same if code == "TS900"] == ["revealed shape: [2 8]"], same
    # Blocks that change the width (torch: [2 20] after twelve): not known, never [2 8].
    growing = _found(ENCODER.replace("WIDTH_IN", "width + i").replace("WIDTH_OUT", "width + i + 1"))
    shown = [msg for _, code, msg in growing if code == "TS900"]
    assert len(shown) == 1 and shown[0] not in ("revealed shape: [2 8]", "revealed shape: [2 9]"), growing
    assert [d for d in growing if d[1] != "TS900"] == [], growing
