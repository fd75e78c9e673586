import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { underNpm, userPath } from "./user-path.ts";

/** The command docker, skopeo and podman run for `credHelpers: {host: "lading"}`. */
export const credentialHelperCommand = "docker-credential-lading";

/** The checkout's bin folder: `lading` and `docker-credential-lading` run with any Node 18+. */
const binDir = fileURLToPath(new URL("../../bin", import.meta.url)).replace(/\/$/, "");

/** The one command that puts both commands on PATH, as the README says. */
export const pathFix = `export PATH="${binDir}:$PATH"`;

/**
 * Runs `docker-credential-lading list` through the user's PATH (`userPath`: without what npx
 * and npm scripts add while they run), as registry clients will later, and returns
 * what is wrong with it (one sentence with the fix), or undefined when it answers a JSON
 * object within `timeoutMs` (default 30 s: one cold start of Node, twice when the launcher
 * re-runs it under the bundled Node, on a busy machine).
 */
export function credentialHelperProblem(
  env: Record<string, string | undefined>,
  timeoutMs = 30_000,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn(credentialHelperCommand, ["list"], {
      env: { ...env, PATH: userPath(env) },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeoutMs,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      resolve(
        error.code === "ENOENT"
          ? `${credentialHelperCommand} is not on your PATH${underNpm(env) ? " (npx and npm scripts add folders to PATH only while they run; those do not count)" : ""}, so docker, skopeo and podman could not run it: run \`${pathFix}\` (and add that line to ~/.profile to keep it), then run this again`
          : `${credentialHelperCommand} cannot be started: ${error.message}`,
      );
    });
    child.on("close", (code, signal) => {
      if (code === 0 && isJsonObject(stdout)) return resolve(undefined);
      const what = signal
        ? `did not answer within ${timeoutMs / 1000} s`
        : `exited with ${code}: ${reason(stdout, stderr)}`;
      resolve(
        `${credentialHelperCommand} on PATH does not work (\`${credentialHelperCommand} list\` ${what}); fix it, then run this again`,
      );
    });
  });
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** The line that says why: the helper protocol puts errors on stdout, Node on stderr. */
function reason(stdout: string, stderr: string): string {
  const lines = (text: string) =>
    text
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
  const errors = lines(stderr);
  return lines(stdout)[0] ?? errors.find((l) => /Error\b/.test(l)) ?? errors[0] ?? "no output";
}
