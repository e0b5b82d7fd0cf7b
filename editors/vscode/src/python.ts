// The interpreter selected in the Python extension (ms-python.python), through its public API, when that
// extension is installed.  Only the few members used are declared here.

import * as vscode from "vscode";

interface EnvironmentPath {
  id: string;
  path: string;
}

interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): EnvironmentPath;
    resolveEnvironment(
      env: EnvironmentPath | string,
    ): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
  settings?: {
    getExecutionDetails(resource?: vscode.Uri): { execCommand: string[] | undefined };
  };
}

export const PYTHON_EXTENSION_ID = "ms-python.python";

async function api(): Promise<PythonApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION_ID);
  if (ext === undefined) {
    return undefined;
  }
  try {
    return ext.isActive ? ext.exports : await ext.activate();
  } catch {
    return undefined;
  }
}

/** The active interpreter's executable for `resource`'s workspace folder, or undefined. */
export async function activeInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const python = await api();
  if (python?.environments) {
    const env = await python.environments.resolveEnvironment(python.environments.getActiveEnvironmentPath(resource));
    const exe = env?.executable.uri?.fsPath;
    if (exe) {
      return exe;
    }
  }
  // Older releases of the Python extension.
  const cmd = python?.settings?.getExecutionDetails(resource).execCommand;
  return cmd && cmd.length === 1 ? cmd[0] : undefined;
}

/** Call `listener` when the user selects another interpreter. */
export async function onDidChangeInterpreter(listener: () => void): Promise<vscode.Disposable | undefined> {
  const python = await api();
  return python?.environments?.onDidChangeActiveEnvironmentPath(() => listener());
}
