// The Python interpreter with tensorshape installed that the tests run the server with:
// $TENSORSHAPE_PYTHON (the pytest test sets it), else the checkout's .venv, else python3.

import * as fs from "node:fs";
import * as path from "node:path";

export function testPython(): string {
  const fromEnv = process.env.TENSORSHAPE_PYTHON;
  if (fromEnv) return fromEnv;
  const venv = path.resolve(__dirname, "..", "..", "..", "..", ".venv", "bin", "python");
  return fs.existsSync(venv) ? venv : "python3";
}
