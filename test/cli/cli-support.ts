import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConfigInput } from "../../src/config/index.ts";
import { browserSignIn } from "../support/browser-sign-in.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const cli = new URL("../../bin/lading.js", import.meta.url).pathname;

/** One finished CLI run. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** What a run feeds the process and watches. */
export interface RunOptions {
  /** Written to standard input (which is closed either way). */
  stdin?: string;
  /** Sees standard error, all of it so far, as it arrives. */
  onStderr?: (text: string) => void;
  /** The working directory. Default: this process's. */
  cwd?: string;
}

/** Runs `file` with this Node, `args` and exactly `env`; stdin gets `options.stdin`. */
export function runNode(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  options: RunOptions = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { env, cwd: options.cwd });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
      options.onStderr?.(stderr);
    });
    child.stdin.end(options.stdin);
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A CLI runner with a private HOME and config dir. */
export interface CliRunner {
  home: string;
  env: Record<string, string>;
  run(
    args: string[],
    extraEnv?: Record<string, string | undefined>,
    options?: RunOptions,
  ): Promise<CliRun>;
  /** Runs and fails with its stderr unless the exit code is 0; returns stdout. */
  ok(...args: string[]): Promise<string>;
  cleanup(): Promise<void>;
}

/** Runs bin/lading.js as a real process with `env` (plus HOME and XDG_CONFIG_HOME in a temp dir). */
export async function cliRunner(env: Record<string, string> = {}): Promise<CliRunner> {
  const home = await mkdtemp(join(tmpdir(), "lading-cli-"));
  const base: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    ...env,
  };
  const runner: CliRunner = {
    home,
    env: base,
    run(args, extraEnv = {}, options = {}) {
      const merged: Record<string, string> = { ...base };
      for (const [k, v] of Object.entries(extraEnv)) {
        if (v === undefined) delete merged[k];
        else merged[k] = v;
      }
      return runNode(cli, args, merged, options);
    },
    async ok(...args) {
      const result = await runner.run(args);
      if (result.code !== 0) {
        throw new Error(`lading ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
      }
      return result.stdout;
    },
    cleanup: () => rm(home, { recursive: true, force: true }),
  };
  return runner;
}

/**
 * Runs `lading auth login --no-browser …` as `login`, playing the browser with the provider's
 * login pages (test/support/browser-sign-in.ts); resolves to the finished CLI run.
 */
export async function cliSignIn(
  runner: CliRunner,
  login: string,
  flags: string[] = [],
  extraEnv: Record<string, string | undefined> = {},
): Promise<CliRun> {
  let announced: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => {
    announced = resolve;
  });
  const finished = runner.run(["auth", "login", "--no-browser", ...flags], extraEnv, {
    onStderr(text) {
      const match = /Open this URL to sign in: (\S+)/.exec(text);
      if (match) announced(match[1]);
    },
  });
  const loginUrl = await Promise.race([
    url,
    finished.then((f) => Promise.reject(new Error(`lading auth login exited: ${f.stderr}`))),
  ]);
  const { location } = await browserSignIn(loginUrl, login);
  const page = await fetch(location);
  if (page.status !== 200) throw new Error(`the CLI's callback answered ${page.status}`);
  return finished;
}

/** A server on a fresh store of `kind` and a CLI runner pointed at it with the owner's token. */
export interface CliServer {
  server: TestServer;
  cli: CliRunner;
  close(): Promise<void>;
}

/** Starts a CliServer: LADING_API_URL, LADING_REGISTRY_URL and LADING_TOKEN (the owner) set. */
export async function startCliServer(
  kind: "sqlite" | "postgres",
  config: ConfigInput = {},
): Promise<CliServer> {
  const server = await startTestServer(kind, "acme", config);
  const cli = await cliRunner({
    LADING_API_URL: server.apiUrl,
    LADING_REGISTRY_URL: server.lading.registryUrl,
    LADING_TOKEN: server.org.token,
  });
  return {
    server,
    cli,
    async close() {
      await cli.cleanup();
      await server.close();
    },
  };
}
