// The extension's activation, commands, status bar and settings changes, with `vscode` and the language
// client stood in for (test/mocks.ts).

import { type FakeLanguageClient, changeConfiguration, languageClientModules, loadForReal, recorded, reset } from "./mocks";

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import * as ext from "../src/extension";
import { testPython } from "./python";

const subscriptions: { dispose(): unknown }[] = [];
const context = { subscriptions } as unknown as Parameters<typeof ext.activate>[0];

function lastClient(): FakeLanguageClient {
  const c = recorded.clients.at(-1);
  assert.ok(c, "no language client was created");
  return c;
}

let controller: ext.Controller | undefined;

async function activate(): Promise<ext.Controller> {
  controller = await ext.activate(context);
  return controller;
}

/** Wait for the restarts a change asked for. */
async function settle(): Promise<void> {
  await controller?.whenIdle();
}

describe("extension", () => {
  beforeEach(() => {
    reset();
    recorded.workspaceFolders = [{ uri: { fsPath: "/work/proj" }, name: "proj", index: 0 }];
  });
  afterEach(async () => {
    await ext.deactivate();
    for (const d of subscriptions.splice(0)) d.dispose();
  });

  it("starts the server from the Python extension's interpreter with the settings as options", async () => {
    const python = testPython();
    recorded.python = { interpreter: python, listeners: [] };
    recorded.configuration = { showObligations: true, disable: ["TS104"], vollo: null };
    await activate();

    const c = lastClient();
    assert.equal(c.id, "tensorshape"); // the id that `tensorshape.trace.server` belongs to
    assert.equal(c.serverOptions.command, python);
    assert.deepEqual(c.serverOptions.args, ["-m", "tensorshape.lsp"]);
    assert.equal(c.serverOptions.options.cwd, "/work/proj");
    assert.equal(c.serverOptions.options.env.PYTHONUNBUFFERED, "1");
    assert.deepEqual(c.clientOptions.initializationOptions, {
      tensorshape: { disable: ["TS104"], show_obligations: true },
    });
    assert.deepEqual(c.clientOptions.documentSelector, [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
    ]);
    assert.ok(c.running);
    assert.deepEqual([...recorded.commands.keys()].sort(), ["tensorshape.restart", "tensorshape.showOutput"]);

    const [status] = recorded.statusBar;
    assert.equal(status.text, "$(check) tensorshape");
    assert.match(status.tooltip, /running \(tensorshape 0\.1\.0\)/);
    assert.match(status.tooltip, /-m tensorshape\.lsp \(the Python extension's interpreter\)/);
    assert.equal(status.command, "tensorshape.showOutput");
    assert.ok(status.visible);
    assert.match(recorded.output.join("\n"), /Starting .*-m tensorshape\.lsp/);
  });

  it("sends changed settings to the running server and restarts for a new command", async () => {
    recorded.configuration = { path: "/opt/tensorshape/bin/tensorshape" };
    await activate();
    const first = lastClient();
    assert.deepEqual([first.serverOptions.command, ...first.serverOptions.args], ["/opt/tensorshape/bin/tensorshape", "lsp"]);

    changeConfiguration({ enable: ["unknown-op"], severity: { TS101: "warning" } });
    await settle();
    assert.equal(recorded.clients.length, 1);
    assert.deepEqual(first.notifications, [
      {
        method: "workspace/didChangeConfiguration",
        params: { settings: { tensorshape: { enable: ["unknown-op"], severity: { TS101: "warning" } } } },
      },
    ]);

    changeConfiguration({ "trace.server": "verbose" }); // the client's own setting: nothing to send
    await settle();
    assert.equal(first.notifications.length, 1);

    changeConfiguration({ path: "", interpreter: "/usr/bin/python3" });
    await settle();
    assert.equal(recorded.clients.length, 2);
    assert.ok(first.stopped && first.disposed);
    const second = lastClient();
    assert.deepEqual([second.serverOptions.command, ...second.serverOptions.args], ["/usr/bin/python3", "-m", "tensorshape.lsp"]);
    assert.deepEqual(second.clientOptions.initializationOptions, {
      tensorshape: { enable: ["unknown-op"], severity: { TS101: "warning" } },
    });
  });

  it("restarts on the command and when another interpreter is selected", async () => {
    recorded.python = { interpreter: testPython(), listeners: [] };
    await activate();
    await recorded.commands.get("tensorshape.restart")!();
    assert.equal(recorded.clients.length, 2);
    assert.ok(recorded.clients[0].stopped && lastClient().running);

    recorded.python.listeners.forEach((l) => l());
    await settle();
    assert.equal(recorded.clients.length, 3);

    // An explicit setting names the server: the Python extension's choice does not matter then.
    changeConfiguration({ path: "/opt/bin/tensorshape" });
    await settle();
    assert.equal(recorded.clients.length, 4);
    recorded.python.listeners.forEach((l) => l());
    await settle();
    assert.equal(recorded.clients.length, 4);
  });

  it("says so when the server does not start", async () => {
    recorded.failStart = "spawn /nonexistent/python ENOENT";
    recorded.configuration = { interpreter: "/nonexistent/python" };
    await activate();
    const [status] = recorded.statusBar;
    assert.equal(status.text, "$(error) tensorshape");
    assert.match(status.tooltip, /failed to start/);
    assert.match(recorded.errors.join("\n"), /did not start.*pip install "tensorshape\[lsp\]"/);
    assert.match(recorded.output.join("\n"), /\[error\] The server did not start: Error: spawn \/nonexistent\/python ENOENT/);
    // A restart tries again.
    await recorded.commands.get("tensorshape.restart")!();
    assert.equal(status.text, "$(check) tensorshape");
  });

  it("falls back to PATH when the selected interpreter lacks tensorshape", async () => {
    recorded.python = { interpreter: "/nonexistent/python", listeners: [] };
    await activate();
    const c = lastClient();
    assert.notEqual(c.serverOptions.command, "/nonexistent/python");
    assert.match(recorded.output.join("\n"), /\[warn\] The selected interpreter \/nonexistent\/python cannot import/);
  });

  it("stands in for the real client's constants", () => {
    const { real, fake } = languageClientModules();
    assert.equal(typeof real.LanguageClient, "function");
    for (const name of ["State", "RevealOutputChannelOn"]) {
      const r = real[name] as Record<string, unknown>;
      for (const [k, v] of Object.entries(fake[name] as Record<string, unknown>)) assert.equal(r[k], v, `${name}.${k}`);
    }
    const method = (m: Record<string, unknown>) => (m.DidChangeConfigurationNotification as { type: { method: string } }).type.method;
    assert.equal(method(fake), method(real));
  });

  it("bundles into dist/extension.js with the client inside and vscode outside", () => {
    const file = path.resolve(__dirname, "..", "..", "dist", "extension.js");
    const text = fs.readFileSync(file, "utf8");
    assert.match(text, /require\("vscode"\)/);
    assert.doesNotMatch(text, /require\("vscode-languageclient/);
    const bundle = loadForReal(file);
    assert.equal(typeof bundle.activate, "function");
    assert.equal(typeof bundle.deactivate, "function");
  });

  it("stops the server on deactivation", async () => {
    await activate();
    const c = lastClient();
    await ext.deactivate();
    assert.ok(c.stopped && !c.running);
  });
});
