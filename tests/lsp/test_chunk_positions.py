"""A chunk places only the nodes asked for, and places them where libcst's whole-chunk positions do."""

from __future__ import annotations

from pathlib import Path

import pytest
from libcst.metadata import MetadataWrapper, PositionProvider
from tensorshape.infer.api import CheckSettings
from tensorshape.infer.project import Project
from tensorshape.lsp.analysis import assignment_targets, lsp_settings
from tensorshape.lsp.chunks import MAX_PARTIAL_PASSES, ChunkPool
from tensorshape.lsp.incremental import IncrementalAnalyser

from tests.infer.test_spans import _code_nodes

ROOT = Path(__file__).resolve().parents[2]
FILES = [
    *sorted((ROOT / "examples").glob("*.py"))[:6],
    *sorted((ROOT / "benchmarks" / "annotated_models").glob("*.py")),
]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_positions_of_some_nodes_equal_the_whole_chunks(path: Path) -> None:
    _, chunks = ChunkPool().chunks(path.read_text(encoding="utf-8"))
    for chunk in chunks:
        if chunk.tree is None:
            continue
        whole = MetadataWrapper(chunk.tree, unsafe_skip_copy=True).resolve(PositionProvider)
        nodes = _code_nodes(chunk.tree)[1:]  # the module itself is placed by the whole positions
        chunk.want(nodes)  # all placed in one partial pass, from the first one asked for
        for node in nodes:
            assert chunk.position(node) == whole[node]
        assert chunk._positions is None or len(chunk.tree.body) != 1
        # The targets (for hover) are found by a read-only walk: the same as the visitor's.
        assert dict(chunk.targets) == assignment_targets(chunk.tree)


def test_a_first_hover_places_only_the_observed_expressions() -> None:
    # One module of three files: Python refuses a ``from __future__`` import after the first file's code.
    texts = [p.read_text(encoding="utf-8") for p in FILES[-3:]]
    source = texts[0] + "".join(t.replace("from __future__ import annotations\n", "") for t in texts[1:])
    inc = IncrementalAnalyser(Project(), lsp_settings(CheckSettings()), "m.py")
    analysis = inc.update(source, 1)
    assert analysis.shapes
    _, current = inc._pool.chunks(source)  # the analyser's chunks (reused: the text is the same)
    # Every chunk of one statement placed its nodes in a few partial passes, never all of its nodes.
    assert all(c._passes <= MAX_PARTIAL_PASSES for c in current)
    assert any(c._found for c in current)
    assert not [c for c in current if c._positions is not None and c.tree and len(c.tree.body) == 1]
