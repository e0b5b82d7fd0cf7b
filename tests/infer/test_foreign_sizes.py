"""Sizes another analysis named: a value one analysis takes from another (an instance the module's
run built, a call it memoised, a global it bound) keeps its sizes apart from the sizes this
analysis names itself.  Each analysis names its fresh sizes on its own (``n``, ``n'``...), so before,
``main``'s own analysis read the vocabulary an instance built in the module's run had counted as
``n`` and then named its own word count ``n`` too: ``[n n]`` where torch gives ``[4 8]``.  Torch is
the judge of each shape."""

from __future__ import annotations

import pytest
from tensorshape.infer import check_source

from tests.realistic.harness import classify

CACHED_INSTANCE = """\
import torch


class Vocab:
    def __init__(self, text):
        chars = sorted(set(text))
        self.stoi = {c: i for i, c in enumerate(chars)}
        self.size = len(chars)


def main():
    vocab = Vocab("hello world")
    ids = [vocab.stoi[c] for c in "held"]
    table = torch.zeros(len(ids), vocab.size)
    reveal_shape(table)
    return table


main()
"""

GLOBAL = """\
import torch

TEXT = "hello world"
VOCAB = len(sorted(set(TEXT)))


def main():
    words = sorted(set(TEXT.split("l")))
    table = torch.zeros(len(words), VOCAB)
    reveal_shape(table)
    return table


main()
"""

MEMOISED_CALL = """\
import torch


def vocab_table(text):
    chars = sorted(set(text))
    return torch.zeros(len(chars), 2)


def embedding_rows():
    return vocab_table("hello world").shape[0]


def main():
    words = sorted(set("hello world".split("l")))
    a = torch.zeros(len(words), 3)
    b = vocab_table("hello world")
    table = torch.zeros(a.shape[0], b.shape[0])
    reveal_shape(table)
    return table


embedding_rows()
main()
"""


def _truth(source: str) -> list[int]:
    ns: dict[str, object] = {"reveal_shape": lambda t: None}
    exec(compile(source.replace("\nmain()\n", "\n"), "<program>", "exec"), ns)
    return list(ns["main"]().shape)  # type: ignore[operator]


@pytest.mark.parametrize("source", [CACHED_INSTANCE, GLOBAL, MEMOISED_CALL], ids=["instance", "global", "memo"])
def test_a_size_from_another_analysis_is_not_read_as_this_ones(source: str) -> None:
    pytest.importorskip("torch")
    actual = _truth(source)
    assert actual == [4, 8]
    result = check_source(source)
    assert result.errors == []
    views = [
        v
        for d in result.diagnostics
        if d.code.id == "TS900"
        for v in d.message.split("revealed shape: ", 1)[1].split(" (with")[0].split("; ")
    ]
    assert views
    for v in views:
        assert classify(v, actual) != "wrong", f"{v} is not torch's {actual}"
        assert v.strip("[]").split()[0] != v.strip("[]").split()[1]
