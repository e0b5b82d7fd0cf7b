"""``model.apply(fn)`` calls ``fn`` on each submodule the analysis knows, then on the model (issue 16):
the code in an initialiser such as DCGAN's ``weights_init`` is analysed with each module, its
``m.__class__.__name__`` tests decided by the module's class.  Checked against torch (``torch_cases``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tensorshape.infer import check_source

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import torch
import torch.nn as nn
from tensorshape import reveal_shape


"""

CASES = {
    "dcgan_weights_init": """
        def weights_init(m):
            classname = m.__class__.__name__
            if classname.find("Conv") != -1:
                torch.nn.init.normal_(m.weight, 0.0, 0.02)
            elif classname.find("BatchNorm") != -1:
                torch.nn.init.normal_(m.weight, 1.0, 0.02)
                torch.nn.init.zeros_(m.bias)


        class Discriminator(nn.Module):
            def __init__(self, nc, ndf):
                super().__init__()
                self.main = nn.Sequential(
                    nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
                    nn.LeakyReLU(0.2, inplace=True),
                    nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
                    nn.BatchNorm2d(ndf * 2),
                    nn.Sigmoid(),
                )

            def forward(self, input):
                return self.main(input)


        netD = Discriminator(3, 8)
        netD.apply(weights_init)
        reveal_shape(netD(torch.randn(2, 3, 16, 16)))
        """,
    "weights_init_decided_by_the_class_name": """
        def weights_init(m):
            classname = m.__class__.__name__
            if classname.find("Conv") != -1:
                m.weight.data.normal_(0.0, 0.02)
            elif classname.find("BatchNorm") != -1:
                m.weight.view(4, 3)  # E: TS106


        netG = nn.Sequential(
            nn.ConvTranspose2d(16, 32, 4, 1, 0, bias=False),
            nn.BatchNorm2d(32),
            nn.ReLU(True),
        )
        netG.apply(weights_init)
        """,
    "apply_reaches_project_submodules": """
        class Block(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.fc = nn.Linear(d, 2 * d)
                self.norm = nn.BatchNorm1d(2 * d)


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block(4)
                self.head = nn.Linear(8, 3)


        def init(m):
            if isinstance(m, nn.BatchNorm1d):
                m.weight.view(4, 3)  # E: TS106
            elif isinstance(m, nn.Linear):
                m.weight.view(-1, 4)


        Net().apply(init)
        """,
    "apply_skips_modules_a_tuple_holds": """
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = nn.Linear(8, 3)
                self.experts = nn.ModuleList([nn.Linear(8, 8), nn.Linear(8, 2)])
                # Not registered: torch's ``apply`` (and ``.eval()``) never reach these.
                self.pair = (nn.Linear(4, 4), nn.Linear(4, 4))
                self.table = {"extra": nn.Linear(5, 5)}


        def init(m):
            if isinstance(m, nn.Linear):
                m(torch.randn(2, 8))  # each registered layer takes 8 features; the tuple's and dict's do not


        Net().apply(init)
        """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("module_apply"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)


def test_the_class_name_of_a_layer_is_known() -> None:
    result = check_source(
        HEADER
        + "def kind(m):\n    return m.__class__.__name__\n\n\n"
        + "reveal_shape(torch.zeros(len(kind(nn.BatchNorm2d(4)))))\n"
        + "class Net(nn.Module):\n    pass\n\n\nreveal_shape(torch.zeros(len(Net().__class__.__name__)))\n"
    )
    assert [d.message for d in result.diagnostics if d.code.id == "TS900"] == [
        "revealed shape: [11]",
        "revealed shape: [3]",
    ]
