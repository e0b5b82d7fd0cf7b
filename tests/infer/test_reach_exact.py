"""Inference reach, exactness (issue 15): sizes that real programs carry in data structures the
analysis dropped before (vocabularies, collate functions), and facts that constructed layers imply.

Each case is user-style code checked against torch (see ``torch_cases``): every revealed shape
agrees with torch's, and a line marked ``# E: <code>`` is the line torch raises on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset
from tensorshape import reveal_shape


"""

CASES = {
    "vocab_setdefault_then_get_in_a_comprehension": """
        vocab = {"<pad>": 0, "<unk>": 1}
        for text in ["a b c", "b c d e"]:
            for word in text.split():
                vocab.setdefault(word, len(vocab))
        ids = torch.tensor([vocab.get(w, 1) for w in "a b x".split()], dtype=torch.long)
        reveal_shape(ids)
        reveal_shape(nn.Embedding(len(vocab), 8)(ids))
        """,
    "vocab_filled_by_item_assignment": """
        def build(texts):
            vocab = {}
            for text in texts:
                for word in text.split():
                    if word not in vocab:
                        vocab[word] = len(vocab)
            return vocab


        vocab = build(["a b", "c a d"])
        ids = torch.tensor([vocab[w] for w in "a d".split()])
        reveal_shape(ids)
        reveal_shape(ids.unsqueeze(0))
        """,
    "collate_function_gets_the_batch_size": """
        class Texts(Dataset):
            def __init__(self, n):
                self.n = n

            def __len__(self):
                return self.n

            def __getitem__(self, i):
                return torch.ones(3 + i % 4, dtype=torch.long), i % 2


        def collate(batch):
            seqs, labels = zip(*batch)
            return pad_sequence(seqs, batch_first=True), torch.tensor(labels)


        for x, y in DataLoader(Texts(10), batch_size=4, collate_fn=collate):
            reveal_shape(x)
            reveal_shape(y)
            reveal_shape(nn.Embedding(9, 5)(x))
        """,
    "collate_function_stacks_its_batch": """
        def collate(batch):
            xs = torch.stack([x for x, _ in batch])
            return xs, len(batch)


        class Rows(Dataset):
            def __len__(self):
                return 5

            def __getitem__(self, i):
                return torch.randn(6), i


        for xs, n in DataLoader(Rows(), batch_size=2, collate_fn=collate):
            reveal_shape(xs)
            reveal_shape(torch.zeros(n, 1))
        """,
    "register_buffer_sets_the_attribute": """
        class Head(nn.Module):
            def __init__(self, n_embd, head_size, block_size):
                super().__init__()
                self.key = nn.Linear(n_embd, head_size, bias=False)
                self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
                self.register_parameter("scale", nn.Parameter(torch.ones(head_size)))

            def forward(self, x):
                B, T, C = x.shape
                k = self.key(x) * self.scale
                wei = k @ k.transpose(-2, -1)
                return wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))  # E: TS102


        head = Head(8, 4, 16)
        reveal_shape(head.tril)
        reveal_shape(head.scale)
        reveal_shape(head(torch.randn(2, 5, 8)))
        head(torch.randn(2, 17, 8))
        """,
    "registered_buffer_of_the_wrong_size": """
        class Pos(nn.Module):
            def __init__(self, n, d):
                super().__init__()
                self.register_buffer("pe", torch.zeros(1, n, d))

            def forward(self, x):
                return x + self.pe  # E: TS102


        Pos(10, 8)(torch.randn(2, 12, 8))
        """,
    "calls_four_deep_keep_the_shape": """
        class Head(nn.Module):
            def __init__(self, d, hs):
                super().__init__()
                self.q = nn.Linear(d, hs)

            def forward(self, x):
                return self.q(x).softmax(-1)


        class Heads(nn.Module):
            def __init__(self, d, n):
                super().__init__()
                self.heads = nn.ModuleList([Head(d, d // n) for _ in range(n)])

            def forward(self, x):
                return torch.cat([h(x) for h in self.heads], dim=-1)


        class Block(nn.Module):
            def __init__(self, d, n):
                super().__init__()
                self.sa = Heads(d, n)

            def forward(self, x):
                return x + self.sa(x)


        class Model(nn.Module):
            def __init__(self, d, n, depth):
                super().__init__()
                self.blocks = nn.Sequential(*[Block(d, n) for _ in range(depth)])

            def forward(self, x):
                return self.blocks(x)


        def main():
            out = Model(12, 3, 2)(torch.randn(2, 5, 12))
            reveal_shape(out)


        main()
        """,
    "conv_that_ran_proves_its_width_at_least_one": """
        class Net(nn.Module):
            def __init__(self, width):
                super().__init__()
                self.conv = nn.Conv2d(3, width, 3, padding=1)
                self.wide = nn.Conv2d(width, 4 * width, 1)
                self.fc = nn.Linear(2 * width, 10)

            def forward(self, x):
                x = self.wide(self.conv(x)).mean((2, 3))
                return self.fc(x)  # E: TS101


        Net(4)(torch.randn(2, 3, 8, 8))
        """,
    "without_a_conv_a_width_may_be_zero": """
        def head(x, width):
            x = nn.Linear(x.shape[-1], 4 * width)(x)
            return nn.Linear(2 * width, 3)(x)


        reveal_shape(head(torch.randn(2, 5), 0))
        """,
    "registry_with_computed_keys_stays_unknown": """
        REG = {}
        for name, fn in [("relu", torch.relu), ("tanh", torch.tanh)]:
            REG[name] = fn
        reveal_shape(torch.zeros(2, 3))
        y = REG["relu"](torch.zeros(2, 3))
        """,
    "a_subclass_of_a_torch_layer_runs_the_layer_it_built": """
        class CausalConv1d(nn.Conv1d):
            def __init__(self, in_channels, out_channels, kernel_size, dilation=1):
                self.__padding = (kernel_size - 1) * dilation
                super(CausalConv1d, self).__init__(
                    in_channels, out_channels, kernel_size, padding=self.__padding, dilation=dilation
                )

            def forward(self, x):
                result = super(CausalConv1d, self).forward(x)
                return result[:, :, : -self.__padding], torch.zeros(x.shape[0], self.out_channels)


        y, z = CausalConv1d(4, 8, 3, dilation=2)(torch.randn(2, 4, 10))
        reveal_shape(y)
        reveal_shape(z)


        class Wide(nn.Linear):
            pass


        reveal_shape(Wide(4, 6)(torch.randn(3, 4)))
        """,
    "a_subclass_of_a_torch_layer_checks_its_input": """
        class CausalConv1d(nn.Conv1d):
            def __init__(self, in_channels, out_channels, kernel_size):
                super().__init__(in_channels, out_channels, kernel_size, padding=kernel_size - 1)

            def forward(self, x):
                return super().forward(x)[:, :, : 1 - self.kernel_size[0]]  # E: TS101


        CausalConv1d(4, 8, 3)(torch.randn(2, 5, 10))
        """,
    "a_value_that_produced_an_error_does_not_report_it_again": """
        class Block(nn.Module):
            def __init__(self, channels, skip):
                super().__init__()
                self.conv = nn.Conv1d(channels, channels, 1)
                self.res = nn.Conv1d(channels, skip, 1)

            def forward(self, x):
                out = self.conv(x)
                return self.res(out) + x  # E: TS102


        blocks = nn.ModuleList([Block(16, 32) for _ in range(3)])
        x = torch.randn(2, 16, 5)
        for b in blocks:
            x = b(x)
        """,
    "a_tensor_from_numpy_has_the_shape_view_asks_for": """
        import numpy as np

        k, batch = 3, 4
        iden = torch.from_numpy(np.eye(k).flatten().astype(np.float32)).view(1, k * k).repeat(batch, 1)
        reveal_shape(iden)
        reveal_shape(iden.view(-1, k, k))
        """,
    "meshgrid_gives_one_grid_per_input": """
        ws = 4
        coords = torch.stack(torch.meshgrid(torch.arange(ws), torch.arange(ws + 1), indexing="ij"))
        reveal_shape(coords)
        gx, gy = torch.meshgrid([torch.arange(3), torch.arange(5)], indexing="xy")
        reveal_shape(gx)
        a, b, c = torch.meshgrid(torch.zeros(2), torch.tensor(1.0), torch.zeros(3), indexing="ij")
        reveal_shape(c)
        flat = torch.flatten(coords, 1)
        relative = (flat[:, :, None] - flat[:, None, :]).permute(1, 2, 0)
        reveal_shape(relative.sum(-1).view(-1))
        """,
    "a_conv_built_with_a_zero_width_is_an_error": """
        class Head(nn.Module):
            def __init__(self, width: int = 0):
                super().__init__()
                self.conv = nn.Conv2d(3, width, 1)

            def forward(self, x):
                return self.conv(x)  # E: TS108


        Head()(torch.randn(1, 3, 4, 4))
        """,
    "meshgrid_of_a_matrix_is_an_error": """
        grid = torch.meshgrid(torch.zeros(2, 3), torch.zeros(4), indexing="ij")  # E: TS103
        """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("reach_exact"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)


def test_views_beyond_the_cap_are_joined_and_counted(tmp_path: Path) -> None:
    """A body run with more callers' sizes than the cap shows the cap's number of views one by one
    and joins the other two, keeping the dims they agree on; ``--statistics`` counts the two."""
    from tensorshape.infer import CheckSettings, check_file
    from tensorshape.infer.api import MAX_CALLER_VIEWS, join_views
    from tensorshape.infer.project import Project

    path = tmp_path / "views.py"
    path.write_text(
        HEADER
        + "def up(x):\n"
        + "    y = torch.cat([x, x], dim=1)\n"
        + "    reveal_shape(y)\n"
        + "    return y\n\n\n"
        + "".join(f"up(torch.zeros(2, {c}, 4, 3))\n" for c in range(1, MAX_CALLER_VIEWS + 1))
        + "up(torch.zeros(2, 64, 8, 3))\nup(torch.zeros(2, 64, 16, 3))\n",
        encoding="utf-8",
    )
    result = check_file(path, CheckSettings(), Project([tmp_path]))
    (note,) = [d.message for d in result.diagnostics if d.code.id == "TS900"]
    views = note.removeprefix("revealed shape: ").split("; ")
    assert len(views) == 1 + MAX_CALLER_VIEWS + 1, views
    assert views[-1] == "[2 128 ? 3] (with a caller's sizes) (2 views joined)"
    assert result.stats["reveal-views-joined"] == 2
    assert join_views(["[2 4] (with a caller's sizes)", "[2 4 1] (with a caller's sizes)"]).startswith("[...]")
    assert join_views(["[2 4] (with a caller's sizes)"]) == "[2 4] (with a caller's sizes)"
