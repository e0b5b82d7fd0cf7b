// Stand-ins for the `vscode` module (only VS Code provides it) and for `vscode-languageclient/node` (whose
// LanguageClient needs a running VS Code): they record what the extension asks of them.  Importing this
// module installs them; import it before the extension.

import Module from "node:module";

export interface Recorded {
  commands: Map<string, (...args: unknown[]) => unknown>;
  configuration: Record<string, unknown>;
  configurationListeners: ((e: { affectsConfiguration(section: string): boolean }) => void)[];
  workspaceFolders: { uri: { fsPath: string }; name: string; index: number }[] | undefined;
  /** The Python extension's API, or undefined when it is not installed. */
  python: { interpreter: string | undefined; listeners: (() => void)[] } | undefined;
  errors: string[];
  output: string[];
  statusBar: FakeStatusBarItem[];
  clients: FakeLanguageClient[];
  /** Make the next client's start fail with this message. */
  failStart: string | undefined;
}

export const recorded: Recorded = {
  commands: new Map(),
  configuration: {},
  configurationListeners: [],
  workspaceFolders: undefined,
  python: undefined,
  errors: [],
  output: [],
  statusBar: [],
  clients: [],
  failStart: undefined,
};

export function reset(): void {
  recorded.commands.clear();
  recorded.configuration = {};
  recorded.configurationListeners = [];
  recorded.workspaceFolders = undefined;
  recorded.python = undefined;
  recorded.errors = [];
  recorded.output = [];
  recorded.statusBar = [];
  recorded.clients = [];
  recorded.failStart = undefined;
}

/** Change settings the way the user does: the listeners hear which sections changed. */
export function changeConfiguration(values: Record<string, unknown>): void {
  Object.assign(recorded.configuration, values);
  const changed = Object.keys(values).map((k) => `tensorshape.${k}`);
  const event = {
    affectsConfiguration: (section: string) =>
      changed.some((c) => c === section || c.startsWith(`${section}.`) || section.startsWith(`${c}.`)),
  };
  for (const l of recorded.configurationListeners) l(event);
}

const disposable = { dispose: () => undefined };

class FakeStatusBarItem {
  text = "";
  tooltip = "";
  name = "";
  command = "";
  visible = false;
  disposed = false;
  constructor(
    readonly id: string,
    readonly alignment: number,
  ) {}
  show(): void {
    this.visible = true;
  }
  dispose(): void {
    this.disposed = true;
  }
}

function channel(name: string) {
  const line = (level: string) => (message: string) => recorded.output.push(`[${level}] ${message}`);
  return {
    name,
    info: line("info"),
    warn: line("warn"),
    error: line("error"),
    trace: line("trace"),
    debug: line("debug"),
    appendLine: line("info"),
    show: () => undefined,
    dispose: () => undefined,
  };
}

const vscode = {
  StatusBarAlignment: { Left: 1, Right: 2 },
  window: {
    createOutputChannel: (name: string, options?: { log: boolean }) => {
      if (!options?.log) throw new Error("the extension logs to a LogOutputChannel");
      return channel(name);
    },
    createStatusBarItem: (id: string, alignment: number) => {
      const item = new FakeStatusBarItem(id, alignment);
      recorded.statusBar.push(item);
      return item;
    },
    showErrorMessage: (message: string) => {
      recorded.errors.push(message);
      return Promise.resolve(undefined);
    },
  },
  commands: {
    registerCommand: (id: string, fn: (...args: unknown[]) => unknown) => {
      if (recorded.commands.has(id)) throw new Error(`command ${id} registered twice`);
      recorded.commands.set(id, fn);
      return { dispose: () => recorded.commands.delete(id) };
    },
  },
  workspace: {
    get workspaceFolders() {
      return recorded.workspaceFolders;
    },
    getConfiguration: (section: string) => {
      if (section !== "tensorshape") throw new Error(`unexpected section ${section}`);
      return { get: (key: string) => recorded.configuration[key] };
    },
    onDidChangeConfiguration: (listener: Recorded["configurationListeners"][number]) => {
      recorded.configurationListeners.push(listener);
      return disposable;
    },
  },
  extensions: {
    getExtension: (id: string) => {
      const python = recorded.python;
      if (id !== "ms-python.python" || python === undefined) return undefined;
      const exports = {
        environments: {
          getActiveEnvironmentPath: () => ({ id: "env", path: python.interpreter ?? "" }),
          resolveEnvironment: async (env: { path: string }) =>
            env.path ? { executable: { uri: { fsPath: env.path } } } : undefined,
          onDidChangeActiveEnvironmentPath: (listener: () => void) => {
            python.listeners.push(listener);
            return disposable;
          },
        },
      };
      return { isActive: false, exports: undefined, activate: async () => exports };
    },
  },
};

// vscode-languageclient's State and the members of LanguageClient the extension uses.
const State = { Stopped: 1, Starting: 3, Running: 2 };

export class FakeLanguageClient {
  running = false;
  stopped = false;
  disposed = false;
  notifications: { method: string; params: unknown }[] = [];
  initializeResult: { serverInfo: { name: string; version: string } } | undefined;
  private stateListeners: ((e: { oldState: number; newState: number }) => void)[] = [];
  constructor(
    readonly id: string,
    readonly name: string,
    readonly serverOptions: { command: string; args: string[]; options: { cwd?: string; env: Record<string, string> } },
    readonly clientOptions: Record<string, unknown>,
  ) {
    recorded.clients.push(this);
  }
  onDidChangeState(listener: (e: { oldState: number; newState: number }) => void) {
    this.stateListeners.push(listener);
    return disposable;
  }
  private setState(newState: number): void {
    for (const l of this.stateListeners) l({ oldState: State.Starting, newState });
  }
  async start(): Promise<void> {
    if (recorded.failStart !== undefined) {
      const message = recorded.failStart;
      recorded.failStart = undefined;
      this.setState(State.Stopped);
      throw new Error(message);
    }
    this.running = true;
    this.initializeResult = { serverInfo: { name: "tensorshape", version: "0.1.0" } };
    this.setState(State.Running);
  }
  isRunning(): boolean {
    return this.running;
  }
  async stop(): Promise<void> {
    this.running = false;
    this.stopped = true;
    this.setState(State.Stopped);
  }
  async dispose(): Promise<void> {
    this.disposed = true;
  }
  async sendNotification(type: { method: string }, params: unknown): Promise<void> {
    this.notifications.push({ method: type.method, params });
  }
}

const languageclient = {
  LanguageClient: FakeLanguageClient,
  State,
  RevealOutputChannelOn: { Debug: 0, Info: 1, Warn: 2, Error: 3, Never: 4 },
  DidChangeConfigurationNotification: { type: { method: "workspace/didChangeConfiguration" } },
};

type Load = (request: string, parent: unknown, isMain: boolean) => unknown;
const moduleWithLoad = Module as unknown as { _load: Load };
const load = moduleWithLoad._load;
/** While loading the real client: a `vscode` whose every member is some class (enough to load it). */
let permissive = false;
const anyClass = (): unknown =>
  new Proxy(class {}, { get: (t, k) => (k in t ? (t as unknown as Record<string | symbol, unknown>)[k] : anyClass()) });
moduleWithLoad._load = function (request: string, parent: unknown, isMain: boolean) {
  if (request === "vscode") return permissive ? new Proxy({}, { get: () => anyClass() }) : vscode;
  if (request === "vscode-languageclient/node" && !permissive) return languageclient;
  return load.call(this, request, parent, isMain);
};

/** Load `request` (a module, or a file) for real, with a `vscode` that has every member. */
export function loadForReal(request: string): Record<string, unknown> {
  permissive = true;
  try {
    return moduleWithLoad._load(request, module, false) as Record<string, unknown>;
  } finally {
    permissive = false;
  }
}

/** The real `vscode-languageclient/node` and the stand-in, to compare the constants the extension uses. */
export function languageClientModules(): { real: Record<string, unknown>; fake: Record<string, unknown> } {
  return { real: loadForReal("vscode-languageclient/node"), fake: languageclient };
}
