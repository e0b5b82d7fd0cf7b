"""Data pipelines (``torch.utils.data``) against torch: samples, batches, the last batch
(see ``torch_cases.py`` for how a case is judged)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from tests.infer.torch_cases import assert_agrees_with_torch, write_cases

HEADER = """\
import torch
from torch.utils.data import DataLoader, Dataset, Subset, TensorDataset, random_split
from tensorshape import reveal_shape
"""

#: A dataset of windows of ``block`` ids, as many as ``__len__`` says fit (inputs and targets).
WINDOWS = """
class Windows(Dataset):
    def __init__(self, n, block):
        self.ids = torch.arange(n)
        self.block = block

    def __len__(self):
        return len(self.ids) - self.block

    def __getitem__(self, idx):
        return self.ids[idx : idx + self.block], self.ids[idx + 1 : idx + self.block + 1]
"""

CASES = {
    "tensor_dataset_batches": """
        x = torch.randn(40, 1, 28, 28)
        y = torch.randint(0, 10, (40,))
        loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
        for data, target in loader:
            reveal_shape(data)
            reveal_shape(target)
        print(len(loader))
    """,
    "drop_last_keeps_full_batches": """
        ds = TensorDataset(torch.randn(40, 3, 8, 8))
        for (data,) in DataLoader(ds, batch_size=16, drop_last=True):
            reveal_shape(data)
            flat = data.view(16, -1)
            reveal_shape(flat)
    """,
    "hard_coded_batch_size_fails_on_the_last_batch": """
        ds = TensorDataset(torch.randn(40, 1, 28, 28), torch.randint(0, 10, (40,)))
        loader = DataLoader(ds, batch_size=16)
        for data, target in loader:
            flat = data.view(16, 784)  # E: TS106
    """,
    "fewer_samples_than_a_batch_make_one_batch": """
        ds = TensorDataset(torch.randn(40, 3, 8, 8), torch.randint(0, 10, (40,)))
        for data, target in DataLoader(ds, batch_size=64):
            reveal_shape(data)
            reveal_shape(target)
            flat = data.view(64, 3 * 8 * 8)  # E: TS106
    """,
    "labels_from_tolist_collate_to_a_batch": """
        class Pictures(Dataset):
            def __init__(self, n):
                self.data = torch.rand(n, 3, 8, 8)
                self.targets = torch.randint(0, 10, (n,)).tolist()

            def __len__(self):
                return len(self.targets)

            def __getitem__(self, index):
                return self.data[index], self.targets[index]

        for images, targets in DataLoader(Pictures(12), batch_size=4):
            reveal_shape(images)
            reveal_shape(targets)
            reveal_shape(images.new_tensor(torch.rand(2, 3).tolist()))
    """,
    "no_automatic_batching": """
        ds = TensorDataset(torch.randn(10, 5), torch.randn(10))
        for a, b in DataLoader(ds, batch_size=None):
            reveal_shape(a)
            reveal_shape(b)
    """,
    "user_dataset_with_dict_samples": """
        class Pairs(Dataset):
            def __init__(self, n):
                self.n = n

            def __len__(self):
                return self.n

            def __getitem__(self, i):
                return {"image": torch.randn(3, 16, 16), "label": 1}

        loader = DataLoader(Pairs(12), batch_size=4)
        for batch in loader:
            reveal_shape(batch["image"])
            reveal_shape(batch["label"])
    """,
    "split_subset_len": """
        ds = TensorDataset(torch.randn(30, 7))
        train, val = random_split(ds, [20, 10])
        n = len(val)
        few = Subset(ds, [0, 1, 2])
        for (v,) in DataLoader(val, batch_size=5):
            reveal_shape(v)
        for (f,) in DataLoader(few, batch_size=2):
            reveal_shape(f)
    """,
    "next_iter_and_enumerate": """
        loader = DataLoader(TensorDataset(torch.randn(10, 4), torch.randn(10, 2)), batch_size=4)
        xb, yb = next(iter(loader))
        reveal_shape(xb)
        for i, (x, y) in enumerate(loader):
            reveal_shape(y)
            total = x.sum(1, keepdim=True) + y
    """,
    "tensor_dataset_size_mismatch": """
        ds = TensorDataset(torch.randn(40, 3), torch.randn(39))  # E: TS101
    """,
    # The generic analysis of ``run`` does not know the length: the warning; the program's own
    # sizes (10 samples in batches of 4) make it fail for sure: the error.
    "unknown_length_last_batch": """
        class Frames(Dataset):
            def __init__(self, n):
                self.n = n

            def __len__(self):
                return self.n

            def __getitem__(self, i):
                return torch.randn(3, 8, 8)

        def run(n: int, batch_size: int):
            loader = DataLoader(Frames(n), batch_size=batch_size, shuffle=True)
            for x in loader:
                reveal_shape(x)
                mask = torch.ones(batch_size, 3, 8, 8)
                y = x * mask  # E: TS102 TS120

        run(10, 4)
    """,
    "size_from_the_tensor_is_fine": """
        class Frames(Dataset):
            def __len__(self):
                return 10

            def __getitem__(self, i):
                return torch.randn(3, 8, 8)

        def run(batch_size: int):
            for x in DataLoader(Frames(), batch_size=batch_size):
                flat = x.view(x.size(0), -1)
                reveal_shape(flat)

        run(4)
    """,
    "collate_fn_is_handed_batch_size_samples": """
        class Fixed(Dataset):
            def __len__(self):
                return 10

            def __getitem__(self, i):
                return torch.randn(3), i


        def collate(batch):
            n = len(batch)
            xs, ys = zip(*batch)
            return torch.stack(xs), torch.tensor(ys), torch.zeros(n)


        for x, y, z in DataLoader(Fixed(), batch_size=4, collate_fn=collate):
            reveal_shape(x)
            reveal_shape(y)
            reveal_shape(z)
    """,
    "collate_fn_hard_coding_the_batch_size_fails_on_the_last_batch": """
        ds = TensorDataset(torch.randn(10, 3))


        def collate(batch):
            return torch.cat([row for (row,) in batch]).view(4, 3)  # E: TS106


        for x in DataLoader(ds, batch_size=4, collate_fn=collate):
            pass
    """,
    "sampling_tokens_with_multinomial": """
        logits = torch.randn(4, 10)
        probs = torch.softmax(logits, dim=-1)
        reveal_shape(torch.multinomial(probs, num_samples=1))
        reveal_shape(probs[0].multinomial(10))
        reveal_shape(torch.multinomial(probs, 12, replacement=True))
        torch.multinomial(probs, 11)  # E: TS107
    """,
    "comprehension_over_a_long_module_list_has_its_length": """
        import torch.nn as nn

        heads = nn.ModuleList([nn.Linear(4, 2) for _ in range(10)])
        x = torch.randn(5, 4)
        outs = [h(x) for h in heads]
        reveal_shape(torch.cat(outs, dim=1))
        reveal_shape(torch.stack(outs))
        n = len(outs)
        reveal_shape(torch.zeros(n))
    """,
    "windows_in_range_by_len": """
        import random

        class NextChar(Dataset):
            def __init__(self, corpus, block):
                alphabet = sorted(set(corpus))
                vocab = {c: n for n, c in enumerate(alphabet)}
                self.vocab_size = len(alphabet)
                self.ids = torch.tensor([vocab[c] for c in corpus])
                self.block = block

            def __len__(self):
                return len(self.ids) - self.block

            def __getitem__(self, idx):
                # inputs and targets are the same window shifted by one
                return self.ids[idx : idx + self.block], self.ids[idx + 1 : idx + self.block + 1]

        text = "".join(random.choice("abcdefgh") for _ in range(100))
        ds = NextChar(text, 16)
        for x, y in DataLoader(ds, batch_size=8, drop_last=True):
            reveal_shape(x)
            reveal_shape(torch.zeros(ds.vocab_size))
            reveal_shape(y)
    """,
    "range_of_len_indexes_below_len": WINDOWS
    + textwrap.dedent(
        """

        ds = Windows(100, 16)
        for i in range(len(ds)):
            x, y = ds[i]
            reveal_shape(x)
            reveal_shape(torch.stack([x, y]))
        for i in range(1, len(ds)):
            x, y = ds[i]
            reveal_shape(y)
    """
    ),
    "lists_appended_in_a_collate_loop": """
        import random
        import torch.nn as nn

        class Vocab:
            def __init__(self, texts, specials=("<unk>", "<pad>")):
                words = {w for t in texts for w in t.split()}
                self.itos = list(specials) + sorted(words)

            def __len__(self):
                return len(self.itos)

        class Lines(Dataset):
            def __init__(self, n):
                rng = random.Random(0)
                self.rows = [(rng.randrange(4), " ".join("ab"[:rng.randint(1, 2)] for _ in range(rng.randint(1, 5)))) for _ in range(n)]

            def __len__(self):
                return len(self.rows)

            def __getitem__(self, i):
                return self.rows[i]

        def collate(batch):
            labels, ids, offsets = [], [], [0]
            for label, text in batch:
                labels.append(label)
                tokens = torch.tensor([len(w) for w in text.split()])
                ids.append(tokens)
                offsets.append(tokens.size(0))
            labels = torch.tensor(labels)
            offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
            flat = torch.cat(ids)
            return labels, flat, offsets

        ds = Lines(10)
        vocab = Vocab(text for _, text in ds.rows)
        bag = nn.EmbeddingBag(len(vocab), 6)
        for labels, flat, offsets in DataLoader(ds, batch_size=4, collate_fn=collate):
            reveal_shape(labels)
            reveal_shape(offsets)
            out = bag(flat % len(vocab), offsets)
            reveal_shape(out)
            reveal_shape(out.argmax(1) == labels)
    """,
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_cases(tmp_path_factory.mktemp("data_pipelines"), HEADER, CASES)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str, files: dict[str, Path]) -> None:
    assert_agrees_with_torch(files[name], files)


def test_loader_and_dataset_are_described(files: dict[str, Path]) -> None:
    from tensorshape.infer import check_source

    src = HEADER + textwrap.dedent(
        """
        ds = TensorDataset(torch.randn(40, 1, 28, 28), torch.randint(0, 10, (40,)))
        reveal_shape(ds)
        reveal_shape(DataLoader(ds, batch_size=16))
        reveal_shape(DataLoader(ds, batch_size=8))
        """
    )
    notes = [d.message for d in check_source(src, "t.py").diagnostics if d.code.id == "TS900"]
    assert notes == [
        "revealed shape: dataset of ([1 28 28], []), 40 samples",
        "revealed shape: loader of ([16 1 28 28], [16]), last batch ([8 1 28 28], [8])",
        "revealed shape: loader of ([8 1 28 28], [8])",
    ]


def test_collated_lists_have_the_batch_size_and_padding_a_symbol() -> None:
    """The list a ``collate_fn`` is handed has ``batch_size`` samples (and the last batch's rows);
    what ``pad_sequence`` pads to is one size per call, and a cat over a ``ModuleList`` of ``n``
    repeated heads is ``n`` times as wide."""
    from tensorshape.infer import check_source

    src = HEADER + textwrap.dedent(
        """
        import torch.nn as nn
        from torch.nn.utils.rnn import pad_sequence

        class Sentences(Dataset):
            def __init__(self, lengths):
                self.items = [torch.zeros(int(n), 5) for n in lengths]

            def __len__(self):
                return len(self.items)

            def __getitem__(self, i):
                return self.items[i]

        def collate(batch):
            reveal_shape(len(batch))
            return pad_sequence(batch, batch_first=True)

        for x in DataLoader(Sentences(torch.tensor([3, 5, 2, 4, 1])), batch_size=2, collate_fn=collate):
            reveal_shape(x)

        def heads(n: int):
            hs = nn.ModuleList([nn.Linear(4, 8) for _ in range(n)])
            x = torch.randn(2, 4)
            reveal_shape(torch.cat([h(x) for h in hs], dim=1))
            reveal_shape(len(hs))
        """
    )
    notes = [d.message for d in check_source(src, "t.py").diagnostics if d.code.id == "TS900"]
    assert notes == [
        "revealed shape: int ?; int 2 (with a caller's sizes); int 1 (with a caller's sizes)",
        "revealed shape: [2 max_len 5]; [1 max_len' 5] (on the last batch: 5 samples in batches of 2 leave 1)",
        "revealed shape: [2 8*n]",
        "revealed shape: int n",
    ], notes


def test_torchvision_datasets_and_transforms() -> None:
    """Sample shapes of torchvision's datasets (their published image sizes) through transforms.

    The datasets need downloads, so their sizes are the published ones; the transforms are
    compared with torchvision itself in ``test_torchvision_transforms.py``."""
    from tensorshape.infer import check_source

    src = textwrap.dedent(
        """
        import torch
        from torchvision import datasets, transforms
        from torch.utils.data import DataLoader
        from tensorshape import reveal_shape

        mnist = datasets.MNIST("data", train=False, download=True, transform=transforms.ToTensor())
        reveal_shape(mnist)
        tf = transforms.Compose([transforms.Resize(64), transforms.CenterCrop(48), transforms.ToTensor(),
                                 transforms.Normalize((0.5,), (0.5,))])
        cifar = datasets.CIFAR10("data", transform=tf)
        reveal_shape(cifar)
        gray = datasets.CIFAR100("data", train=False, transform=transforms.Compose([transforms.Grayscale(), transforms.ToTensor()]))
        reveal_shape(gray)
        folder = datasets.ImageFolder("imgs", transform=transforms.Compose([transforms.RandomResizedCrop(224), transforms.ToTensor()]))
        for images, labels in DataLoader(folder, batch_size=32, drop_last=True):
            reveal_shape(images)
        """
    )
    notes = [
        d.message.removeprefix("revealed shape: ")
        for d in check_source(src, "t.py").diagnostics
        if d.code.id == "TS900"
    ]
    assert notes == [
        "dataset of ([1 28 28], int ?), 10000 samples",
        "dataset of ([3 48 48], int ?), 50000 samples",
        "dataset of ([1 32 32], int ?), 10000 samples",
        "[32 3 224 224]",
    ]


def test_a_window_is_its_width_only_where_len_proves_it_in_range() -> None:
    """A ``DataLoader`` draws each index from ``range(len(dataset))``: inside ``__getitem__``
    ``0 <= idx`` and ``idx + 1 <= len`` hold, so ``data[idx : idx + k]`` has ``k`` items when
    ``__len__`` leaves room for it.  Where it does not (``__len__`` is the whole corpus), Python's
    slicing clamps the last windows (torch's collate then raises on the ragged batch), and the
    window's length is the clamped one, also with exact bounds."""
    from tensorshape.infer import CheckSettings, check_source
    from tensorshape.rules.context import Options

    src = HEADER + textwrap.dedent(
        """
        class Windows(Dataset):
            def __init__(self, n, k, room):
                self.data = torch.zeros(n)
                self.k = k
                self.room = room

            def __len__(self):
                return len(self.data) - self.k if self.room else len(self.data)

            def __getitem__(self, idx):
                w = self.data[idx : idx + self.k]
                return w

        def main(n: int, k: int):
            for x in DataLoader(Windows(n, k, True), batch_size=4, drop_last=True):
                reveal_shape(x)
            for y in DataLoader(Windows(n, k, False), batch_size=4, drop_last=True):
                reveal_shape(y)
        """
    )
    for exact in (False, True):
        result = check_source(src, "t.py", CheckSettings(options=Options(exact_bounds=exact)))
        notes = [d.message for d in result.diagnostics if d.code.id == "TS900"]
        assert notes[0] == "revealed shape: [4 k]", notes
        assert notes[1].startswith("revealed shape: [4 max(0,") and "min(n," in notes[1], notes
        assert not result.errors


def test_a_list_gets_the_loop_count_only_when_every_pass_appends() -> None:
    """A loop that may ``break`` (or skip with ``continue``, or append only under a condition) gives
    its list no count: ``torch.stack`` of it has an unknown first dim, where the unconditional loop
    gives the iteration count, and a cat of items that differ per iteration is some size, not
    ``count`` times one."""
    from tensorshape.infer import check_source

    src = HEADER + textwrap.dedent(
        """
        def rows(x, limit, stop: bool):
            kept, every, some = [], [], []
            for r in x:
                every.append(r)
                if r.sum() > limit:
                    some.append(r)
            reveal_shape(torch.stack(every))
            reveal_shape(torch.stack(some))
            for r in x:
                if stop:
                    break
                kept.append(r)
            reveal_shape(torch.stack(kept))
            pieces = []
            for n in range(1, 40):
                pieces.append(torch.zeros(n))
            reveal_shape(torch.cat(pieces))

        rows(torch.ones(5, 3), 10.0, False)

        class Vocab:
            def __init__(self, texts, specials=("<unk>", "<pad>")):
                self.itos = list(specials) + sorted({w for t in texts for w in t.split()})

            def __len__(self):
                return len(self.itos)

        reveal_shape(torch.nn.EmbeddingBag(len(Vocab(["a b", "b c"])), 6).weight)
        """
    )
    notes = [d.message for d in check_source(src, "t.py").diagnostics if d.code.id == "TS900"]
    assert notes[0] == "revealed shape: [? ...]; [5 3] (with a caller's sizes)", notes
    assert notes[1] == "revealed shape: [? ...]; [? 3] (with a caller's sizes)", notes
    # The caller's ``stop`` is False and its 5 rows are a known count: the loop over them is
    # unrolled and never breaks (torch: ``[5 3]``); the generic analysis gives no count.
    assert notes[2] == "revealed shape: [? ...]; [5 3] (with a caller's sizes)", notes
    # 39 pieces of sizes 1 to 39: some size (780), not 39 times the joined piece's.
    assert re.fullmatch(r"revealed shape: \[n'*\]", notes[3]), notes
    # ``len(vocab)`` is what ``__len__`` returns: the specials and the sorted words, one size.
    assert re.fullmatch(r"revealed shape: \[n'*\+2 6\]", notes[4]), notes


def test_range_past_len_keeps_the_clamped_window() -> None:
    """``for i in range(len(ds) + 1)`` reaches one index past ``__len__``: there the window is short,
    so its length stays Python's clamped one (the facts of ``range`` are ``0 <= i < len(ds) + 1``)."""
    from tensorshape.infer import check_source

    src = (
        HEADER
        + WINDOWS
        + textwrap.dedent(
            """
        ds = Windows(100, 16)
        for i in range(len(ds)):
            reveal_shape(ds[i][1])
        for i in range(len(ds) + 1):
            reveal_shape(ds[i][1])
        """
        )
    )
    notes = [d.message for d in check_source(src, "t.py").diagnostics if d.code.id == "TS900"]
    assert notes[0] == "revealed shape: [16]", notes
    assert notes[1] != "revealed shape: [16]" and "min" in notes[1], notes


def test_a_dataset_an_option_sizes_below_a_batch_gives_a_batch_of_its_own_size() -> None:
    """``--n-images 40`` images in batches of 64: with the default, torch yields one batch of 40 (not a
    full batch of 64 and a last one); for other values, ``min(n, 64)`` rows, a size of its own."""
    from tensorshape.infer import check_source

    src = textwrap.dedent(
        """
        import argparse
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        from tensorshape import reveal_shape

        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument("--n-images", type=int, default=40)
            parser.add_argument("--batch-size", type=int, default=16)
            args = parser.parse_args()
            images = torch.rand(args.n_images, 3)
            for (x,) in DataLoader(TensorDataset(images), batch_size=64):
                reveal_shape(x)
            for (x,) in DataLoader(TensorDataset(images), batch_size=args.batch_size):
                reveal_shape(x)

        if __name__ == "__main__":
            main()
        """
    )
    notes = [d.message for d in check_source(src, "t.py").diagnostics if d.code.id == "TS900"]
    assert notes[0] == "revealed shape: [batch 3]"
    assert notes[1].startswith("revealed shape: [batch_size 3]; [last_batch 3] (on the last batch")


def test_a_mask_built_for_the_batch_size_warns_of_the_last_batch() -> None:
    """SimCLR's NT-Xent mask built from ``--batch_size``: ``masked_fill`` raises on the last batch
    (torch: "The size of tensor a (32) must match the size of tensor b (16)" with 40 images in
    batches of 16), a ``last-batch`` warning where the sizes are options."""
    from tensorshape.infer import check_source

    src = textwrap.dedent(
        """
        import argparse
        import torch
        from torch.utils.data import DataLoader, TensorDataset

        def nt_xent_mask(z, batch_size):
            sim = z @ z.T
            mask = torch.eye(2 * batch_size, dtype=torch.bool)
            return sim.masked_fill(mask, float("-inf"))

        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument("--batch_size", type=int, default=16)
            parser.add_argument("--n_images", type=int, default=40)
            args = parser.parse_args()
            for (x,) in DataLoader(TensorDataset(torch.rand(args.n_images, 8)), batch_size=args.batch_size):
                nt_xent_mask(torch.cat([x, x]), args.batch_size)

        if __name__ == "__main__":
            main()
        """
    )
    found = [(d.span.line, d.code.id) for d in check_source(src, "t.py").diagnostics]
    assert found == [(9, "TS120")]
