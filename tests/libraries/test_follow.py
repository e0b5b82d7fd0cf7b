"""Installed packages are followed from source; torch and stub-modelled modules never are; nothing is
reported inside a library (issue 22)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tensorshape.infer.api import check_file
from tensorshape.infer.libraries import Libraries
from tensorshape.infer.project import Project

LIB = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, c: int = 3):
        super().__init__()
        self.conv = nn.Conv2d(c, 8, 3, padding=1)

    def forward(self, x):
        return self.conv(x)
"""

USER = """
import torch
from fakelib.models import Net

net = Net()
reveal_shape(net(torch.randn(2, 3, 16, 16)))
net(torch.randn(2, 4, 16, 16))
"""


def _setup(tmp_path: Path) -> tuple[Path, Libraries]:
    site = tmp_path / "site-packages"
    (site / "fakelib").mkdir(parents=True)
    (site / "fakelib" / "__init__.py").write_text("")
    (site / "fakelib" / "models.py").write_text(LIB)
    (site / "torch").mkdir()
    (site / "torch" / "__init__.py").write_text("def randn(*a): ...\n")
    user = tmp_path / "proj"
    user.mkdir()
    (user / "main.py").write_text(USER)
    return user / "main.py", Libraries((str(site),))


def test_library_followed_and_error_at_user_call(tmp_path: Path) -> None:
    main, libs = _setup(tmp_path)
    project = Project([main.parent], libs)
    r = check_file(main, project=project)
    msgs = [(d.span.line, d.message) for d in r.diagnostics]
    assert (6, "revealed shape: [2 8 16 16]") in msgs
    errors = [d for d in r.diagnostics if d.code.id == "TS101"]
    assert [d.span.line for d in errors] == [7]
    assert "raised inside fakelib/models.py:11" in errors[0].message
    assert errors[0].related and errors[0].related[0].path.endswith("models.py")
    assert project.unfollowed["torch"] == "modelled by stubs"  # torch's source is never read


def test_excluded_and_not_followed(tmp_path: Path) -> None:
    main, libs = _setup(tmp_path)
    for lib in (Libraries(libs.paths, exclude=("fakelib",)), Libraries(libs.paths, include=("other",)), None):
        project = Project([main.parent], lib)
        r = check_file(main, project=project)
        assert [d.code.id for d in r.diagnostics] == ["TS900"]
        assert "unknown" in r.diagnostics[0].message
    project = Project([main.parent], Libraries(libs.paths, exclude=("fakelib",)))
    check_file(main, project=project)
    assert project.unfollowed["fakelib.models"] == "excluded by configuration"


def test_refusals() -> None:
    libs = Libraries(())
    assert libs.refusal("torch.nn") == "modelled by stubs"
    assert libs.refusal("torchvision.transforms.v2") == "modelled by stubs"
    assert libs.refusal("json") == "standard library"
    assert libs.refusal("numpy") == "excluded by default"
    assert libs.refusal("torchvision.models") is None
    assert Libraries((), include=("numpy",)).refusal("numpy") is None


def test_unfollowed_call_counts_its_cause(tmp_path: Path) -> None:
    main, libs = _setup(tmp_path)
    project = Project([main.parent], Libraries(libs.paths, exclude=("fakelib",)))
    r = check_file(main, project=project)
    assert r.stats["cause:not followed: excluded by configuration"] == 1  # ``Net()``: its calls follow from it
    assert r.examples["cause:not followed: excluded by configuration"].endswith("main.py:5:7")
    followed = check_file(main, project=Project([main.parent], libs))
    assert not [k for k in followed.stats if k.startswith("cause:not followed")]


def test_c_extension_call_counts_its_cause(tmp_path: Path) -> None:
    main, libs = _setup(tmp_path)
    (Path(libs.paths[0]) / "fakelib" / "_ops.cpython-312-x86_64-linux-gnu.so").write_bytes(b"")
    main.write_text("import torch\nfrom fakelib._ops import fused\n\nreveal_shape(fused(torch.randn(2, 3)))\n")
    r = check_file(main, project=Project([main.parent], libs))
    assert r.diagnostics[0].message == "revealed shape: unknown (not followed: C extension)"
    assert r.stats["cause:not followed: C extension"] == 1


def test_from_pretrained_counts_its_cause(tmp_path: Path) -> None:
    main, libs = _setup(tmp_path)
    (Path(libs.paths[0]) / "fakelib" / "models.py").write_text(
        LIB + "\n    @classmethod\n    def from_pretrained(cls, name):\n        return cls(3)\n"
    )
    main.write_text(
        "import torch\nfrom fakelib.models import Net\n\n"
        "net = Net.from_pretrained('org/net')\nreveal_shape(net(torch.randn(2, 3, 16, 16)))\n"
    )
    r = check_file(main, project=Project([main.parent], libs))
    why = "not followed: from_pretrained reads a configuration downloaded at run time"
    assert r.diagnostics[0].message == f"revealed shape: unknown ({why})"  # ``net(x)`` says why too
    assert r.stats[f"cause:{why}"] == 1


DEEP = """
import torch.nn as nn


def conv3x3(cin, cout):
    return nn.Conv2d(cin, cout, 3, padding=1)


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = conv3x3(cin, cout)

    def forward(self, x):
        return self.conv(x)


class Net(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.layer = self._make_layer(width)

    def _make_layer(self, width):
        layers = [Block(3, width)]
        for _ in range(1, 2):
            layers.append(Block(width, width))
        return nn.Sequential(*layers)

    def forward(self, x):
        return self.layer(x)


def _create(**kwargs):
    return Net(**kwargs)


def net_small(**kwargs):
    return _create(**kwargs)
"""


def test_library_builders_are_followed_deeper_than_user_helpers(tmp_path: Path) -> None:
    """A library's layers of builders (net_small -> _create -> Net -> _make_layer -> Block ->
    conv3x3) are inlined in full; a construction cut short by a bound is never memoised, so the
    same construction from a shallower call is built again (it gave an unknown ``conv``)."""
    main, libs = _setup(tmp_path)
    (Path(libs.paths[0]) / "fakelib" / "models.py").write_text(DEEP)
    main.write_text(
        "import torch\nfrom fakelib.models import Block, net_small\n\n"
        "x = torch.randn(2, 3, 16, 16)\n"
        "reveal_shape(net_small(width=4)(x))\n"
        "reveal_shape(Block(4, 4).conv(torch.randn(2, 4, 8, 8)))\n"
    )
    r = check_file(main, project=Project([main.parent], libs))
    assert [(d.span.line, d.message) for d in r.diagnostics] == [
        (5, "revealed shape: [2 4 16 16]"),
        (6, "revealed shape: [2 4 8 8]"),
    ]


CHECKED = """
import torch
import torch.nn as nn


class PatchEmbed(nn.Module):
    def __init__(self, img_size=32, patch=8, dim=16):
        super().__init__()
        self.img_size = img_size
        self.proj = nn.Conv2d(3, dim, patch, stride=patch)

    def forward(self, x):
        n, c, h, w = x.shape
        torch._assert(h == self.img_size, f"Wrong image height! Expected {self.img_size} but got {h}!")
        assert w == self.img_size, "Wrong image width"
        return self.proj(x).flatten(2).transpose(1, 2)
"""


def test_a_library_assert_of_the_callers_size_is_a_check(tmp_path: Path) -> None:
    """``torch._assert(h == self.img_size, ...)`` (and ``assert``) in a library, run with the user's
    sizes, is a check: reported at the user's call, raised inside the library; the path ends there."""
    main, libs = _setup(tmp_path)
    (Path(libs.paths[0]) / "fakelib" / "models.py").write_text(CHECKED)
    main.write_text(
        "import torch\nfrom fakelib.models import PatchEmbed\n\n"
        "embed = PatchEmbed()\n"
        "reveal_shape(embed(torch.randn(2, 3, 32, 32)))\n"
        "embed(torch.randn(2, 3, 24, 24))\n"
        "embed(torch.randn(2, 3, 32, 24))\n"
    )
    r = check_file(main, project=Project([main.parent], libs))
    notes = [(d.span.line, d.message) for d in r.diagnostics if d.code.id == "TS900"]
    assert notes == [(5, "revealed shape: [2 16 16]")]
    errors = [(d.span.line, d.code.id, d.message) for d in r.diagnostics if d.code.id != "TS900"]
    assert [e[:2] for e in errors] == [(6, "TS101"), (7, "TS101")]
    assert "24 vs 32" in errors[0][2] and "raised inside fakelib/models.py:14" in errors[0][2]
    assert "raised inside fakelib/models.py:15" in errors[1][2]


def test_star_import_search_reads_only_modules_that_can_export_the_name(tmp_path: Path) -> None:
    """A re-exporting ``__init__`` is searched for a name only in the modules whose star export can
    give it: not one that mentions it inside a longer name, nor one whose ``__all__`` leaves it out."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .a import *\nfrom .b import *\nfrom .c import *\n")
    (pkg / "a.py").write_text("class BertConfig:\n    width = 8\n")
    (pkg / "b.py").write_text('"""Like BertConfig."""\n__all__ = ["RoBertConfig"]\n\n\nclass RoBertConfig:\n    pass\n')
    (pkg / "c.py").write_text("class RoCBertConfig:\n    pass\n")
    (pkg / "d.py").write_text('__all__ = [\n    "BertConfig",\n]\nfrom .a import BertConfig\n')
    project = Project([tmp_path])
    assert project.may_define("pkg", "BertConfig")
    assert project.may_define("pkg.a", "BertConfig")
    assert not project.may_define("pkg.b", "BertConfig")
    assert not project.may_define("pkg.c", "BertConfig")
    assert project.may_define("pkg.d", "BertConfig")
    # Kept per project, the answers follow the roots: a package found only once a root is added.
    later = tmp_path / "later"
    (later / "extra").mkdir(parents=True)
    (later / "extra" / "__init__.py").write_text("class BertConfig:\n    pass\n")
    assert not project.may_define("extra", "BertConfig")
    (later / "main.py").write_text("from extra import BertConfig\n")
    assert not isinstance(project.load_path(later / "main.py"), str)
    assert project.may_define("extra", "BertConfig")


@pytest.mark.parametrize("init", ["from . import models\n", "from fakelib import (\n    models,\n)\n"])
def test_a_package_importing_its_own_submodule_gives_the_submodule(tmp_path: Path, init: str) -> None:
    """``from torchvision import models`` where ``torchvision/__init__`` itself does ``from torchvision
    import models``: the package has no ``models`` until that import binds the submodule."""
    main, libs = _setup(tmp_path)
    (tmp_path / "site-packages" / "fakelib" / "__init__.py").write_text(init)
    main.write_text(USER.replace("from fakelib.models import Net", "from fakelib import models\nNet = models.Net"))
    r = check_file(main, project=Project([main.parent], libs))
    msgs = [(d.span.line, d.message) for d in r.diagnostics]
    assert (7, "revealed shape: [2 8 16 16]") in msgs, msgs
    assert [d.span.line for d in r.diagnostics if d.code.id == "TS101"] == [8], msgs


def test_a_package_rebinding_its_submodule_name_is_not_the_submodule(tmp_path: Path) -> None:
    main, libs = _setup(tmp_path)
    init = "from . import models as _m\nmodels = None\nfrom fakelib import models\n"
    (tmp_path / "site-packages" / "fakelib" / "__init__.py").write_text(init)
    main.write_text(USER.replace("from fakelib.models import Net", "from fakelib import models\nNet = models.Net"))
    r = check_file(main, project=Project([main.parent], libs))
    assert [d for d in r.diagnostics if d.code.id == "TS101"] == []
    assert (7, "revealed shape: [2 8 16 16]") not in [(d.span.line, d.message) for d in r.diagnostics]


TV_INIT = """
from torchvision import datasets, models, transforms
from . import _internally_used

__all__ = ["datasets", "models", "transforms"]
"""

TV_USER = """
import torch
import torchvision
from torch.utils.data import DataLoader
from torchvision import datasets, transforms
from torchvision.datasets import CIFAR10

mnist = datasets.MNIST("data", train=False, download=True, transform=transforms.ToTensor())
for xb, yb in DataLoader(mnist, batch_size=50):
    reveal_shape(xb)
cifar = CIFAR10("data", train=False, transform=transforms.Compose([transforms.Resize(64), transforms.ToTensor()]))
reveal_shape(next(iter(DataLoader(cifar, batch_size=16)))[0])
fashion = torchvision.datasets.FashionMNIST("data", transform=torchvision.transforms.ToTensor())
reveal_shape(next(iter(DataLoader(fashion, batch_size=8)))[0])
"""


def test_stub_modelled_submodules_of_a_followed_package(tmp_path: Path) -> None:
    """torchvision installed (followed from source): ``from torchvision import datasets`` and
    ``torchvision.transforms.ToTensor`` are the stubs' models, not the package's bindings (which
    made every dataset and loader unknown when torchvision was installed).  torch: MNIST's test
    split batched by 50 is ``[50 1 28 28]`` (10,000 = 200 x 50), CIFAR-10 resized to 64 is
    ``[16 3 64 64]``, FashionMNIST ``[8 1 28 28]``."""
    site = tmp_path / "site-packages"
    tv = site / "torchvision"
    for sub in ("datasets", "models", "transforms"):
        (tv / sub).mkdir(parents=True)
        (tv / sub / "__init__.py").write_text("class MNIST:\n    pass\n" if sub == "datasets" else "")
    (tv / "__init__.py").write_text(TV_INIT)
    (tv / "_internally_used.py").write_text("")
    user = tmp_path / "proj"
    user.mkdir()
    (user / "main.py").write_text(TV_USER)
    project = Project([user], Libraries((str(site),)))
    r = check_file(user / "main.py", project=project)
    shown = {d.span.line: d.message for d in r.diagnostics if d.code.id == "TS900"}
    assert shown == {
        10: "revealed shape: [50 1 28 28]",
        12: "revealed shape: [16 3 64 64]",
        14: "revealed shape: [8 1 28 28]",
    }, r.diagnostics
    assert [d for d in r.diagnostics if d.code.id != "TS900"] == []
    assert project.unfollowed["torchvision.datasets"] == "modelled by stubs"
