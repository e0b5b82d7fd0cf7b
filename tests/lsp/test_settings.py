"""The server's settings: ``[tool.tensorshape]`` with the editor's settings on top (what the VS Code
extension, Neovim and Helix send), read at start-up and on ``workspace/didChangeConfiguration``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from tensorshape.lsp.settings import server_settings
from tensorshape.model.diagnostics import Severity

from .settle import settled

#: An error (TS101, line 14) and, with obligations shown, a runtime obligation (TS901, line 11).
SOURCE = (Path(__file__).parents[1] / "data" / "editors" / "shape_bug.py").read_text(encoding="utf-8")

PYPROJECT = """[tool.tensorshape]
severity = { TS101 = "warning" }
exclude = ["generated/*"]
roots = ["src"]
"""


def test_editor_settings_go_on_top_of_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT + "enable = ['unknown-op']\n")
    s = server_settings(tmp_path, None)
    assert s.check.severity == {"TS101": Severity.WARNING} and s.check.enable == {"TS006"}
    assert s.import_roots == (tmp_path / "src",) and s.problems == ()
    assert s.excludes(str(tmp_path / "generated" / "m.py")) and not s.excludes(str(tmp_path / "m.py"))

    s = server_settings(
        tmp_path,
        {
            "tensorshape": {
                "show_obligations": True,
                "disable": ["shape-mismatch"],
                "severity": {"TS104": "note"},
                "vollo": True,
                "exclude": ["legacy/*.py"],
            }
        },
    )
    assert s.check.enable == {"TS006", "TS901"} and s.check.options.vollo
    assert s.check.severity == {"TS101": None, "TS104": Severity.NOTE}
    assert s.excludes(str(tmp_path / "legacy" / "old.py")) and s.excludes(str(tmp_path / "generated" / "m.py"))


def test_bad_settings_are_named_and_the_rest_applies(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.tensorshape]\nvollo = 3\n")
    s = server_settings(
        tmp_path, {"enable": ["TS999", "unknown-op"], "colour": "red", "vollo": "yes", "severity": {"TS101": "loud"}}
    )
    assert s.check.enable == {"TS006"} and not s.check.options.vollo
    text = "\n".join(s.problems)
    assert "vollo must be true or false, got 3" in text  # the broken pyproject.toml
    assert "'TS999'" in text and "unknown settings: colour" in text and "vollo must be true or false, got 'yes'" in text
    assert "severity.TS101" in text
    # No workspace: no configuration file is read, options still apply.
    assert server_settings(None, {"tensorshape": {"show_obligations": True}}).check.enable == {"TS901"}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "tensorshape.lsp"]))
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("ws")
    (root / "pyproject.toml").write_text(PYPROJECT)
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            initialization_options={"tensorshape": {"show_obligations": True}},
        )
    )
    lsp_client.root = root  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def _published(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    return await settled(client, uri, 1)


@pytest.mark.lsp
async def test_server_applies_configuration_and_editor_settings(client: LanguageClient) -> None:
    root: Path = client.root  # type: ignore[attr-defined]
    uri = (root / "model.py").as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=SOURCE)
        )
    )
    diags = {str(d.code): d for d in await _published(client, uri)}
    assert diags["TS101"].severity == types.DiagnosticSeverity.Warning  # severity from pyproject.toml
    assert diags["TS901"].range.start.line == 10  # show_obligations from initializationOptions

    # Each message replaces the editor's settings: obligations are off again, TS101 is turned off.
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"tensorshape": {"disable": ["TS101"]}})
    )
    assert await _published(client, uri) == []

    # Clients that send an empty configuration (Neovim does after start-up) change nothing.
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"tensorshape": {}}))
    assert [d.code for d in await _published(client, uri)] == ["TS101"]

    # An excluded file gets no diagnostics; a bad setting is shown and the others still apply.
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"tensorshape": {"exclude": ["model.py"], "enable": ["TS999"]}})
    )
    assert await _published(client, uri) == []
    (message,) = client.messages  # sent before the diagnostics
    assert message.type == types.MessageType.Warning and "TS999" in message.message
