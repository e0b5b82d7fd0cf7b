// Start-up against the real server: the command line and options are built by the extension's own code
// (settings -> resolveServerCommand -> launch, serverOptions), the process is spawned over stdio as the
// language client spawns it, and the protocol is spoken with vscode-jsonrpc (what the client uses).

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import {
  type MessageConnection,
  NotificationType,
  RequestType,
  StreamMessageReader,
  StreamMessageWriter,
  createMessageConnection,
} from "vscode-jsonrpc/node";
import { type Settings, canImport, launch, readSettings, resolveServerCommand, serverOptions, which } from "../src/settings";
import { testPython } from "./python";

const MODEL = `import torch
from jaxtyping import Float
from torch import Tensor


def proj(x: Float[Tensor, "b 16"]) -> Float[Tensor, "b 4"]:
    return x @ torch.randn(16, 4)


def caller(x):
    return proj(x)


y = torch.zeros(2, 3) @ torch.zeros(4, 5)
`;

interface Diagnostic {
  range: { start: { line: number; character: number } };
  severity: number;
  code: string;
  source: string;
  message: string;
}
interface Published {
  uri: string;
  diagnostics: Diagnostic[];
}

const publishDiagnostics = new NotificationType<Published>("textDocument/publishDiagnostics");
const logMessage = new NotificationType<{ type: number; message: string }>("window/logMessage");

class Session {
  readonly connection: MessageConnection;
  readonly published: Published[] = [];
  readonly messages: { type: number; message: string }[] = [];
  readonly logs: string[] = [];
  private waiters: (() => void)[] = [];
  readonly exited: Promise<number | null>;
  stderr = "";

  constructor(readonly proc: ChildProcess) {
    this.connection = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    this.connection.onNotification(publishDiagnostics, (p) => {
      this.published.push(p);
      for (const w of this.waiters.splice(0)) w();
    });
    this.connection.onNotification("window/showMessage", (p: { type: number; message: string }) => {
      this.messages.push(p);
    });
    this.connection.onNotification(logMessage, (p) => {
      this.logs.push(p.message);
      for (const w of this.waiters.splice(0)) w();
    });
    this.connection.onRequest(() => null); // registrations, progress: accepted
    proc.stderr!.on("data", (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => proc.on("exit", (code) => resolve(code)));
    this.connection.listen();
  }

  /**
   * The diagnostics of `uri` once the server has next finished analysing `version`: the server ends each
   * version's analysis with a log line sent after its last publication (a newly opened file's first
   * publication may hold only part of its diagnostics).
   */
  async diagnostics(uri: string, version: number, timeoutMs = 60000): Promise<Diagnostic[]> {
    const prefix = `tensorshape: ${fileURLToPath(uri)} version ${version}: `;
    const seen = this.logs.length;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.logs.slice(seen).some((m) => m.startsWith(prefix))) {
        const last = this.published.filter((p) => p.uri === uri).pop();
        return last ? last.diagnostics : [];
      }
      if (Date.now() > deadline) throw new Error(`no analysis of ${uri} settled; server stderr:\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 1000);
      });
    }
  }
}

/** Start the server exactly as the extension does for `settings`, in `folder`. */
async function startAsTheExtensionDoes(settings: Settings, folder: string): Promise<Session> {
  const cmd = await resolveServerCommand(settings, {
    workspaceFolder: folder,
    activeInterpreter: async () => undefined,
    canImport: (p) => canImport(p),
    which: (n) => which(n),
    log: () => undefined,
  });
  const l = launch(cmd, folder);
  return new Session(spawn(l.command, l.args, { cwd: l.options.cwd, env: l.options.env, stdio: "pipe" }));
}

async function initialize(s: Session, folder: string, settings: Settings): Promise<{ serverInfo?: { name: string } }> {
  const uri = pathToFileURL(folder).href;
  const result = await s.connection.sendRequest(new RequestType<unknown, { serverInfo?: { name: string } }, void>("initialize"), {
    processId: process.pid,
    rootUri: uri,
    workspaceFolders: [{ uri, name: path.basename(folder) }],
    capabilities: { textDocument: { publishDiagnostics: {}, hover: {}, inlayHint: {} }, workspace: { configuration: true } },
    initializationOptions: serverOptions(settings),
  });
  await s.connection.sendNotification("initialized", {});
  return result;
}

async function shutdown(s: Session): Promise<number | null> {
  await s.connection.sendRequest("shutdown");
  await s.connection.sendNotification("exit");
  return s.exited;
}

describe("the real server, started as the extension starts it", () => {
  let folder = "";
  before(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), "tensorshape-vscode-"));
    fs.writeFileSync(path.join(folder, "pyproject.toml"), '[tool.tensorshape]\nseverity = { TS101 = "warning" }\n');
    fs.writeFileSync(path.join(folder, "model.py"), MODEL);
  });
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  it("publishes diagnostics for a shape bug and follows settings changes", async () => {
    const settings = { ...readSettings({ get: () => undefined }), interpreter: testPython(), showObligations: true };
    const s = await startAsTheExtensionDoes(settings, folder);
    try {
      const result = await initialize(s, folder, settings);
      assert.equal(result.serverInfo?.name, "tensorshape");
      const uri = pathToFileURL(path.join(folder, "model.py")).href;
      await s.connection.sendNotification("textDocument/didOpen", {
        textDocument: { uri, languageId: "python", version: 1, text: MODEL },
      });
      const diags = await s.diagnostics(uri, 1);
      const byCode = new Map(diags.map((d) => [d.code, d]));
      const bug = byCode.get("TS101");
      assert.ok(bug, JSON.stringify(diags));
      assert.deepEqual(bug.range.start, { line: 13, character: 24 }); // torch.zeros(4, 5)
      assert.equal(bug.severity, 2); // a warning: severity from pyproject.toml
      assert.equal(bug.source, "tensorshape");
      assert.match(bug.message, /inner dims differ \(3 vs 4\)/);
      assert.equal(byCode.get("TS901")?.range.start.line, 10); // showObligations from the settings

      // A settings change as the extension sends it: TS101 off, obligations no longer shown.
      const changed = { ...settings, showObligations: false, disable: ["shape-mismatch"] };
      await s.connection.sendNotification("workspace/didChangeConfiguration", { settings: serverOptions(changed) });
      assert.deepEqual(await s.diagnostics(uri, 1), []);
      assert.deepEqual(s.messages, []);
    } finally {
      assert.equal(await shutdown(s), 0, s.stderr);
    }
  });

  it("runs the tensorshape executable named by tensorshape.path", async (t) => {
    const exe = path.join(path.dirname(testPython()), "tensorshape");
    if (!fs.existsSync(exe)) {
      t.skip(`no ${exe}`);
      return;
    }
    const settings = { ...readSettings({ get: () => undefined }), path: exe };
    const s = await startAsTheExtensionDoes(settings, folder);
    try {
      await initialize(s, folder, settings);
      const uri = pathToFileURL(path.join(folder, "other.py")).href;
      await s.connection.sendNotification("textDocument/didOpen", {
        textDocument: { uri, languageId: "python", version: 1, text: "import torch\nz = torch.zeros(2, 3) @ torch.zeros(4, 5)\n" },
      });
      assert.deepEqual((await s.diagnostics(uri, 1)).map((d) => [d.code, d.range.start.line]), [["TS101", 1]]);
    } finally {
      assert.equal(await shutdown(s), 0, s.stderr);
    }
  });
});
