"""The VS Code extension (editors/vscode): installed from its lock file, type-checked and tested (unit tests
and the real server over stdio, `npm test`), then packaged into a .vsix with vsce, as docs/editors.md says."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import tensorshape

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "editors" / "vscode"

pytestmark = [pytest.mark.editor, pytest.mark.lsp]


def _node_major() -> int | None:
    node = shutil.which("node")
    if node is None or shutil.which("npm") is None:
        return None
    out = subprocess.run([node, "--version"], capture_output=True, text=True, check=False).stdout
    try:
        return int(out.strip().lstrip("v").split(".")[0])
    except ValueError:
        return None


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> str:
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False)
    text = out.stdout + out.stderr
    assert out.returncode == 0, f"{' '.join(cmd)} failed:\n{text}"
    return text


@pytest.mark.skipif((_node_major() or 0) < 20, reason="needs node 20+ and npm (the extension is built with them)")
def test_extension_installs_tests_and_packages(tmp_path: Path) -> None:
    # A copy, so that node_modules, the bundle and the .vsix stay out of the checkout.
    work = tmp_path / "vscode"
    shutil.copytree(
        EXTENSION, work, ignore=shutil.ignore_patterns("node_modules", "dist", "out", "*.vsix")
    )
    env = dict(os.environ, TENSORSHAPE_PYTHON=sys.executable, npm_config_update_notifier="false")
    npm = shutil.which("npm")
    assert npm is not None
    _run([npm, "ci", "--no-audit", "--no-fund"], work, env)
    text = _run([npm, "test"], work, env)
    assert "# fail 0" in text or "ℹ fail 0" in text, text
    assert "publishes diagnostics for a shape bug" in text, text  # the real server was started
    _run([npm, "exec", "--no", "--", "vsce", "package", "--out", "tensorshape.vsix"], work, env)

    with zipfile.ZipFile(work / "tensorshape.vsix") as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
    assert "extension/dist/extension.js" in names
    assert not any("node_modules" in n or n.startswith("extension/src/") for n in names), sorted(names)
    assert manifest["version"] == tensorshape.__version__
    assert {c["command"] for c in manifest["contributes"]["commands"]} == {"tensorshape.restart", "tensorshape.showOutput"}
    settings = manifest["contributes"]["configuration"]["properties"]
    for key in ("path", "interpreter", "enable", "disable", "severity", "showObligations", "vollo", "exclude"):
        assert f"tensorshape.{key}" in settings


def test_settings_cover_the_configuration() -> None:
    """Every key of [tool.tensorshape] that applies to an editor has a VS Code setting, and the server
    accepts every key the extension sends (src/settings.ts maps camelCase to these)."""
    from tensorshape.lsp.settings import CLIENT_KEYS

    properties = json.loads((EXTENSION / "package.json").read_text())["contributes"]["configuration"]["properties"]
    camel = {k.split(".", 1)[1] for k in properties}
    as_sent = {"".join(w if i == 0 else w.title() for i, w in enumerate(k.split("_"))) for k in CLIENT_KEYS}
    assert as_sent <= camel, as_sent - camel
    source = (EXTENSION / "src" / "settings.ts").read_text()
    for key in CLIENT_KEYS:
        assert f"out.{key} =" in source, key
