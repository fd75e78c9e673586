import { readFileSync, statSync } from "node:fs";
import { parse } from "yaml";
import { type ConfigInput, environmentNames, flagNameOf } from "./config.ts";

/** A configuration file as read: its path and its settings. */
export interface ConfigFile {
  path: string;
  values: ConfigInput;
}

/** The largest configuration file read; a bigger one is not a configuration file. */
const maxFileBytes = 256 * 1024;

/** The file's keys are the flags' names. */
export const fileKeyOf = flagNameOf;

const keysByFileKey = new Map(
  (Object.keys(environmentNames) as (keyof ConfigInput)[]).map((k) => [fileKeyOf(k), k]),
);

/**
 * Reads a YAML configuration file whose keys are the flags' names (`api-listen: …`). Values are
 * strings, numbers or booleans, and lists where a flag takes a comma-separated list. Errors name
 * the file and the key.
 */
export function readConfigFile(path: string): { value?: ConfigFile; error?: string } {
  let text: string;
  try {
    if (statSync(path).size > maxFileBytes) {
      return { error: `${path}: larger than ${maxFileBytes / 1024} KiB` };
    }
    text = readFileSync(path, "utf8");
  } catch (error) {
    return { error: `cannot read the configuration file ${path}: ${(error as Error).message}` };
  }
  let document: unknown;
  try {
    document = parse(text, { maxAliasCount: 16, uniqueKeys: true });
  } catch (error) {
    return { error: `${path}: not valid YAML: ${(error as Error).message.split("\n")[0]}` };
  }
  if (document === null || document === undefined) return { value: { path, values: {} } };
  if (typeof document !== "object" || Array.isArray(document)) {
    return { error: `${path}: must be a mapping of settings (key: value)` };
  }
  const values: ConfigInput = {};
  for (const [fileKey, raw] of Object.entries(document)) {
    const key = keysByFileKey.get(fileKey);
    if (!key) {
      const known = [...keysByFileKey.keys()].join(", ");
      return { error: `${path}: unknown key "${fileKey}"; the keys are ${known}` };
    }
    const text = settingText(raw);
    if (text === undefined) {
      return {
        error: `${path}: ${fileKey} must be a string, a number, true or false, or a list of strings`,
      };
    }
    if (raw !== null) values[key] = text;
  }
  return { value: { path, values } };
}

function settingText(raw: unknown): string | undefined {
  if (raw === null) return "";
  if (typeof raw === "string") return raw;
  if (typeof raw === "number" || typeof raw === "boolean") return String(raw);
  if (Array.isArray(raw) && raw.every((item) => typeof item === "string")) return raw.join(",");
  return undefined;
}
