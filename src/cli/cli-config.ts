import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "./write-file-atomic.ts";

/** The CLI's stored settings (config.json in the config directory). */
export interface CliConfig {
  /** Default API URL. */
  api?: string;
  /** Default registry URL. */
  registry?: string;
  /** Default identity provider uid for `lading auth login`. */
  identityProvider?: string;
  /** Default output format. */
  output?: string;
}

/** The keys `lading config` manages, in display order. */
export const configKeys = ["api", "registry", "identityProvider", "output"] as const;

/** One of the keys `lading config` manages. */
export type CliConfigKey = (typeof configKeys)[number];

/** Reads config.json from `configDir`; a missing file is an empty config. */
export async function readConfig(configDir: string): Promise<CliConfig> {
  let text: string;
  try {
    text = await readFile(join(configDir, "config.json"), "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return {};
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${join(configDir, "config.json")} is not valid JSON`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return {};
  const config: CliConfig = {};
  for (const key of configKeys) {
    const value = (parsed as Record<string, unknown>)[key];
    if (typeof value === "string" && value !== "") config[key] = value;
  }
  return config;
}

/** Writes config.json atomically, creating `configDir` with mode 0700. */
export async function writeConfig(configDir: string, config: CliConfig): Promise<void> {
  await writeFileAtomic(
    join(configDir, "config.json"),
    `${JSON.stringify(config, null, 2)}\n`,
    0o600,
  );
}
