"""Incremental analysis (chunked parsing, per-definition reuse) gives what a full analysis gives, edit after edit."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from tensorshape.infer.api import CheckSettings
from tensorshape.infer.project import Project, parse_source
from tensorshape.lsp.analysis import Analysis, analyse, lsp_settings
from tensorshape.lsp.chunks import ChunkPool
from tensorshape.lsp.incremental import IncrementalAnalyser
from tensorshape.model import codes

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

BLOCK = '''

WIDTH_{i} = {width}


def helper_{i}(x, n):
    y = x.view(x.shape[0], n, -1)
    return y.sum(dim=1)


class Block{i}(nn.Module):
    """Block {i}: built from Block{prev}."""

    def __init__(self, d: int = WIDTH_{i}):
        super().__init__()
        self.inner = Block{prev}()
        self.fc = nn.Linear(d, {width})
        self.out = nn.Linear({width}, WIDTH_{i})

    def forward(self, x):
        h = self.fc(x)
        h = torch.relu(h)  # comment {i}
        z = helper_{i}(h, 4)
        return self.out(h) + z.mean()


def demo_{i}() -> None:
    m = Block{i}()
    x = torch.randn(8, WIDTH_{i})
    y = m(x)
    w = torch.randn(3, {bad})
    print(y @ w)
'''

HEAD = '''"""A generated model file for the incremental analysis tests."""

import math

import torch
import torch.nn as nn
from torch import Tensor


class Block0(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 64)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc(x) * math.sqrt(2)
'''


def generated(blocks: int = 12) -> str:
    parts = [HEAD]
    for i in range(1, blocks + 1):
        width = 32 * (1 + i % 3)
        parts.append(BLOCK.format(i=i, prev=i - 1, width=width, bad=width if i % 4 else width + 1))
    for p in sorted(EXAMPLES.glob("bugs/*.py"))[:6]:
        parts.append("\n\n" + p.read_text())
    return "".join(parts)


def _norm(a: Analysis) -> tuple[list[object], list[object], list[object]]:
    return (
        [(d.code.id, d.message, d.span, d.severity, d.hint, d.related) for d in a.diagnostics],
        [(o.span, o.reason, o.checks) for o in a.obligations],
        # Hover lookups go by position: the order in which shapes were recorded does not matter (a
        # parameter's learnt shape is recorded when its function's analysis ends).
        sorted([(s.span, s.shape, s.target) for s in a.shapes], key=repr),
    )


def _full(source: str, path: str) -> Analysis:
    return analyse(source, path, CheckSettings(), 1, [], Project())


def _edits(rng: random.Random, lines: list[str]) -> list[tuple[str, list[str]]]:
    """A sequence of edits, each as the whole new text (the edits build on each other)."""
    out: list[tuple[str, list[str]]] = []
    cur = list(lines)

    def step(label: str, new: list[str]) -> None:
        nonlocal cur
        cur = new
        out.append((label, list(new)))

    def pick(pred: object) -> int:
        cands = [i for i, ln in enumerate(cur) if pred(ln)]  # type: ignore[operator]
        return rng.choice(cands)

    for _ in range(3):
        i = pick(lambda ln: ln.startswith("        ") and re.search(r"\d", ln) is not None)
        step(
            "number in a body",
            cur[:i] + [re.sub(r"\d+", lambda m: str(int(m.group()) * 2), cur[i], count=1)] + cur[i + 1 :],
        )
        i = pick(lambda ln: True)
        step("insert a line", cur[:i] + ["# inserted\n" if rng.random() < 0.5 else "\n"] + cur[i:])
        i = pick(lambda ln: ln.strip() == "" or ln.lstrip().startswith("#"))
        step("delete a line", cur[:i] + cur[i + 1 :])
        i = pick(lambda ln: ln.startswith("        h = "))
        step("new statement in a body", cur[:i] + ["        h = h.transpose(0, 1)\n"] + cur[i:])
        i = pick(lambda ln: ln.startswith("WIDTH_"))
        step("module constant", cur[:i] + [re.sub(r"= \d+", "= 48", cur[i])] + cur[i + 1 :])
    i = pick(lambda ln: "return y.sum(dim=1)" in ln)
    step("a helper's body (inlined by others)", cur[:i] + [cur[i].replace("dim=1", "dim=2")] + cur[i + 1 :])
    i = pick(lambda ln: ln.startswith("    def forward(self, x):"))
    step("a method's signature", cur[:i] + ["    def forward(self, x: Tensor):\n"] + cur[i + 1 :])
    i = pick(lambda ln: ln.startswith("        self.fc = nn.Linear(d"))
    step("an __init__ body", cur[:i] + [cur[i].replace("nn.Linear(d,", "nn.Linear(d + 1,")] + cur[i + 1 :])
    i = pick(lambda ln: ln.startswith("import torch.nn as nn"))
    saved = cur[i]
    step("break an import", cur[:i] + ["import torch.nn as nnx\n"] + cur[i + 1 :])
    step("restore the import", cur[:i] + [saved] + cur[i + 1 :])
    i = pick(lambda ln: ln.startswith("    def forward"))
    step("syntax error", cur[:i] + ["    def broken(:\n"] + cur[i:])
    step("fix the syntax error", cur[:i] + cur[i + 1 :])
    i = pick(lambda ln: ln.startswith("def helper_"))
    step("rename a helper", cur[:i] + [cur[i].replace("def helper_", "def helpr_")] + cur[i + 1 :])
    step("rename it back", cur[:i] + [cur[i].replace("def helpr_", "def helper_")] + cur[i + 1 :])
    j = pick(lambda ln: ln.startswith("class Block"))
    k = next(n for n in range(j + 1, len(cur)) if cur[n].startswith("def demo_"))
    step("move a class below its demo", cur[:j] + cur[k : k + 7] + cur[j:k] + cur[k + 7 :])
    j = pick(lambda ln: ln.startswith("class Block") and "Block1(" not in ln)
    k = next(n for n in range(j + 1, len(cur)) if cur[n].startswith("def demo_"))
    moved = [ln.replace("torch.relu(h)", "torch.tanh(h)") for ln in cur[j:k]]
    step("move a class to the end and edit its body", cur[:j] + cur[k:] + ["\n\n"] + moved)
    step("delete the second half", cur[: len(cur) // 2])
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_incremental_equals_full_analysis(seed: int, tmp_path: Path) -> None:
    path = str(tmp_path / "model.py")
    source = generated()
    inc = IncrementalAnalyser(Project(), lsp_settings(CheckSettings()), path)
    assert _norm(inc.update(source, 1)) == _norm(_full(source, path))
    for n, (label, lines) in enumerate(_edits(random.Random(seed), source.splitlines(keepends=True))):
        text = "".join(lines)
        got, want = _norm(inc.update(text, n + 2)), _norm(_full(text, path))
        assert got == want, f"after edit {n} ({label})"


def test_a_body_edit_reanalyses_few_chunks(tmp_path: Path) -> None:
    path = str(tmp_path / "model.py")
    source = generated()
    inc = IncrementalAnalyser(Project(), lsp_settings(CheckSettings()), path)
    first = inc.update(source, 1)
    assert first.diagnostics and inc.reanalysed > 30
    edited = source.replace("    z = helper_12(h, 4)", "    z = helper_12(h, 2)")
    assert edited != source
    inc.update(edited, 2)
    assert inc.reanalysed == 2  # Block12, and demo_12 that builds it
    commented = edited.replace("# comment 3\n", "# comment three\n").replace('"""A generated', '# top\n"""A generated')
    a = inc.update(commented, 3)
    assert _norm(a) == _norm(_full(commented, path))
    # Comments and layout only: the import binds nothing new; the chunk itself is all that is redone.
    noted = commented.replace("import math\n", "import  math  # for sqrt\n", 1)
    assert noted != commented
    a = inc.update(noted, 4)
    assert inc.reanalysed == 1 and _norm(a) == _norm(_full(noted, path))


def test_repeated_statements(tmp_path: Path) -> None:
    """Copies of one statement: adding or removing one must not leave a copy with another's result."""
    path = str(tmp_path / "model.py")
    demo = "def demo():\n    return torch.zeros(2, 3) @ torch.zeros({n}, 5)\n\n\n"
    source = "import torch\n\n\n" + demo.format(n=4) * 2
    versions = [
        source,
        "import torch\n\n\n" + demo.format(n=4).replace("():", "():  # first") + demo.format(n=4),
        source + demo.format(n=3),
        source,
        "import torch\n\n\n" + demo.format(n=4),
    ]
    inc = IncrementalAnalyser(Project(), lsp_settings(CheckSettings()), path)
    for n, text in enumerate(versions):
        assert _norm(inc.update(text, n + 1)) == _norm(_full(text, path)), n


def test_syntax_error_falls_back_and_recovers(tmp_path: Path) -> None:
    path = str(tmp_path / "model.py")
    source = generated(3)
    inc = IncrementalAnalyser(Project(), lsp_settings(CheckSettings()), path)
    inc.update(source, 1)
    broken = source.replace("class Block2(nn.Module):", "class Block2(nn.Module:")
    a = inc.update(broken, 2)
    assert [d.code.id for d in a.diagnostics] == [d.code.id for d in _full(broken, path).diagnostics]
    assert any(d.code is codes.SYNTAX_ERROR for d in a.diagnostics)
    assert _norm(inc.update(source, 3)) == _norm(_full(source, path))
    # An unclosed bracket swallows the rest of the file; once closed, the chunks parsed before are reused.
    unclosed = source.replace("        h = torch.relu(h)  # comment 1", "        h = torch.relu(h  # comment 1")
    assert unclosed != source
    assert any(d.code is codes.SYNTAX_ERROR for d in inc.update(unclosed, 4).diagnostics)
    assert _norm(inc.update(source, 5)) == _norm(_full(source, path))
    assert inc.reanalysed == 0


def test_chunks_cover_every_top_level_statement() -> None:
    source = (
        generated() + 'X = """\nnot a statement\n"""\nif X:\n    pass\nelse:\n    pass\n@dec\n\n# c\ndef f(): ...\n'
    )
    _, chunks = ChunkPool().chunks(source)
    tree, _ = parse_source(source)
    assert tree is not None and all(c.tree is not None for c in chunks)
    assert sum(len(c.tree.body) for c in chunks if c.tree is not None) == len(tree.body)


def test_type_ignore_with_a_tensorshape_code_suppresses_in_the_editor() -> None:
    """The language server honours `# type: ignore[<code>]` as the CLI and mypy do."""
    source = (
        "import torch\n"
        "a = torch.randn(2, 3) @ torch.randn(4, 5)  # type: ignore[shape-mismatch]\n"
        "b = torch.randn(2, 3) @ torch.randn(4, 5)  # type: ignore[misc]\n"
        "c = torch.randn(2, 3) @ torch.randn(4, 5)  # type: ignore\n"
    )
    for settings, lines in ((CheckSettings(), [3, 4]), (CheckSettings(bare_type_ignore=True), [3])):
        inc = IncrementalAnalyser(Project(), lsp_settings(settings), "t.py").update(source, 1)
        assert [d.span.line for d in inc.diagnostics if d.code is codes.SHAPE_MISMATCH] == lines
        full = _full(source, "t.py") if not settings.bare_type_ignore else inc
        assert _norm(full)[0] == _norm(inc)[0]


LAYERS = """import torch
import torch.nn as nn


class Inner(nn.Module):
    def __init__(self, d: int = 16):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        h = self.fc(x)
        return torch.relu(h)

    def describe(self):
        return "inner"


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.inner(x))

    def features(self, x):
        return self.head.weight @ x

    def size(self):
        return 4


class Unrelated(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        return self.fc(x) * 2


def main() -> None:
    m = Outer()
    y = m(torch.randn(8, 16))
    print(y @ torch.randn(5, 2))
"""

BODY_EDIT = ("        h = self.fc(x)\n", "        h = self.fc(x) * 2\n")


def _analysed_again(inc: IncrementalAnalyser) -> list[str]:
    """The definitions the last update analysed, without the module's name."""
    return sorted(q.split(".", 1)[1] for q in inc.reanalysed_definitions)


def test_an_init_edit_rebuilds_only_what_used_the_instance(tmp_path: Path) -> None:
    """An ``__init__`` body edit: the instance is built again, and what ran with it or reused it is
    analysed again; an unrelated class is not (counted, not timed)."""
    path = str(tmp_path / "layers.py")
    inc = IncrementalAnalyser(Project(), lsp_settings(CheckSettings()), path)
    inc.update(LAYERS, 1)
    assert "Unrelated.forward" in _analysed_again(inc)
    edited = LAYERS.replace("self.fc = nn.Linear(d, d)", "self.fc = nn.Linear(d, 2 * d)")
    got = inc.update(edited, 2)
    assert _norm(got) == _norm(_full(edited, path))
    again = _analysed_again(inc)
    # Outer's instance holds an Inner built by the edited ``__init__``: it is built again, and so
    # every method of Outer runs again with it.
    assert {"Inner.__init__", "Inner.forward", "Outer.__init__", "Outer.size", "main"} <= set(again)
    assert not any(q.startswith("Unrelated.") for q in again)


def test_a_body_edit_reanalyses_only_the_definitions_that_ran_it(tmp_path: Path) -> None:
    path = str(tmp_path / "layers.py")
    inc = IncrementalAnalyser(Project(), lsp_settings(CheckSettings()), path)
    inc.update(LAYERS, 1)
    inc.update(LAYERS.replace(*BODY_EDIT), 2)
    assert _analysed_again(inc) == ["Inner.forward", "Outer.forward", "main"]


@pytest.mark.parametrize("abandon", [False, True])
def test_incremental_equals_full_after_each_kind_of_edit(tmp_path: Path, abandon: bool) -> None:
    """Body, signature, ``__init__``, import edits and classes added and removed, one after another."""
    path = str(tmp_path / "layers.py")
    added = "\n\nclass Extra(nn.Module):\n    def forward(self, x):\n        return x @ torch.randn(7, 2)\n"
    steps = [
        ("body", lambda s: s.replace(*BODY_EDIT)),
        ("signature", lambda s: s.replace("    def features(self, x):", "    def features(self, x, k: int = 2):")),
        ("__init__", lambda s: s.replace("self.head = nn.Linear(16, 4)", "self.head = nn.Linear(16, 6)")),
        ("import", lambda s: s.replace("import torch.nn as nn\n", "import torch.nn as nn\nimport math\n")),
        ("class added", lambda s: s.replace("\n\ndef main", added + "\n\ndef main")),
        ("body of the added class", lambda s: s.replace("torch.randn(7, 2)", "torch.randn(3, 2)")),
        ("class removed", lambda s: s.replace(added.replace("(7, 2)", "(3, 2)"), "")),
        ("__init__ back", lambda s: s.replace("nn.Linear(16, 6)", "nn.Linear(16, 4)")),
        ("body back", lambda s: s.replace(BODY_EDIT[1], BODY_EDIT[0])),
    ]
    inc = IncrementalAnalyser(Project(), lsp_settings(CheckSettings()), path)
    text = LAYERS
    assert _norm(inc.update(text, 1)) == _norm(_full(text, path))
    for n, (label, edit) in enumerate(steps):
        new = edit(text)
        assert new != text, label
        text = new
        if abandon:
            # Each version is first superseded by itself (the analyses a body edit leaves are redone
            # by the next update), then analysed again: the result is the full analysis's.
            inc.update(text, n + 2, superseded=lambda: True)
        got, want = _norm(inc.update(text, n + 2)), _norm(_full(text, path))
        assert want[0], label  # the program keeps an error to compare
        assert got == want, label


def test_a_superseded_body_edit_leaves_the_callers_to_the_next_version(tmp_path: Path) -> None:
    """A newer version waiting: the edited function is analysed again, its callers keep their previous
    results and are redone by the next update, whatever kind of edit that is."""
    path = str(tmp_path / "model.py")
    inc = IncrementalAnalyser(Project(), lsp_settings(CheckSettings()), path)
    inc.update(CALLERS, 1)
    edited = CALLERS.replace("torch.ones(3, 4)", "torch.ones(5, 4)")
    inc.update(edited, 2, superseded=lambda: True)
    assert inc.reanalysed == 1
    again = CALLERS.replace("torch.ones(3, 4)", "torch.ones(6, 4)")
    whole = inc.update(again, 3)
    assert inc.reanalysed == 7
    assert _norm(whole) == _norm(_full(again, path))
    inc.update(edited, 4, superseded=lambda: True)
    commented = edited + "\n# a comment\n"
    whole = inc.update(commented, 5)
    assert _norm(whole) == _norm(_full(commented, path))


def test_a_newly_opened_document_publishes_a_part_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first part of an opened document's analysis is a subset of the whole (nothing taken back);
    an edit publishes its edited definitions first, then the whole."""
    import tensorshape.lsp.incremental as incremental

    path = str(tmp_path / "model.py")
    source = generated(4)
    # A clock that ticks once per look: the first part is published half way through the chunks.
    ticks = iter(range(10**6))
    monkeypatch.setattr(incremental, "process_time", lambda: float(next(ticks)))
    monkeypatch.setattr(incremental, "EARLY_AFTER", len(ChunkPool().chunks(source)[1]) / 2)
    parts: list[Analysis] = []
    inc = IncrementalAnalyser(Project(), lsp_settings(CheckSettings()), path)
    whole = inc.update(source, 1, parts.append)
    assert _norm(whole) == _norm(_full(source, path))
    assert len(parts) == 1 and parts[0].version == 1
    first, final = _norm(parts[0])[0], _norm(whole)[0]
    assert first and len(first) < len(final) and all(d in final for d in first)
    edited = source.replace("torch.relu(h)  # comment 2", "torch.tanh(h)  # comment 2")
    whole = inc.update(edited, 2, parts.append)
    assert _norm(whole) == _norm(_full(edited, path))
    assert len(parts) <= 2 and all(p.version == 2 for p in parts[1:])


CALLERS = """import torch
from jaxtyping import Float
from torch import Tensor


def helper(x: Float[Tensor, "2 3"]):
    return x @ torch.ones(3, 4)
""" + "".join(
    f"""

def caller{i}():
    return helper(torch.ones(2, 3)) + torch.ones(2, 4)
"""
    for i in range(6)
)


def test_a_body_edit_publishes_the_edited_definition_before_its_callers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A body edit whose callers are analysed again publishes the edited function's new diagnostics
    first (the callers' previous ones with them), then the whole, which is the full analysis's."""
    import tensorshape.lsp.incremental as incremental

    path = str(tmp_path / "model.py")
    inc = IncrementalAnalyser(Project(), lsp_settings(CheckSettings()), path)
    inc.update(CALLERS, 1)
    ticks = iter(range(10**6))
    monkeypatch.setattr(incremental, "process_time", lambda: float(next(ticks)))
    parts: list[Analysis] = []
    edited = CALLERS.replace("torch.ones(3, 4)", "torch.ones(5, 4)")
    whole = inc.update(edited, 2, parts.append)
    assert _norm(whole) == _norm(_full(edited, path))
    assert len(parts) == 1 and parts[0].version == 2
    first = [d for d in parts[0].diagnostics if d.severity.name == "ERROR"]
    assert [(d.code.id, d.span.line) for d in first] == [("TS101", 7)]


PROJECT_LAYERS = """import torch.nn as nn


class Wide(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 8)

    def forward(self, x):
        return self.fc(x)


class Narrow(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(x)
"""

PROJECT_MODEL = """import torch
import torch.nn as nn
from layers import Wide


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = Wide()
        self.out = nn.Linear(8, 2)

    def forward(self, x):
        return self.out(self.body(x))


def main() -> None:
    m = Head()
    y = m(torch.randn(3, 16))
    print(y @ torch.randn(2, 5))
    print(Wide()(torch.randn(3, 16)) @ torch.randn(5, 1))
"""


def test_an_import_edit_reanalyses_only_what_it_rebinds(tmp_path: Path) -> None:
    """A name added to an import (or the same module imported another way) leaves the other names bound
    to what they were: nothing that mentions them is analysed again; an import that binds a name to
    something else, or a second binding of it, is followed by the definitions that mention it."""
    (tmp_path / "layers.py").write_text(PROJECT_LAYERS)
    model = tmp_path / "model.py"
    model.write_text(PROJECT_MODEL)
    path = str(model)
    cheap = [
        (
            "a name added to a project import",
            lambda s: s.replace("from layers import Wide\n", "from layers import Wide, Narrow\n"),
        ),
        ("a name added to an import of torch", lambda s: s.replace("import torch\n", "import torch, math\n", 1)),
        (
            "the same module imported another way",
            lambda s: s.replace("import torch.nn as nn\n", "from torch import nn\n"),
        ),
        ("back", lambda s: s.replace("from torch import nn\n", "import torch.nn as nn\n")),
    ]
    costly = [
        (
            "a name bound to another class",
            lambda s: s.replace("from layers import Wide, Narrow\n", "from layers import Narrow as Wide, Narrow\n"),
        ),
        (
            "and back",
            lambda s: s.replace("from layers import Narrow as Wide, Narrow\n", "from layers import Wide, Narrow\n"),
        ),
        (
            "a second import of nn",
            lambda s: s.replace("import torch, math\n", "import torch, math\nimport torch.nn as nn\n"),
        ),
        ("a name no longer imported", lambda s: s.replace("import torch, math\n", "import math\n")),
    ]
    inc = IncrementalAnalyser(Project([tmp_path]), lsp_settings(CheckSettings()), path)
    text = PROJECT_MODEL
    assert _norm(inc.update(text, 1)) == _norm(_full(text, path))
    for n, (label, edit) in enumerate([*cheap, *costly]):
        new = edit(text)
        assert new != text, label
        text = new
        got, want = _norm(inc.update(text, n + 2)), _norm(_full(text, path))
        assert got == want, label
        if (label, edit) in cheap:
            assert inc.reanalysed == 1, label  # the import statement itself
        else:
            assert inc.reanalysed > 1, label
        messages = [m for _, m, *_ in got[0]]
        # Narrow gives Head 4 features where it wants 8: that error comes and goes with the import.
        assert any("in_features=8" in str(m) for m in messages) == (label == "a name bound to another class"), label


def test_a_reading_of_a_function_kept_by_body_is_read_again_after_a_body_edit() -> None:
    """Readings of a function's syntax asked on every instance built (``__setattr__``, ``__post_init__``)
    are kept per body: a body edit puts a new body into the kept ``def`` (as the editor's edit path
    does), and the reading must see it."""
    import libcst as cst
    from tensorshape.infer.syntax import by_function_body

    calls: list[str] = []

    @by_function_body
    def returns(fn: cst.FunctionDef) -> bool:
        calls.append(fn.name.value)
        return "return" in cst.Module(body=[fn]).code

    tree = cst.parse_module("def f(self, key, value):\n    super().__setattr__(key, value)\n")
    fn = tree.body[0]
    assert isinstance(fn, cst.FunctionDef)
    assert not returns(fn) and not returns(fn) and calls == ["f"]
    new = cst.parse_module("def f(self, key, value):\n    return None\n").body[0]
    assert isinstance(new, cst.FunctionDef)
    object.__setattr__(fn, "body", new.body)
    assert returns(fn) and calls == ["f", "f"]


MOVED_IMPORT = """import torch
import torch.nn as nn


class Scaled(nn.Module):
    width = torch.ones(3).shape[0]

    def forward(self, x):
        return x @ torch.randn(self.width, 2)


def main() -> None:
    Scaled()(torch.randn(2, 4))
"""


def test_an_import_moved_below_a_class_body_that_reads_it(tmp_path: Path) -> None:
    """The same name bound to the same module, but now after a class body that reads it at import time:
    the class is analysed again (its attribute is no longer known), as a full check does."""
    path = str(tmp_path / "model.py")
    inc = IncrementalAnalyser(Project(), lsp_settings(CheckSettings()), path)
    first = _norm(inc.update(MOVED_IMPORT, 1))
    assert first == _norm(_full(MOVED_IMPORT, path)) and first[0]  # 4 vs 3
    moved = MOVED_IMPORT.replace("import torch\n", "", 1) + "\n\nimport torch, math\n"
    got, want = _norm(inc.update(moved, 2)), _norm(_full(moved, path))
    assert got == want and got[0] != first[0]


def test_an_edit_of_comments_between_statements_runs_nothing_again(tmp_path: Path) -> None:
    """Blank lines and comments between top-level statements: every statement is the chunk it was, so
    neither the module's top level nor any definition runs again; the results, placed at the new lines,
    are a full analysis's (comments that look like code, or like ``# type: ignore``, included)."""
    path = str(tmp_path / "model.py")
    source = generated(6)
    inc = IncrementalAnalyser(Project(), lsp_settings(CheckSettings()), path)
    inc.update(source, 1)
    runs = inc.module_runs
    lines = source.splitlines(keepends=True)
    blank = [i for i, ln in enumerate(lines) if ln == "\n"]
    demo = next(i for i, ln in enumerate(lines) if ln.startswith("def demo_3"))
    before_defs = {i for i in blank if lines[i + 1].startswith(("def demo_", "class Block"))}
    versions = [
        lines[: blank[0]] + ["# a comment where a blank line was\n"] + lines[blank[0] + 1 :],
        lines[:demo] + ["# Block3(d=1) builds it with another width\n", "# global WIDTH_3\n"] + lines[demo:],
        lines[:demo] + ["# type: ignore\n", "\n", "\n"] + lines[demo:],
        [ln for i, ln in enumerate(lines) if i not in before_defs],
        lines,
    ]
    for n, new in enumerate(versions):
        text = "".join(new)
        assert text != source or n == len(versions) - 1
        got = _norm(inc.update(text, n + 2))
        assert got == _norm(_full(text, path)), n
        assert inc.module_runs == runs and inc.reanalysed == 0, n
    assert any(d.span.line > 100 for d in _full(source, path).diagnostics)  # diagnostics to place
    # A statement changed: the module runs again (and the results are a full analysis's).
    edited = source.replace("WIDTH_2 = ", "WIDTH_2 = 2 * ")
    assert _norm(inc.update(edited, 20)) == _norm(_full(edited, path))
    assert inc.module_runs == runs + 1
