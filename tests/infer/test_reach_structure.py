"""Inference reach through the structure real models have (issue 15): containers, helpers and
options that carried the shape away before.

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
from tensorshape import reveal_shape


"""

CASES = {
    "module_dict_attributes": """
        class GPT(nn.Module):
            def __init__(self, vocab, d, n_layer):
                super().__init__()
                self.transformer = nn.ModuleDict(
                    dict(
                        wte=nn.Embedding(vocab, d),
                        h=nn.ModuleList([nn.Linear(d, d) for _ in range(n_layer)]),
                        ln_f=nn.LayerNorm(d),
                    )
                )
                self.lm_head = nn.Linear(d, vocab, bias=False)

            def forward(self, idx):
                x = self.transformer.wte(idx)
                for block in self.transformer.h:
                    x = block(x)
                x = self.transformer["ln_f"](x)
                return self.lm_head(x)


        reveal_shape(GPT(11, 8, 2)(torch.zeros(2, 5, dtype=torch.long)))
        """,
    "module_dict_filled_and_iterated": """
        class Heads(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.ModuleDict({"x": nn.Linear(4, 8)})
                self.heads = nn.ModuleDict()
                self.heads["a"] = nn.Linear(8, 3)
                self.heads["b"] = nn.Linear(8, 5)

            def forward(self, x):
                h = self.enc["x"](x)
                outs = [head(h) for name, head in self.heads.items()]
                outs += [self.heads[name](h) for name in self.heads]
                return outs + [dict(a=self.enc, b=self.heads["b"]).get("b")(h)]


        a, b, a2, b2, b3 = Heads()(torch.randn(2, 4))
        reveal_shape(a)
        reveal_shape(b)
        reveal_shape(a2)
        reveal_shape(b2)
        reveal_shape(b3)
        """,
    "module_dict_wrong_width": """
        class Net(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.layers = nn.ModuleDict(dict(up=nn.Linear(d, 4 * d), down=nn.Linear(d, d)))

            def forward(self, x):
                x = self.layers.up(x)
                return self.layers.down(x)  # E: TS101


        Net(8)(torch.randn(2, 8))
        """,
    "lstm_state_of_unknown_rank_input_bidirectional_head": """
        class Classifier(nn.Module):
            def __init__(self, vocab_size, embed_dim=32, hidden_dim=24):
                super().__init__()
                self.embedding = nn.Embedding(vocab_size, embed_dim)
                self.lstm = nn.LSTM(embed_dim, hidden_dim, num_layers=2, batch_first=True, bidirectional=True)
                self.fc = nn.Linear(hidden_dim, 2)

            def forward(self, text):
                output, (hidden, cell) = self.lstm(self.embedding(text))
                hidden = torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1)
                return self.fc(hidden)  # E: TS101


        def batches():
            yield torch.zeros(4, 7, dtype=torch.long)


        model = Classifier(50)
        for text in batches():
            model(text)
        """,
    "collate_zip_and_pad_sequence": """
        from torch.nn.utils.rnn import pad_sequence


        def collate(batch):
            seqs, labels = zip(*batch)
            return pad_sequence(seqs, batch_first=True), torch.tensor(labels)


        x, y = collate([(torch.zeros(3, dtype=torch.long), 1), (torch.zeros(5, dtype=torch.long), 0)])
        reveal_shape(x)
        reveal_shape(y)
        reveal_shape(pad_sequence([torch.zeros(3, 4), torch.zeros(6, 4)]))
        """,
    "collate_of_unknown_length_pad_sequence_width": """
        import sys
        from torch.nn.utils.rnn import pad_sequence

        samples = [(torch.zeros(4, 3), 1) for _ in range(len(sys.argv) + 1)]
        seqs, labels = zip(*samples)
        x = pad_sequence(seqs, batch_first=True)
        x @ torch.zeros(4, 2)  # E: TS101
        """,
    "main_after_a_module_level_try_sees_later_functions": """
        try:
            from einops.layers.torch import Rearrange
        except ImportError:
            Rearrange = None


        def pair(t):
            return t if isinstance(t, tuple) else (t, t)


        class Patches(nn.Module):
            def __init__(self, *, patch_size, channels=3, dim=16):
                super().__init__()
                ph, pw = pair(patch_size)
                self.embed = nn.Sequential(
                    Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=ph, p2=pw),
                    nn.Linear(channels * ph * pw, dim),
                )
                self.pos = nn.Parameter(torch.randn(1, 4, dim))

            def forward(self, img):
                x = self.embed(img)
                n = x.shape[1]
                x += self.pos[:, : (n + 1)]  # E: TS102
                return x


        def main():
            reveal_shape(torch.zeros(pair(8)))
            reveal_shape(torch.zeros(pair((2, 3))))
            Patches(patch_size=4)(torch.randn(2, 3, 12, 12))


        if __name__ == "__main__":
            main()
        """,
    "map_a_lambda_over_chunks": """
        qkv = torch.randn(2, 5, 24).chunk(3, dim=-1)
        heads = 4
        q, k, v = map(lambda t: t.view(2, 5, heads, 2).transpose(1, 2), qkv)
        reveal_shape(q)
        reveal_shape((lambda a, b: a @ b)(q, k.transpose(-1, -2)))
        reveal_shape(list(map(lambda t: t.sum(-1), [q, v]))[1])
        """,
    "lambda_body_error_on_its_line": """
        split = lambda t: t.view(2, 5, 3, 2)  # E: TS106
        split(torch.randn(2, 5, 8))
        """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("reach_structure"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)
