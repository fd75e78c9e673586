import { homedir } from "node:os";
import { join } from "node:path";
import { readConfig } from "./cli-config.ts";
import { tokenFor } from "./session.ts";

/** The output formats every listing and get command supports. */
export const outputFormats = ["table", "json", "id", "env"] as const;

/** The output formats in words, the same in --help and in the error of an unknown one. */
export const outputFormatsText = "table, json or id (env: auth pull-token only)";

/** An output format. */
export type OutputFormat = (typeof outputFormats)[number];

/** Everything a CLI command needs: resolved URLs, output format, config dir, environment and streams. */
export interface CliContext {
  /** The API URL (also the default token audience). */
  apiUrl: string;
  /** The registry URL. */
  registryUrl: string;
  /** The registry's token audience: its URL host (with port unless default). */
  registryAudience: string;
  /** The output format. */
  output: OutputFormat;
  /** The config directory ($XDG_CONFIG_HOME/lading, default $HOME/.config/lading). */
  configDir: string;
  /** The environment. */
  env: Record<string, string | undefined>;
  /** Where results go. */
  stdout: NodeJS.WritableStream;
  /** Where messages and errors go. */
  stderr: NodeJS.WritableStream;
  /** A Lading token for `audience` (default: the API URL). */
  token(audience?: string): Promise<string>;
}

/** The global flags, as given on the command line. */
export interface GlobalFlags {
  /** --api URL */
  api?: string;
  /** --registry URL */
  registry?: string;
  /** -o/--output table|json|id */
  output?: string;
}

/** Streams for a context (default: the process's). */
export interface CliStreams {
  /** Results. */
  stdout?: NodeJS.WritableStream;
  /** Messages. */
  stderr?: NodeJS.WritableStream;
}

/** A usage error (exit code 2). */
export class UsageError extends Error {
  /** Always "usage". */
  readonly kind = "usage";
}

/** The CLI config directory for `env`. */
export function configDirFor(env: Record<string, string | undefined>): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "lading");
}

/** Whether `value` is acceptable for setting `key` (http(s) URL, or an output format). */
export function validSetting(key: "api" | "registry" | "output", value: string): boolean {
  if (key === "output") return (outputFormats as readonly string[]).includes(value);
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

function checkUrl(value: string, source: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${source}: not a URL: ${value}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`${source}: not an http(s) URL: ${value}`);
  }
  return value.replace(/\/+$/, "");
}

/**
 * Resolves the context: --api > LADING_API_URL > config.api > http://127.0.0.1:8080,
 * --registry > LADING_REGISTRY_URL > config.registry > http://127.0.0.1:5000,
 * -o > LADING_OUTPUT > config.output > table.
 */
export async function resolveCliContext(
  flags: GlobalFlags,
  env: Record<string, string | undefined>,
  streams: CliStreams = {},
): Promise<CliContext> {
  const configDir = configDirFor(env);
  const config = await readConfig(configDir);
  const stderr = streams.stderr ?? process.stderr;
  for (const key of ["api", "registry", "output"] as const) {
    const value = config[key];
    if (value !== undefined && !validSetting(key, value)) {
      stderr.write(
        `lading: warning: ignoring ${key} "${value}" in config.json (fix: lading config set ${key} …)\n`,
      );
      delete config[key];
    }
  }
  const pick = (
    flag: string | undefined,
    envName: string,
    stored: string | undefined,
    fallback: string,
  ): [string, string] => {
    if (flag) return [flag, "flag"];
    if (env[envName]) return [env[envName] as string, envName];
    if (stored) return [stored, "config"];
    return [fallback, "default"];
  };
  const [api, apiSource] = pick(flags.api, "LADING_API_URL", config.api, "http://127.0.0.1:8080");
  const [registry, registrySource] = pick(
    flags.registry,
    "LADING_REGISTRY_URL",
    config.registry,
    "http://127.0.0.1:5000",
  );
  const [output, outputSource] = pick(flags.output, "LADING_OUTPUT", config.output, "table");
  if (!(outputFormats as readonly string[]).includes(output)) {
    throw new UsageError(
      `${outputSource === "flag" ? "--output" : outputSource}: must be ${outputFormatsText}, got "${output}"`,
    );
  }
  const apiUrl = checkUrl(api, apiSource === "flag" ? "--api" : apiSource);
  const registryUrl = checkUrl(registry, registrySource === "flag" ? "--registry" : registrySource);
  return {
    apiUrl,
    registryUrl,
    registryAudience: new URL(registryUrl).host,
    output: output as OutputFormat,
    configDir,
    env,
    stdout: streams.stdout ?? process.stdout,
    stderr,
    token: (audience?: string) => tokenFor({ apiUrl, configDir, env }, audience ?? apiUrl),
  };
}
