"""The calls model code makes around its tensor ops (issue 15): ``torch.nn.init``, the eager-mode
predicates (``torch.jit.is_scripting()``), ``torch.is_tensor``, ``copy_``, ``view_as_real``,
``unique``, ``repeat_interleave``, written the way torchvision and timm write them.

Each case is checked against torch (see ``torch_cases``): every revealed shape agrees with torch's,
and a line marked ``# E: <code>`` is the line torch raises on.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tensorshape.infer import CheckSettings, check_file
from tensorshape.infer.project import Project

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from tensorshape import reveal_shape


"""

CASES = {
    "init_weights_loop_as_torchvision_writes_it": """
        class Net(nn.Module):
            def __init__(self, num_classes=10):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3, padding=1)
                self.bn = nn.BatchNorm2d(8)
                self.fc = nn.Linear(8, num_classes)
                for m in self.modules():
                    if isinstance(m, nn.Conv2d):
                        nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                        if m.bias is not None:
                            nn.init.zeros_(m.bias)
                    elif isinstance(m, nn.BatchNorm2d):
                        nn.init.constant_(m.weight, 1)
                        nn.init.constant_(m.bias, 0)
                    elif isinstance(m, nn.Linear):
                        nn.init.normal_(m.weight, 0, 0.01)
                        nn.init.zeros_(m.bias)

            def forward(self, x):
                x = F.relu(self.bn(self.conv(x)))
                return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))

        reveal_shape(Net()(torch.randn(2, 3, 8, 8)))
        """,
    "init_returns_its_tensor": """
        w = nn.init.trunc_normal_(torch.empty(16, 4), std=0.02)
        reveal_shape(w)
        reveal_shape(nn.init.xavier_uniform_(torch.empty(4, 3, 2, 2)))
        """,
    "kaiming_on_a_bias_is_an_error": """
        fc = nn.Linear(8, 4)
        nn.init.kaiming_uniform_(fc.weight, a=math.sqrt(5))
        nn.init.kaiming_uniform_(fc.bias, a=math.sqrt(5))  # E: TS103
        """,
    "xavier_on_a_bias_is_an_error": """
        fc = nn.Linear(8, 4)
        nn.init.xavier_uniform_(fc.bias)  # E: TS103
        """,
    "is_scripting_takes_the_eager_branch": """
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)

            def forward(self, x):
                if torch.jit.is_scripting() or torch.jit.is_tracing():
                    return x.view(3, 3, 3)
                return self.fc(x)

        reveal_shape(Block()(torch.randn(2, 8)))
        """,
    "is_tensor_by_value_kind": """
        def to_pair(x):
            if torch.is_tensor(x):
                return x
            return torch.full((2,), float(x))

        reveal_shape(to_pair(torch.zeros(3)))
        reveal_shape(to_pair(0.5))
        """,
    "copy_into_a_buffer": """
        buf = torch.zeros(4, 8)
        buf.copy_(torch.randn(8))
        reveal_shape(buf)
        """,
    "copy_of_a_wider_tensor_is_an_error": """
        buf = torch.zeros(8)
        buf.copy_(torch.randn(4, 8))  # E: TS102
        """,
    "view_as_real_of_a_spectrum": """
        spec = torch.zeros(2, 9, dtype=torch.complex64)
        reveal_shape(torch.view_as_real(spec))
        """,
    "view_as_real_of_a_real_tensor_is_an_error": """
        x = torch.randn(2, 16)
        torch.view_as_real(x)  # E: TS108
        """,
    "repeat_interleave_heads": """
        k = torch.randn(2, 2, 5, 4)
        reveal_shape(k.repeat_interleave(3, dim=1))
        reveal_shape(torch.repeat_interleave(k, 2))
        """,
    "same_padding_with_zero_pad_as_timm_writes_it": """
        class Conv2dSame(nn.Module):
            def __init__(self, cin, cout, k, stride):
                super().__init__()
                pad = max((stride - 1) + (k - 1) - 0, 0)
                self.pad = nn.ZeroPad2d((pad // 2, pad - pad // 2, pad // 2, pad - pad // 2))
                self.conv = nn.Conv2d(cin, cout, k, stride)

            def forward(self, x):
                return self.conv(self.pad(x))

        reveal_shape(Conv2dSame(3, 8, 3, 2)(torch.randn(2, 3, 15, 15)))
        reveal_shape(nn.ReflectionPad2d(1)(torch.randn(2, 3, 4, 4)))
        reveal_shape(nn.ConstantPad1d((0, 3), 0.0)(torch.randn(2, 5)))
        """,
    "reflection_pad_wider_than_the_image_is_an_error": """
        pad = nn.ReflectionPad2d(3)
        pad(torch.randn(1, 3, 3, 3))  # E: TS108
        """,
    "variance_scaling_reads_the_fans": """
        w = torch.empty(64, 32, 3, 3)
        fan_in, fan_out = nn.init._calculate_fan_in_and_fan_out(w)
        std = math.sqrt(1.0 / fan_in)
        reveal_shape(torch.zeros(fan_in, fan_out))
        nn.init.trunc_normal_(w, std=std / 0.87962566103423978)
        """,
    "fans_of_a_bias_are_an_error": """
        nn.init._calculate_fan_in_and_fan_out(torch.empty(10))  # E: TS103
        """,
    "bucketize_positions": """
        src = torch.linspace(0, 1, 7)
        pos = torch.rand(2, 5)
        idx = torch.bucketize(pos, src)
        reveal_shape(idx)
        reveal_shape(src[idx.clamp(max=6)])
        torch.bucketize(pos, torch.rand(2, 7))  # E: TS103
        """,
    "eager_predicates_of_torch_compiler": """
        x = torch.randn(2, 3)
        if torch.compiler.is_exporting() or torch.jit.is_scripting():
            x = x.view(6)
        reveal_shape(x)
        """,
    "devices_as_model_code_builds_them": """
        device = torch.device("cpu")
        x = torch.zeros(2, 3, device=device)
        if device.type == "cpu":
            x = x.t()
        reveal_shape(x)
        reveal_shape(torch.ones(4, device=torch.device(x.device)))
        torch.device("gpu")  # E: TS108
        """,
    "a_device_of_an_out_of_tree_backend_is_no_error": """
        try:
            import torch_npu  # noqa: F401  (Ascend's backend: registers the "npu" device type)

            device = torch.device("npu:0")
        except ImportError:
            device = torch.device("cpu")
        x = torch.zeros(2, 3, device=device)
        reveal_shape(x)
        try:
            import torch_mlu  # noqa: F401  (Cambricon's)

            x = x.to(torch.device("mlu"))
        except ImportError:
            pass
        reveal_shape(x)
        """,
    "foreach_adam_step": """
        params = [torch.zeros(4, 3), torch.zeros(4)]
        grads = [torch.randn(4, 3), torch.randn(4)]
        exp_avgs = [torch.zeros_like(p) for p in params]
        exp_avg_sqs = [torch.zeros_like(p) for p in params]
        torch._foreach_lerp_(exp_avgs, grads, 0.1)
        torch._foreach_mul_(exp_avg_sqs, 0.999)
        torch._foreach_addcmul_(exp_avg_sqs, grads, grads, 1 - 0.999)
        denom = torch._foreach_sqrt(exp_avg_sqs)
        torch._foreach_add_(denom, 1e-8)
        torch._foreach_addcdiv_(params, exp_avgs, denom, -1e-3)
        m = torch._foreach_maximum(denom, [torch.zeros(3), torch.zeros(1)])
        reveal_shape(m[0])
        reveal_shape(m[1])
        """,
    "foreach_lists_of_different_lengths_are_an_error": """
        params = [torch.zeros(4, 3), torch.zeros(4)]
        torch._foreach_mul_(params, [torch.zeros(4, 3)])  # E: TS108
        """,
    "foreach_in_place_must_keep_each_shape": """
        params = [torch.zeros(3), torch.zeros(4)]
        torch._foreach_add_(params, [torch.zeros(2, 3), torch.zeros(4)])  # E: TS102
        """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("eager_ops"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)


def _reveals(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "m.py"
    path.write_text(HEADER + body, encoding="utf-8")
    result = check_file(path, CheckSettings(), Project([tmp_path]))
    assert [d for d in result.diagnostics if d.code.id != "TS900"] == []
    return [d.message.removeprefix("revealed shape: ") for d in result.diagnostics if d.code.id == "TS900"]


def test_data_dependent_results_are_named_sizes(tmp_path: Path) -> None:
    """``unique`` and tensor repeats give sizes the data decides: fresh names, shared where torch
    shares them (the counts have the length of the values), never a guess."""
    got = _reveals(
        tmp_path,
        "labels = torch.randint(0, 5, (2, 7))\n"
        "values, inverse, counts = torch.unique(labels, return_inverse=True, return_counts=True)\n"
        "reveal_shape(values)\nreveal_shape(inverse)\nreveal_shape(counts)\n"
        "reveal_shape(labels.repeat_interleave(torch.tensor([1, 2]), dim=0))\n",
    )
    assert got[1] == "[2 7]"
    assert got[0] == got[2] and got[0] not in ("[...]", "[_]") and got[0].startswith("[unique")
    assert got[3].startswith("[repeated") and got[3].endswith(" 7]")


def test_get_default_dtype_is_a_dtype_of_unknown_name(tmp_path: Path) -> None:
    got = _reveals(
        tmp_path,
        "x = torch.zeros(3, dtype=torch.get_default_dtype())\nreveal_shape(x)\nreveal_shape(torch.finfo(x.dtype).eps * x)\n",
    )
    assert got[0] == "[3]"
