// How settings become the server's command line and options (no VS Code needed).

import assert from "node:assert/strict";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import {
  type Environment,
  canImport,
  expandPath,
  launch,
  readSettings,
  resolveServerCommand,
  serverOptions,
  which,
} from "../src/settings";
import { testPython } from "./python";

function config(values: Record<string, unknown>) {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

const defaults = readSettings(config({}));

function env(over: Partial<Environment> & { onPath?: Record<string, string> } = {}): Environment & { logged: string[] } {
  const logged: string[] = [];
  return {
    workspaceFolder: "/work/proj",
    activeInterpreter: async () => undefined,
    canImport: async () => true,
    which: (name) => over.onPath?.[name],
    log: (m) => logged.push(m),
    logged,
    ...over,
  };
}

describe("settings", () => {
  it("reads defaults that leave everything to pyproject.toml", () => {
    assert.deepEqual(defaults, {
      path: "",
      interpreter: "",
      enable: [],
      disable: [],
      severity: {},
      showObligations: false,
      vollo: null,
      allowDynamicWeights: null,
      bareTypeIgnore: null,
      exclude: [],
    });
    assert.deepEqual(serverOptions(defaults), { tensorshape: {} });
  });

  it("sends the keys of [tool.tensorshape] that were set", () => {
    const s = readSettings(
      config({
        enable: ["unknown-op", ""],
        disable: "TS104",
        severity: { TS101: "warning" },
        showObligations: true,
        vollo: false,
        allowDynamicWeights: true,
        exclude: ["generated/*"],
        path: "  ",
      }),
    );
    assert.equal(s.path, "");
    assert.deepEqual(serverOptions(s), {
      tensorshape: {
        enable: ["unknown-op"],
        disable: ["TS104"],
        severity: { TS101: "warning" },
        show_obligations: true,
        vollo: false,
        allow_dynamic_weights: true,
        exclude: ["generated/*"],
      },
    });
  });

  it("ignores values of the wrong type", () => {
    const s = readSettings(config({ enable: 3, severity: ["TS101"], vollo: "yes", showObligations: "true" }));
    assert.deepEqual(serverOptions(s), { tensorshape: {} });
  });

  it("expands ~, ${workspaceFolder} and relative paths", () => {
    assert.equal(expandPath("~/bin/tensorshape", "/w", "/home/u"), "/home/u/bin/tensorshape");
    assert.equal(expandPath("${workspaceFolder}/.venv/bin/python", "/w", "/home/u"), "/w/.venv/bin/python");
    assert.equal(expandPath("${userHome}/py", undefined, "/home/u"), "/home/u/py");
    assert.equal(expandPath(".venv/bin/python", "/w", "/home/u"), path.join("/w", ".venv/bin/python"));
    assert.equal(expandPath("python3.12", "/w", "/home/u"), "python3.12"); // a bare name is looked up on PATH
  });
});

describe("server command", () => {
  it("uses tensorshape.path first", async () => {
    const s = { ...defaults, path: "~/bin/tensorshape", interpreter: "/usr/bin/python3" };
    const cmd = await resolveServerCommand(s, env({ activeInterpreter: async () => "/venv/bin/python" }));
    assert.equal(cmd.command, path.join(os.homedir(), "bin/tensorshape"));
    assert.deepEqual(cmd.args, ["lsp"]);
    assert.equal(cmd.source, "tensorshape.path");
  });

  it("then tensorshape.interpreter, as given even if it cannot import tensorshape", async () => {
    const s = { ...defaults, interpreter: "${workspaceFolder}/.venv/bin/python" };
    const cmd = await resolveServerCommand(s, env({ canImport: async () => false }));
    assert.deepEqual(cmd, {
      command: "/work/proj/.venv/bin/python",
      args: ["-m", "tensorshape.lsp"],
      source: "tensorshape.interpreter",
    });
  });

  it("then the Python extension's interpreter when it has tensorshape", async () => {
    const asked: string[] = [];
    const e = env({
      activeInterpreter: async () => "/venv/bin/python",
      canImport: async (p) => (asked.push(p), true),
      onPath: { tensorshape: "/usr/local/bin/tensorshape" },
    });
    const cmd = await resolveServerCommand(defaults, e);
    assert.deepEqual(cmd, {
      command: "/venv/bin/python",
      args: ["-m", "tensorshape.lsp"],
      source: "the Python extension's interpreter",
    });
    assert.deepEqual(asked, ["/venv/bin/python"]);
  });

  it("then tensorshape on PATH, saying why the interpreter was passed over", async () => {
    const e = env({
      activeInterpreter: async () => "/venv/bin/python",
      canImport: async () => false,
      onPath: { tensorshape: "/usr/local/bin/tensorshape", python3: "/usr/bin/python3" },
    });
    const cmd = await resolveServerCommand(defaults, e);
    assert.deepEqual(cmd, { command: "/usr/local/bin/tensorshape", args: ["lsp"], source: "tensorshape on PATH" });
    assert.match(e.logged.join("\n"), /\/venv\/bin\/python cannot import tensorshape\.lsp/);
  });

  it("then python3 -m tensorshape.lsp", async () => {
    const cmd = await resolveServerCommand(defaults, env({ onPath: { python3: "/usr/bin/python3" } }));
    assert.deepEqual(cmd, { command: "/usr/bin/python3", args: ["-m", "tensorshape.lsp"], source: "python3 on PATH" });
    const bare = await resolveServerCommand(defaults, env());
    assert.equal(bare.command, "python3");
  });

  it("launches over stdio with unbuffered output in the workspace folder", () => {
    const l = launch({ command: "/p", args: ["lsp"], source: "x" }, "/w", { PATH: "/bin" });
    assert.deepEqual(l, { command: "/p", args: ["lsp"], options: { cwd: "/w", env: { PATH: "/bin", PYTHONUNBUFFERED: "1" } } });
  });

  it("finds executables on PATH without a shell", () => {
    const seen: string[] = [];
    const found = which("tensorshape", ["/a", "", "/b"].join(path.delimiter), (p) => (seen.push(p), p === path.join("/b", "tensorshape")));
    assert.equal(found, path.join("/b", "tensorshape"));
    assert.deepEqual(seen, [path.join("/a", "tensorshape"), path.join("/b", "tensorshape")]);
    assert.equal(which("tensorshape", "/a", () => false), undefined);
    assert.ok(which("node")); // this very process's interpreter is on PATH
  });

  it("checks that an interpreter can import the server", async () => {
    assert.equal(await canImport(testPython()), true);
    assert.equal(await canImport(process.execPath), false); // node is no Python
    assert.equal(await canImport("/nonexistent/python"), false);
  });
});
