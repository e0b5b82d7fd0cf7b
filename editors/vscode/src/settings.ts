// How the extension turns its settings into a server command line and the server's options.
// Nothing here imports `vscode`: the unit tests run it under plain node.

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** The extension's settings (`tensorshape.*`), read once per start or change. */
export interface Settings {
  path: string;
  interpreter: string;
  enable: string[];
  disable: string[];
  severity: Record<string, string>;
  showObligations: boolean;
  vollo: boolean | null;
  allowDynamicWeights: boolean | null;
  bareTypeIgnore: boolean | null;
  exclude: string[];
}

/** What `vscode.workspace.getConfiguration("tensorshape")` offers (and what the tests give instead). */
export interface ConfigurationLike {
  get<T>(key: string): T | undefined;
}

/** Settings that need a new server process when they change. */
export const LAUNCH_SETTINGS = ["path", "interpreter"] as const;

/** Settings sent to the running server when they change (`tensorshape.trace.server` is the client's). */
export const SERVER_SETTINGS = [
  "enable",
  "disable",
  "severity",
  "showObligations",
  "vollo",
  "allowDynamicWeights",
  "bareTypeIgnore",
  "exclude",
] as const;

function strings(value: unknown): string[] {
  if (typeof value === "string") {
    return value ? [value] : [];
  }
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v !== "") : [];
}

function optionalBool(value: unknown): boolean | null {
  return typeof value === "boolean" ? value : null;
}

export function readSettings(cfg: ConfigurationLike): Settings {
  const severity = cfg.get<unknown>("severity");
  return {
    path: (cfg.get<string>("path") ?? "").trim(),
    interpreter: (cfg.get<string>("interpreter") ?? "").trim(),
    enable: strings(cfg.get("enable")),
    disable: strings(cfg.get("disable")),
    severity:
      severity && typeof severity === "object" && !Array.isArray(severity)
        ? Object.fromEntries(Object.entries(severity).map(([k, v]) => [k, String(v)]))
        : {},
    showObligations: cfg.get<boolean>("showObligations") === true,
    vollo: optionalBool(cfg.get("vollo")),
    allowDynamicWeights: optionalBool(cfg.get("allowDynamicWeights")),
    bareTypeIgnore: optionalBool(cfg.get("bareTypeIgnore")),
    exclude: strings(cfg.get("exclude")),
  };
}

/** The server's options: the keys of `[tool.tensorshape]` (snake_case), sent as `initializationOptions`
 * and in `workspace/didChangeConfiguration`.  A setting left at its default is not sent, so the project's
 * `pyproject.toml` decides. */
export function serverOptions(s: Settings): { tensorshape: Record<string, unknown> } {
  const out: Record<string, unknown> = {};
  if (s.enable.length) out.enable = s.enable;
  if (s.disable.length) out.disable = s.disable;
  if (Object.keys(s.severity).length) out.severity = s.severity;
  if (s.showObligations) out.show_obligations = true;
  if (s.vollo !== null) out.vollo = s.vollo;
  if (s.allowDynamicWeights !== null) out.allow_dynamic_weights = s.allowDynamicWeights;
  if (s.bareTypeIgnore !== null) out.bare_type_ignore = s.bareTypeIgnore;
  if (s.exclude.length) out.exclude = s.exclude;
  return { tensorshape: out };
}

/** `~` and `${workspaceFolder}`/`${userHome}` in a configured path; relative paths from the workspace. */
export function expandPath(p: string, workspaceFolder: string | undefined, home: string = os.homedir()): string {
  let out = p.replace(/\$\{userHome\}/g, home);
  if (workspaceFolder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
  }
  if (out === "~" || out.startsWith("~/")) {
    out = home + out.slice(1);
  }
  if (workspaceFolder !== undefined && (out.includes("/") || out.includes("\\")) && !path.isAbsolute(out)) {
    out = path.join(workspaceFolder, out);
  }
  return out;
}

/** A server command line and where it came from (shown in the output channel and the status bar). */
export interface ServerCommand {
  command: string;
  args: string[];
  source: string;
}

/** What resolving the command needs from the editor and the machine (the tests give their own). */
export interface Environment {
  workspaceFolder?: string;
  /** The interpreter selected in the Python extension, if that extension is installed. */
  activeInterpreter(): Promise<string | undefined>;
  /** Whether `python` can import the server (`tensorshape.lsp` and its dependency pygls). */
  canImport(python: string): Promise<boolean>;
  /** An executable on PATH, or undefined. */
  which(name: string): string | undefined;
  log(message: string): void;
}

const MODULE_ARGS = ["-m", "tensorshape.lsp"];

/** The server command: `tensorshape.path`, else `tensorshape.interpreter`, else the Python extension's
 * interpreter (when it has tensorshape), else `tensorshape` on PATH, else `python3 -m tensorshape.lsp`.
 * An explicit setting is used as given: a broken one fails visibly rather than being skipped. */
export async function resolveServerCommand(s: Settings, env: Environment): Promise<ServerCommand> {
  if (s.path) {
    return { command: expandPath(s.path, env.workspaceFolder), args: ["lsp"], source: "tensorshape.path" };
  }
  if (s.interpreter) {
    return {
      command: expandPath(s.interpreter, env.workspaceFolder),
      args: MODULE_ARGS,
      source: "tensorshape.interpreter",
    };
  }
  const active = await env.activeInterpreter();
  if (active) {
    if (await env.canImport(active)) {
      return { command: active, args: MODULE_ARGS, source: "the Python extension's interpreter" };
    }
    env.log(`The selected interpreter ${active} cannot import tensorshape.lsp (pip install "tensorshape[lsp]").`);
  }
  const onPath = env.which("tensorshape");
  if (onPath) {
    return { command: onPath, args: ["lsp"], source: "tensorshape on PATH" };
  }
  return { command: env.which("python3") ?? "python3", args: MODULE_ARGS, source: "python3 on PATH" };
}

/** The executable the language client starts (stdio, the default transport): the shape of
 * `vscode-languageclient`'s `Executable`. */
export interface Launch {
  command: string;
  args: string[];
  options: { cwd?: string; env: NodeJS.ProcessEnv };
}

export function launch(cmd: ServerCommand, cwd: string | undefined, env: NodeJS.ProcessEnv = process.env): Launch {
  // Unbuffered output: the protocol runs over the server's stdout.
  return { command: cmd.command, args: cmd.args, options: { cwd, env: { ...env, PYTHONUNBUFFERED: "1" } } };
}

/** Look `name` up on PATH (no shell involved). */
export function which(name: string, pathVar: string | undefined = process.env.PATH, exists = isExecutable): string | undefined {
  const exts = process.platform === "win32" ? (process.env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of (pathVar ?? "").split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (exists(candidate)) return candidate;
    }
  }
  return undefined;
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Whether `python` can import the server (`tensorshape.lsp` and pygls, its `lsp` extra). */
export function canImport(python: string, timeoutMs = 20000): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(python, ["-c", "import tensorshape.lsp, pygls"], { timeout: timeoutMs }, (err) => resolve(!err));
  });
}
