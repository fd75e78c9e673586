import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "./write-file-atomic.ts";

/** The name docker-style tools append to `docker-credential-`. */
export const credentialHelperName = "lading";

/**
 * The Docker client config file: `$DOCKER_CONFIG/config.json`, default `~/.docker/config.json`.
 * Docker reads it, and so do skopeo, podman and buildah (containers-auth.json(5)) unless they are
 * given an explicit auth file (--authfile or REGISTRY_AUTH_FILE).
 */
export function dockerConfigPath(env: Record<string, string | undefined>): string {
  if (env.DOCKER_CONFIG) return join(env.DOCKER_CONFIG, "config.json");
  return join(env.HOME || homedir(), ".docker", "config.json");
}

/**
 * Sets `credHelpers[host] = "lading"` in the JSON config file at `path` (Docker config.json or a
 * containers auth.json), keeping every other key. A missing file is created (mode 0600); the
 * write is atomic and keeps an existing file's mode. Returns whether the file changed.
 */
export async function addCredentialHelper(path: string, host: string): Promise<boolean> {
  let config: Record<string, unknown> = {};
  let mode = 0o600;
  try {
    const text = await readFile(path, "utf8");
    mode = (await stat(path)).mode & 0o777;
    const parsed: unknown = text.trim() ? JSON.parse(text) : {};
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new Error("not a JSON object");
    }
    config = parsed as Record<string, unknown>;
  } catch (error) {
    const e = error as { code?: string; message?: string };
    if (e.code !== "ENOENT") throw new Error(`cannot update ${path}: ${e.message}`);
  }
  const helpers = (
    config.credHelpers && typeof config.credHelpers === "object" ? config.credHelpers : {}
  ) as Record<string, string>;
  if (helpers[host] === credentialHelperName) return false;
  config.credHelpers = { ...helpers, [host]: credentialHelperName };
  await writeFileAtomic(path, `${JSON.stringify(config, null, "\t")}\n`, mode);
  return true;
}

/** `host[:port]` of a registry server URL as Docker and skopeo name it (`https://h/v2/` → `h`). */
export function registryHost(serverUrl: string): string {
  const text = serverUrl.trim();
  if (text.includes("://")) {
    try {
      return new URL(text).host;
    } catch {
      return text;
    }
  }
  return text.split("/")[0];
}
