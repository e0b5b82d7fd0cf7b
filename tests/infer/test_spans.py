"""Spans computed piecewise (per top-level statement, per class member) equal libcst's whole-module positions."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider
from tensorshape.infer.api import CheckSettings, check_source
from tensorshape.infer.spans import SpanTable, first_lines, node_position, nodes_positions
from tensorshape.infer.syntax import code_children
from tensorshape.model.diagnostics import Span

ROOT = Path(__file__).resolve().parents[2]

TRICKY = '''\
import torch  # a comment
x = 1; y = 2


@decorator(
    arg,
)
# a comment between the decorator and the class
class A(Base, metaclass=Meta):
    """Doc."""

    n: int = 3; m = 4

    # leading comment
    @staticmethod
    def f(a: "b c", *args, k=lambda q: q + 1, **kw) -> int:
        return a + \\
            k(a)

    class Inner:
        def g(self):
            return [i for i in range(3)]
    def h(self): return self.n
  # an odd comment
    if x:
        z = 1
    else:
        z = (
            2
        )

class B: pass

class C:
\tdef t(self):
\t\treturn 1
'''


def _code_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        out.append(n)
        todo.extend(code_children(n))
    return out


def _assert_at(got: Span, want: CodeRange, node: cst.CSTNode) -> None:
    assert (got.line, got.column, got.end_line, got.end_column) == (
        want.start.line,
        want.start.column,
        want.end.line,
        want.end.column,
    ), type(node).__name__


def _sources() -> list[tuple[str, str]]:
    files = sorted((ROOT / "benchmarks" / "annotated_models").glob("*.py"))
    files += sorted((ROOT / "tests" / "realistic" / "programs").glob("*.py"))[:4]
    return [("tricky", TRICKY)] + [(p.name, p.read_text()) for p in files]


@pytest.mark.parametrize("name, source", _sources(), ids=[n for n, _ in _sources()])
@pytest.mark.parametrize("members_first", [True, False])
def test_piecewise_positions_equal_whole_module_positions(name: str, source: str, members_first: bool) -> None:
    module = cst.parse_module(source)
    whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    table = SpanTable(module, source)
    tickets: list[tuple[Span, cst.CSTNode]] = []
    for k, stmt in enumerate(module.body):
        table.at_statement = k
        nodes = _code_nodes(stmt)
        if members_first and isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
            # a class's members before its own nodes (whose position needs the whole class)
            inside = [n for member in stmt.body.body for n in _code_nodes(member)]
            seen = set(map(id, inside))
            nodes = inside + [n for n in nodes if id(n) not in seen]
        tickets.extend((table.ticket(n), n) for n in nodes if n in whole)
    if not members_first:
        for k in range(len(module.body)):  # the whole statements' positions first
            table._statement(k)
    for ticket, node in tickets:
        _assert_at(table.resolve(ticket), whole[node], node)
    if members_first and any(isinstance(s, cst.ClassDef) for s in module.body):
        assert table._by_member  # the members' own positions were used


@pytest.mark.parametrize("name, source", _sources(), ids=[n for n, _ in _sources()])
def test_one_node_position_equals_the_whole_module_position(name: str, source: str) -> None:
    """The code generated up to one node's end gives that node libcst's own position, also for a node
    whose position libcst hoists from its children (statements and blocks): those are tracked too."""
    module = cst.parse_module(source)
    whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    firsts = first_lines(module, source)
    count = 0
    for k, stmt in enumerate(module.body):
        for node in _code_nodes(stmt):
            assert node_position(module, k, firsts[k], node) == whole[node], type(node).__name__
            count += 1
    assert count


@pytest.mark.parametrize("name, source", _sources(), ids=[n for n, _ in _sources()])
def test_the_positions_of_many_nodes_from_one_pass_equal_the_whole_module_positions(name: str, source: str) -> None:
    """Every node of a statement (every other node, and the statement alone) asked for at once: libcst's
    own positions, and none of a node outside the statement."""
    module = cst.parse_module(source)
    whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    firsts = first_lines(module, source)
    for k, stmt in enumerate(module.body):
        nodes = [stmt, *_code_nodes(stmt)]
        other = module.body[k - 1] if k else None
        for chosen in (nodes, nodes[::2], nodes[1::3], [stmt]):
            asked = [*chosen, other] if other is not None else chosen
            got = nodes_positions(module, k, firsts[k], asked)
            assert got == {n: whole[n] for n in chosen}


def test_a_first_node_resolved_in_a_statement_computes_no_other_position() -> None:
    module = cst.parse_module(TRICKY)
    table = SpanTable(module, TRICKY)
    k, cls = next((k, s) for k, s in enumerate(module.body) if isinstance(s, cst.ClassDef))
    method = next(m for m in _code_nodes(cls) if isinstance(m, cst.FunctionDef) and m.name.value == "f")
    call = next(n for n in _code_nodes(method) if isinstance(n, cst.Call))  # ``k(a)``
    table.at_statement = k
    ticket = table.ticket(call)
    want = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)[call]
    got = table.resolve(ticket)
    assert (got.line, got.column, got.end_line, got.end_column) == (
        want.start.line,
        want.start.column,
        want.end.line,
        want.end.column,
    )
    assert not table._by_member and not table._by_stmt


@pytest.mark.parametrize("name, source", _sources(), ids=[n for n, _ in _sources()])
def test_line_scan_first_lines_equal_pythons_parse(name: str, source: str) -> None:
    from tensorshape.infer.spans import _ast_index, _first_lines, python_body

    module = cst.parse_module(source)
    table = SpanTable(module, source)
    body = python_body(source)
    assert table._first_lines() == _first_lines(module.body, body)
    assert table._scan is not None  # the scan, not Python's parse, gave them
    for k, stmt in enumerate(module.body):
        if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
            indent = module.default_indent if stmt.body.indent is None else stmt.body.indent
            node = body[_ast_index(module.body, k)]
            assert isinstance(node, ast.ClassDef)
            assert table._member_lines(k, stmt, indent) == _first_lines(stmt.body.body, node.body)


def test_a_line_scan_that_disagrees_falls_back_to_pythons_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    import tensorshape.infer.spans as spans

    monkeypatch.setattr(spans, "statement_starts", lambda lines, top, indent="", lo=0, hi=None: [lo])
    module = cst.parse_module(TRICKY)
    whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    table = SpanTable(module, TRICKY)
    nodes = [n for n in _code_nodes(module) if n in whole]
    tickets = [(table.ticket(n), n) for n in nodes]
    for ticket, node in tickets:
        got, want = table.resolve(ticket), whole[node]
        assert (got.line, got.column, got.end_line, got.end_column) == (
            want.start.line,
            want.start.column,
            want.end.line,
            want.end.column,
        )
    assert table._scan is None and table._ast


@pytest.mark.parametrize("name, source", _sources(), ids=[n for n, _ in _sources()])
def test_nodes_fetched_together_have_the_whole_module_positions_without_full_passes(name: str, source: str) -> None:
    """``prefetch_nodes`` (the example locations of ``--statistics``): several nodes of one statement or
    class member from one pass that tracks only them (no statement's or member's positions all computed),
    libcst's own positions, whatever statement the table was analysing when it took them."""
    module = cst.parse_module(source)
    whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    table = SpanTable(module, source)
    nodes = [n for stmt in module.body for n in _code_nodes(stmt)[::5]]
    table.prefetch_nodes(nodes)
    assert not table._by_member and not table._by_stmt
    for node in nodes:
        _assert_at(table.resolve(table.ticket(node)), whole[node], node)


def test_a_ticket_taken_while_another_statement_was_analysed_is_found_in_its_own() -> None:
    """A callee of the same module run from another statement (its nodes get that statement as their
    hint): the position is libcst's, and no code of the statement analysed is generated for it."""
    source = "def callee(x):\n    return x.frobnicate()\n\n\ndef caller(y):\n    return callee(y)\n"
    module = cst.parse_module(source)
    whole = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    table = SpanTable(module, source)
    call = next(n for n in _code_nodes(module.body[0]) if isinstance(n, cst.Call))
    table.at_statement = 1  # ``caller`` is analysed, and runs ``callee``
    ticket = table.ticket(call)
    table.at_statement = -1
    _assert_at(table.resolve(ticket), whole[call], call)
    assert 1 not in table._by_stmt and ("stmt", 1) not in table._partial


# -- where each counted cause was first met (``--statistics``, the JSON summary) ----------------

#: Several unmodelled ops and unknown causes in one method, in another method, and at the top level.
SOURCE = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 8)

    def forward(self, x):
        a = torch.special.xlog1py(x, x)
        b = x.frobnicate()
        c = torch.special.zeta(a, b)
        return self.fc(c.wibble())

    def other(self, y):
        return y.wobble() + torch.special.xlog1py(y, y)


def main():
    net = Net()
    z = torch.randn(2, 4)
    return net(z).sparkle() + z.frobnicate()
"""


def test_example_locations_are_libcsts_positions_of_the_first_nodes_met() -> None:
    settings = CheckSettings(record=True)
    r = check_source(SOURCE, "nets.py", settings)
    assert r.analyzer is not None and r.module is not None and r.module.tree is not None
    found = r.analyzer.examples
    assert sum(key.startswith("unknown-op:") for key in found) >= 4
    whole = MetadataWrapper(r.module.tree, unsafe_skip_copy=True).resolve(PositionProvider)
    for key, (_, node) in found.items():
        pos = whole[node].start
        assert r.examples[key] == f"nets.py:{pos.line}:{pos.column + 1}", key
    assert r.examples["unknown-op:Tensor.frobnicate"] == "nets.py:12:13"


def test_no_example_locations_when_none_are_asked_for_and_the_same_diagnostics() -> None:
    settings = CheckSettings(enable=frozenset({"TS006"}))
    full = check_source(SOURCE, "nets.py", settings)
    bare = check_source(SOURCE, "nets.py", replace(settings, examples=False))
    assert full.examples and not bare.examples
    assert bare.diagnostics == full.diagnostics and bare.stats == full.stats
