// The tensorshape extension: starts `tensorshape lsp` over stdio with vscode-languageclient, keeps its
// settings in step with the server, and shows the server's state in the status bar.

import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  type LanguageClientOptions,
  LanguageClient,
  RevealOutputChannelOn,
  State,
} from "vscode-languageclient/node";
import { activeInterpreter, onDidChangeInterpreter } from "./python";
import {
  canImport,
  LAUNCH_SETTINGS,
  launch,
  readSettings,
  resolveServerCommand,
  SERVER_SETTINGS,
  type ServerCommand,
  serverOptions,
  which,
} from "./settings";

export const CLIENT_ID = "tensorshape";

function workspaceFolder(): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.workspaceFolders?.[0];
}

function settings() {
  return readSettings(vscode.workspace.getConfiguration("tensorshape", workspaceFolder()?.uri));
}

/** One server for the window (its first workspace folder is the project root). */
export class Controller implements vscode.Disposable {
  readonly output: vscode.LogOutputChannel;
  readonly status: vscode.StatusBarItem;
  client: LanguageClient | undefined;
  command: ServerCommand | undefined;
  /** Start and stop one after the other (a restart during a start waits for it). */
  private queue: Promise<void> = Promise.resolve();
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    this.output = vscode.window.createOutputChannel("tensorshape", { log: true });
    this.status = vscode.window.createStatusBarItem("tensorshape.status", vscode.StatusBarAlignment.Right, 100);
    this.status.name = "tensorshape";
    this.status.command = "tensorshape.showOutput";
    this.setStatus("$(circle-outline)", "not started");
    this.status.show();
    this.disposables.push(
      vscode.commands.registerCommand("tensorshape.restart", () => this.restart()),
      vscode.commands.registerCommand("tensorshape.showOutput", () => this.output.show(true)),
      vscode.workspace.onDidChangeConfiguration((e) => this.configurationChanged(e)),
    );
  }

  private setStatus(icon: string, state: string): void {
    this.status.text = `${icon} tensorshape`;
    const cmd = this.command ? `\n\n${[this.command.command, ...this.command.args].join(" ")} (${this.command.source})` : "";
    this.status.tooltip = `tensorshape: ${state}${cmd}\n\nClick for the output.`;
  }

  start(): Promise<void> {
    return this.enqueue(() => this.doStart());
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  restart(): Promise<void> {
    this.output.info("Restarting the server.");
    return this.enqueue(async () => {
      await this.doStop();
      await this.doStart();
    });
  }

  /** Resolves when the starts and stops asked for so far are done. */
  whenIdle(): Promise<void> {
    return this.queue;
  }

  private enqueue(step: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(step, step);
    return this.queue;
  }

  private async doStart(): Promise<void> {
    const s = settings();
    const folder = workspaceFolder();
    this.setStatus("$(sync~spin)", "starting");
    this.command = await resolveServerCommand(s, {
      workspaceFolder: folder?.uri.fsPath,
      activeInterpreter: () => activeInterpreter(folder?.uri),
      canImport: (python) => canImport(python),
      which: (name) => which(name),
      log: (message) => this.output.warn(message),
    });
    const server = launch(this.command, folder?.uri.fsPath);
    this.output.info(`Starting ${[server.command, ...server.args].join(" ")} (from ${this.command.source})`);
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "python" },
        { scheme: "untitled", language: "python" },
      ],
      initializationOptions: serverOptions(s),
      outputChannel: this.output,
      traceOutputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
    };
    const client = new LanguageClient(CLIENT_ID, "tensorshape", server, clientOptions);
    this.client = client;
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        const version = client.initializeResult?.serverInfo?.version;
        this.setStatus("$(check)", `running${version ? ` (tensorshape ${version})` : ""}`);
      } else if (e.newState === State.Stopped) {
        this.setStatus("$(error)", "stopped");
      }
    });
    try {
      await client.start();
    } catch (err) {
      this.setStatus("$(error)", "failed to start");
      this.output.error(`The server did not start: ${String(err)}`);
      void vscode.window
        .showErrorMessage(
          'tensorshape: the language server did not start. Install it with pip install "tensorshape[lsp]" in the ' +
            "selected interpreter, or set tensorshape.path.",
          "Show Output",
        )
        .then((choice) => (choice ? this.output.show(true) : undefined));
    }
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client === undefined) {
      return;
    }
    try {
      if (client.isRunning()) {
        await client.stop();
      }
    } catch (err) {
      this.output.warn(`Stopping the server: ${String(err)}`);
    }
    await client.dispose().catch(() => undefined);
  }

  configurationChanged(e: vscode.ConfigurationChangeEvent): void {
    const affects = (keys: readonly string[]) => keys.some((k) => e.affectsConfiguration(`tensorshape.${k}`));
    if (affects(LAUNCH_SETTINGS)) {
      void this.restart();
      return;
    }
    const client = this.client;
    if (affects(SERVER_SETTINGS) && client?.isRunning()) {
      // The server reads the whole table again: each message replaces the previous settings.
      void client.sendNotification(DidChangeConfigurationNotification.type, { settings: serverOptions(settings()) });
    }
  }

  /** Restart when the user selects another interpreter, unless a setting names the server explicitly. */
  interpreterChanged(): void {
    const s = settings();
    if (!s.path && !s.interpreter) {
      void this.restart();
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    this.status.dispose();
    this.output.dispose();
  }
}

let controller: Controller | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<Controller> {
  controller = new Controller();
  const c = controller;
  context.subscriptions.push(c);
  const listener = await onDidChangeInterpreter(() => c.interpreterChanged());
  if (listener) {
    context.subscriptions.push(listener);
  }
  await c.start();
  return c;
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}
