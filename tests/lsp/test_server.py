"""The real server process, driven by an LSP client (pytest-lsp): diagnostics, fix, hover, inlay hints,
code actions, bad input, shutdown."""

from __future__ import annotations

import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .settle import settled

pytestmark = pytest.mark.lsp

BUG = """import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 10)

    def forward(self):
        x = torch.randn(8, 32)
        h = self.fc(x)
        return h.sum(dim=1)
"""
UNKNOWN = """import torch


def f(t: torch.Tensor):
    w = torch.zeros(4, t.numel())
    z = t * 2
    return w, z
"""
FIXED = BUG.replace("torch.randn(8, 32)", "torch.randn(8, 64)")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "tensorshape.lsp"]))
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("ws")
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        )
    )
    lsp_client.root = root  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def _open(client: LanguageClient, name: str, text: str) -> str:
    uri = (client.root / name).as_uri()  # type: ignore[attr-defined]
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )
    await settled(client, uri, 1)
    return uri


async def test_diagnostic_fix_hover_inlay_actions(client: LanguageClient) -> None:
    uri = await _open(client, "head.py", BUG)
    (d,) = [x for x in client.diagnostics[uri] if x.severity == types.DiagnosticSeverity.Error]
    assert d.code == "TS101" and "64" in d.message
    assert d.range.start.line == 11 and d.range.start.character == 20  # `x` in self.fc(x)

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=10, character=12)
        )
    )
    assert hover is not None and "[8 32]" in hover.contents.value  # type: ignore[union-attr]

    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=13, character=0)),
        )
    )
    assert any(h.label == ": [8 32]" and h.position.line == 10 for h in hints)

    # a wholly unknown shape gets no hint (`: [...]` is noise; `t.numel()` teaches `t` no rank, as
    # `t.shape[0]` would), though hover still says what is known
    unknown = await _open(client, "unknown.py", UNKNOWN)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=unknown),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=6, character=0)),
        )
    )
    assert [(h.label, h.position.line) for h in hints] == [(": [4 ?]", 4)]

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=d.range,
            context=types.CodeActionContext(diagnostics=[d]),
        )
    )
    titles = [a.title for a in actions if isinstance(a, types.CodeAction)]
    assert "Suppress TS101 on this line" in titles

    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=FIXED)],
        )
    )
    await settled(client, uri, 2)
    assert [x for x in client.diagnostics[uri] if x.severity == types.DiagnosticSeverity.Error] == []


async def test_syntax_errors_and_bad_requests_do_not_crash(client: LanguageClient) -> None:
    uri = await _open(client, "broken.py", "def f(:\n    return (\n")
    (d,) = client.diagnostics[uri]
    assert d.code == "TS003"
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=50, character=3)
        )
    )
    assert hover is None
    # The server still answers after the bad input.
    uri2 = await _open(client, "ok.py", "import torch\nx = torch.zeros(2, 3) @ torch.zeros(4, 5)\n")
    assert any(x.code == "TS101" for x in client.diagnostics[uri2])


async def test_utf16_columns(client: LanguageClient) -> None:
    text = 'import torch\ns = "é😀"; x = torch.zeros(2, 3) @ torch.zeros(4, 5)\n'
    uri = await _open(client, "wide.py", text)
    (d,) = [x for x in client.diagnostics[uri] if x.code == "TS101"]
    line = text.splitlines()[1]
    col = line.index("torch.zeros(4")
    assert d.range.start.character == len(line[:col].encode("utf-16-le")) // 2


#: Characters that ``str.splitlines`` (and so pygls' document lines) takes for line breaks, though
#: Python and LSP do not: in a comment they are part of its line.
NOT_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def test_document_lines_are_lsp_lines() -> None:
    """pygls's own document puts this edit at the end of the comment, one line too high."""
    from tensorshape.lsp.server import _PythonLinesDocument

    doc = _PythonLinesDocument("file:///m.py", f"import torch\r\n# a{NOT_BREAKS}b\nx = torch.zeros(4, 5)\r")
    at = types.Range(start=types.Position(line=2, character=16), end=types.Position(line=2, character=17))
    doc.apply_change(types.TextDocumentContentChangePartial(range=at, text="3"))
    assert doc.source == f"import torch\r\n# a{NOT_BREAKS}b\nx = torch.zeros(3, 5)\r"
    assert len(doc.lines) == 3


async def test_lines_are_the_lines_python_and_lsp_see(client: LanguageClient) -> None:
    """Columns in UTF-16 units are counted on the right line, after a comment with characters that
    ``str.splitlines`` breaks at, and after lines ended by CR and CRLF."""
    text = f'import torch\r# a{NOT_BREAKS}b\r\ns = "é😀"; x = torch.zeros(2, 3) @ torch.zeros(4, 5)\ny = torch.zeros(2, 3)  # 😀\n'
    compile(text, "lines.py", "exec")
    uri = await _open(client, "lines.py", text)
    (d,) = [x for x in client.diagnostics[uri] if x.code == "TS101"]
    line = '\ns = "é😀"; x = torch.zeros(2, 3) @ torch.zeros(4, 5)'.splitlines()[1]
    utf16 = len(line[: line.index("torch.zeros(4")].encode("utf-16-le")) // 2
    assert (d.range.start.line, d.range.start.character) == (2, utf16)
    at = len(line[: line.index("torch.zeros(2")].encode("utf-16-le")) // 2
    where = types.TextDocumentIdentifier(uri=uri)
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=where, position=types.Position(line=2, character=at))
    )
    assert hover is not None and "[2 3]" in hover.contents.value  # type: ignore[union-attr]
    assert hover.range is not None and hover.range.start == types.Position(line=2, character=at)
    everything = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=4, character=0))
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(text_document=where, range=everything))
    assert (": [2 3]", 3, 1) in [(h.label, h.position.line, h.position.character) for h in hints]
    # An incremental edit lands where the editor made it: `torch.zeros(4, 5)` -> `torch.zeros(3, 5)`.
    four = types.Position(line=2, character=utf16 + len("torch.zeros("))
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=four, end=types.Position(line=2, character=four.character + 1)), text="3"
                )
            ],
        )
    )
    await settled(client, uri, 2)
    assert [x.code for x in client.diagnostics[uri]] == []


async def _change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    await settled(client, uri, version)


async def test_edits_are_analysed_incrementally(client: LanguageClient) -> None:
    uri = await _open(client, "inc.py", BUG)
    (d,) = [x for x in client.diagnostics[uri] if x.severity == types.DiagnosticSeverity.Error]
    assert d.range.start.line == 11
    # Lines inserted above the class move its (reused) diagnostic and hover shapes.
    shifted = BUG.replace("import torch.nn as nn\n", "import torch.nn as nn\n\n# a comment\nWIDTH = 3\n")
    await _change(client, uri, 2, shifted)
    (d,) = [x for x in client.diagnostics[uri] if x.severity == types.DiagnosticSeverity.Error]
    assert d.range.start.line == 14 and d.range.start.character == 20
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=13, character=12)
        )
    )
    assert hover is not None and "[8 32]" in hover.contents.value  # type: ignore[union-attr]
    # An edit inside the method body, then a syntax error and its fix.
    await _change(client, uri, 3, shifted.replace("torch.randn(8, 32)", "torch.randn(8, 64)"))
    assert [x for x in client.diagnostics[uri] if x.severity == types.DiagnosticSeverity.Error] == []
    await _change(client, uri, 4, shifted.replace("def forward(self):", "def forward(self:"))
    assert [x.code for x in client.diagnostics[uri]] == ["TS003"]
    await _change(client, uri, 5, shifted)
    (d,) = [x for x in client.diagnostics[uri] if x.severity == types.DiagnosticSeverity.Error]
    assert d.code == "TS101" and d.range.start.line == 14


LEARNT = """import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc(x)
"""


async def _learnt(client: LanguageClient, uri: str) -> None:
    lines = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=10, character=0))
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=types.TextDocumentIdentifier(uri=uri), range=lines)
    )
    assert [(h.label, h.position.line, h.position.character) for h in hints] == [(": [*batch 64]", 8, 23)]
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=8, character=22)
        )
    )
    assert hover is not None and "[*batch 64]" in hover.contents.value  # type: ignore[union-attr]
    assert "inferred from its first use" in hover.contents.value  # type: ignore[union-attr]
    at = types.Range(start=types.Position(line=8, character=22), end=types.Position(line=8, character=22))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=at,
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    (action,) = [a for a in actions or [] if isinstance(a, types.CodeAction) and a.title.startswith("Annotate")]
    assert action.edit is not None and action.edit.changes is not None
    (edit,) = action.edit.changes[uri]
    assert 'def forward(self, x: Float[Tensor, "*batch 64"]):' in edit.new_text
    assert "from jaxtyping import Float\n" in edit.new_text  # the Linear fixes the class


async def test_a_parameter_learnt_from_its_first_use_in_hover_inlay_hint_and_code_action(
    client: LanguageClient,
) -> None:
    uri = await _open(client, "learnt.py", LEARNT)
    await _learnt(client, uri)
    # After an edit (the piecewise analysis of the changed document) it is still there.
    await _change(client, uri, 2, LEARNT.replace("nn.Linear(64, 10)", "nn.Linear(64, 12)"))
    await _learnt(client, uri)


#: A server that publishes part of each newly opened document's diagnostics as early as it can:
#: what a slow machine does with a file whose first analysis takes more than ``EARLY_AFTER``.
EARLY = "import tensorshape.lsp.incremental as i; i.EARLY_AFTER = -1.0; import tensorshape.lsp.__main__"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-c", EARLY]))
async def early_client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("ws")
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=pytest_lsp.client_capabilities("visual-studio-code"), root_uri=root.as_uri()
        )
    )
    lsp_client.root = root  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def test_a_partial_first_publication_is_followed_by_the_final_one(early_client: LanguageClient) -> None:
    """The first publication holds the definitions analysed so far (here: none but the top level's);
    the log line that settles the version comes after the last one, which has every diagnostic."""
    client = early_client
    uri = (client.root / "head.py").as_uri()  # type: ignore[attr-defined]
    source = "import torch\n\n\ndef f():\n    return torch.zeros(2, 3) @ torch.zeros(4, 5)\n\n\ndef g():\n    return torch.zeros(2) + torch.zeros(3)\n"
    first = client.protocol.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)  # a Future, now
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=source)
        )
    )
    final = await settled(client, uri, 1)
    partial = first.result(timeout=0).diagnostics  # received before the log line
    assert [d.range.start.line for d in final if d.severity == types.DiagnosticSeverity.Error] == [4, 8]
    assert len(partial) < len(final) and all(d in final for d in partial)
