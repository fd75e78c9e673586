// Plain JavaScript that Node 18 and newer can parse: this file runs under whatever `node` is
// first on PATH (npm link, docker calling the credential helper), often the system's, which may
// not run TypeScript. docs/decisions.md, "The bin scripts find their Node".
import { spawn } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The oldest Node that runs Lading itself: it strips TypeScript types without a flag (22.18)
 * and has the embedded store's `node:sqlite` with `deserialize` and no experimental warning.
 */
const runsLading = [24, 16];

function atLeast(version, [major, minor]) {
  const [a, b] = String(version).replace(/^v/, "").split(".").map(Number);
  return a > major || (a === major && b >= minor);
}

/** The Node that `npm install` put beside the script (package node-<platform>-<arch>), if any. */
function bundledNode(script) {
  try {
    const require = createRequire(script);
    const manifest = require.resolve(`node-${process.platform}-${process.arch}/package.json`);
    const pkg = JSON.parse(readFileSync(manifest, "utf8"));
    const bin = join(dirname(manifest), pkg.bin?.node ?? "bin/node");
    return atLeast(pkg.version, runsLading) && existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs `start` when this Node runs Lading; otherwise runs the bin script at `binUrl` again
 * under the bundled Node, passing arguments, standard streams, exit code and signals through.
 * `problems` is where a missing Node is reported (the credential helper protocol wants stdout).
 */
export async function launch(binUrl, start, problems = process.stderr) {
  if (process.features.typescript && atLeast(process.version, runsLading)) return start();
  const script = realpathSync(fileURLToPath(binUrl));
  const name = script.split("/").pop().replace(/\.js$/, "");
  const node = bundledNode(script);
  if (!node) {
    problems.write(
      `${name}: Node.js ${process.version} cannot run Lading and the Node that \`npm install\` brings is missing: run \`npm install\` in the Lading folder, or use Node.js 24.16 or newer\n`,
    );
    process.exitCode = 1;
    return;
  }
  const child = spawn(node, [script, ...process.argv.slice(2)], { stdio: "inherit" });
  // kill and supervisors signal one process: pass those on. Terminal keys signal the whole
  // foreground process group, so the child has them already; passing them on would deliver
  // them twice (and a second SIGINT stops `lading serve` without draining).
  const forward = (signal) => child.kill(signal);
  const ignore = () => {};
  const forwarded = ["SIGTERM", "SIGHUP"];
  const fromTerminal = ["SIGINT", "SIGQUIT"];
  for (const signal of forwarded) process.on(signal, forward);
  for (const signal of fromTerminal) process.on(signal, ignore);
  child.on("error", (error) => {
    problems.write(`${name}: cannot run ${node}: ${error.message}\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    if (!signal) process.exit(code ?? 1);
    for (const s of forwarded) process.off(s, forward);
    for (const s of fromTerminal) process.off(s, ignore);
    process.exitCode = 128 + (constants.signals[signal] ?? 0);
    process.kill(process.pid, signal);
  });
}
