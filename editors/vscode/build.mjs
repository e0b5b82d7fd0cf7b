// Bundles the extension (dist/extension.js) with esbuild; with --tests, also the tests (out/test/).
import * as esbuild from "esbuild";
import { readdirSync } from "node:fs";

const production = process.argv.includes("--production");
const common = { bundle: true, platform: "node", format: "cjs", target: "node20", logLevel: "warning" };

await esbuild.build({
  ...common,
  entryPoints: ["src/extension.ts"],
  outfile: "dist/extension.js",
  // Provided by VS Code at run time.
  external: ["vscode"],
  minify: production,
  sourcemap: !production,
});

if (process.argv.includes("--tests")) {
  await esbuild.build({
    ...common,
    entryPoints: readdirSync("test")
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => `test/${f}`),
    outdir: "out/test",
    // Loaded from node_modules at run time, so that the tests can stand in for `vscode` and the client.
    packages: "external",
    sourcemap: true,
  });
}
