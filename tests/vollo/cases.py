"""Small models exercising every Vollo data-dimension rule, with the input each is compiled for.

Each case is the body of a module (``__init__`` lines and ``forward`` lines)
on an input ``x`` of the given shape (its data dim is its last axis, as the
compiler requires of model inputs).  The tests check each with tensorshape
(``--vollo``, with and without ``allow_dynamic_weights``) and, when the
compiler is installed, compile it for real.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    name: str
    init: str
    forward: str
    shape: tuple[int, ...]
    #: tensorshape's verdict: ok / dynamic (needs allow_dynamic_weights) / unsupported.
    expected: str

    def source(self) -> str:
        dims = " ".join(str(d) for d in self.shape)
        init = "\n".join("        " + line for line in self.init.strip().splitlines()) or "        pass"
        body = "\n".join("        " + line for line in self.forward.strip().splitlines())
        return (
            "import torch\nimport torch.nn as nn\nfrom jaxtyping import Float\nfrom torch import Tensor\n\n\n"
            "class Model(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            f"{init}\n\n"
            f'    def forward(self, x: Float[Tensor, "{dims}"]):\n'
            f"{body}\n"
        )


CASES = [
    # -- matmul with a constant side ---------------------------------------------------------------
    Case("linear", "self.fc = nn.Linear(16, 32)", "return self.fc(x)", (4, 16), "ok"),
    Case("linear_chain", "self.a = nn.Linear(16, 32)\nself.b = nn.Linear(32, 8)", "return self.b(torch.relu(self.a(x)))", (4, 16), "ok"),
    Case("linear_on_transposed", "self.fc = nn.Linear(4, 16)", "return self.fc(x.transpose(0, 1)).transpose(0, 1)", (4, 16), "dynamic"),
    Case("const_left_small", "self.w = nn.Parameter(torch.randn(8, 4))", "return self.w @ x", (4, 16), "ok"),
    Case("const_left_large", "self.w = nn.Parameter(torch.randn(64, 32))", "return self.w @ x", (32, 16), "dynamic"),
    Case("const_right_contracted", "self.w = nn.Parameter(torch.randn(16, 8))", "return x @ self.w", (4, 16), "ok"),
    # -- activation x activation ----------------------------------------------------------------------
    Case("act_act_unsupported", "self.fc = nn.Linear(16, 16)", "a = self.fc(x)\nreturn a.transpose(0, 1) @ a", (4, 16), "unsupported"),
    Case("act_act_contracted", "self.fc = nn.Linear(16, 16)", "a = self.fc(x)\nreturn a @ a.transpose(0, 1)", (4, 16), "dynamic"),
    Case("act_act_vector", "self.fc = nn.Linear(16, 16)", "a = self.fc(x)\nreturn a @ x[0]", (4, 16), "dynamic"),
    # -- pointwise, broadcasting, slicing ----------------------------------------------------------------
    Case("pointwise", "self.fc = nn.Linear(16, 16)", "return self.fc(x) * x + 1.0", (4, 16), "ok"),
    Case("pointwise_mismatch", "", "return x + x.transpose(0, 1)", (16, 16), "unsupported"),
    Case("broadcast_data", "", "return x.sum(-1, keepdim=True) + x", (4, 16), "ok"),
    Case("slice_data", "", "return x[:, :8]", (4, 16), "ok"),
    Case("slice_width1", "", "return x[:, 3:4]", (4, 16), "ok"),
    Case("index_data", "", "return x[:, 0:1].squeeze(1)", (4, 16), "unsupported"),
    Case("index_nondata", "", "return x[0]", (4, 16), "ok"),
    Case("unsqueeze", "", "return x.unsqueeze(0)", (4, 16), "ok"),
    # -- reductions -----------------------------------------------------------------------------------
    Case("reduce_keepdim", "", "return x.sum(-1, keepdim=True)", (4, 16), "ok"),
    Case("reduce_no_keepdim", "", "return x.sum(-1)", (4, 16), "unsupported"),
    Case("reduce_nondata", "", "return x.sum(0)", (4, 16), "ok"),
    Case("sum_function_keepdim", "", "return torch.sum(x, 1, keepdim=True) * 0.5", (4, 16), "ok"),
    Case("reduce_nondata_keepdim", "", "return x.sum(0, keepdim=True)", (4, 16), "ok"),
    # -- concatenation ----------------------------------------------------------------------------------
    Case("cat_data", "", "return torch.cat([x, x], dim=1)", (4, 16), "ok"),
    Case("cat_nondata", "", "return torch.cat([x, x], dim=0)", (4, 16), "ok"),
    Case("cat_mismatch", "", "return torch.cat([x, x.transpose(0, 1)], dim=0)", (16, 16), "unsupported"),
    Case("stack", "", "return torch.stack([x, x], dim=0)", (4, 16), "ok"),
    # -- transpose and reshape --------------------------------------------------------------------------
    Case("transpose_back", "", "return x.transpose(0, 1).transpose(0, 1)", (4, 16), "ok"),
    Case("output_not_last", "", "return x.transpose(0, 1)", (4, 16), "unsupported"),
    Case("reshape_split_nondata", "", "return x.reshape(2, 2, 16)", (4, 16), "ok"),
    Case("reshape_merge_nondata", "", "return x.reshape(2, 2, 16).reshape(4, 16)", (4, 16), "ok"),
    Case("reshape_split_data", "", "return x.reshape(4, 2, 8)", (4, 16), "ok"),
    Case("reshape_break_stride", "", "return x.transpose(0, 1).reshape(64).unsqueeze(0)", (4, 16), "unsupported"),
    Case("permute", "", "return x.unsqueeze(0).permute(1, 0, 2)", (4, 16), "ok"),
    Case("reshape_leftmost_candidate", "", "return x.reshape(4, 1, 16)", (4, 16), "ok"),
    Case("reshape_merge_into_data", "", "return x.reshape(2, 2, 16).transpose(1, 2).reshape(2, 32).reshape(2, 2, 16).transpose(1, 2)", (4, 16), "unsupported"),
    Case("transpose_3d", "", "return x.unsqueeze(0).transpose(0, 1).transpose(0, 1)", (4, 16), "ok"),
    Case("broadcast_nondata_const", "self.b = nn.Parameter(torch.randn(1, 16))", "return x + self.b", (4, 16), "ok"),
    Case("pointwise_const_full", "self.b = nn.Parameter(torch.randn(4, 16))", "return x * self.b", (4, 16), "ok"),
    Case("stack_data", "", "return torch.stack([x, x], dim=2).reshape(4, 32)", (4, 16), "unsupported"),
    Case("stack_data_keep", "", "return torch.stack([x, x], dim=2).sum(2)", (4, 16), "ok"),
    Case("act_act_opposite", "self.fc = nn.Linear(16, 16)", "a = self.fc(x)\nreturn (a.transpose(0, 1) @ a.transpose(0, 1).transpose(0, 1)).transpose(0, 1)", (16, 16), "unsupported"),
    Case("linear_3d", "self.fc = nn.Linear(16, 8)", "return self.fc(x)", (2, 4, 16), "ok"),
    # -- norms and convolution ---------------------------------------------------------------------------
    Case("layernorm", "self.ln = nn.LayerNorm(16)", "return self.ln(x)", (4, 16), "ok"),
    Case("layernorm_not_data", "self.ln = nn.LayerNorm(4)", "return self.ln(x.transpose(0, 1)).transpose(0, 1)", (4, 16), "unsupported"),
    Case("conv1d_channels", "self.conv = nn.Conv1d(16, 8, 3)", "return self.conv(x.transpose(0, 1).unsqueeze(0)).transpose(1, 2)", (10, 16), "ok"),
    Case("conv1d_wrong_axis", "self.conv = nn.Conv1d(4, 8, 3)", "return self.conv(x.unsqueeze(0))", (4, 16), "unsupported"),
]
