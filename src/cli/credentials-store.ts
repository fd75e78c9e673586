import { mkdir, open, readFile, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { writeFileAtomic } from "./write-file-atomic.ts";

/** A cached Lading token for one audience. */
export interface CachedToken {
  token: string;
  /** ISO 8601 UTC. */
  expiry: string;
}

/** A signed-in session with one Lading API. */
export interface StoredSession {
  /** The signed-in identity uid. */
  identity?: string;
  /** The current (rotating) refresh token; absent after logout. */
  refreshToken?: string;
  /** The identity provider last signed in with; kept after logout for the next login. */
  identityProvider?: string;
  /** Cached tokens by audience. */
  tokens?: Record<string, CachedToken>;
}

/** Registry credentials saved by `docker-credential-lading store` (e.g. a pull token). */
export interface RegistryCredential {
  username: string;
  secret: string;
}

/** credentials.json: sessions keyed by API URL, and the credential helper's saved logins. */
export interface Credentials {
  sessions: Record<string, StoredSession>;
  /** Keyed by registry host (`host[:port]`). */
  registries: Record<string, RegistryCredential>;
}

const registriesKey = "registries";
const lockStaleMs = 30_000;
const lockWaitMs = 60_000;

/** The path of credentials.json in `configDir`. */
export function credentialsPath(configDir: string): string {
  return join(configDir, "credentials.json");
}

/**
 * Reads credentials.json; a missing file is empty. On disk the top-level keys are API URLs,
 * plus `registries` for the credential helper's saved logins.
 */
export async function readCredentials(configDir: string): Promise<Credentials> {
  const path = credentialsPath(configDir);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return { sessions: {}, registries: {} };
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not valid JSON: remove it and run \`lading auth login\``);
  }
  const result: Credentials = { sessions: {}, registries: {} };
  if (!isObject(parsed)) return result;
  for (const [key, value] of Object.entries(parsed)) {
    if (!isObject(value)) continue;
    if (key === registriesKey) {
      for (const [host, entry] of Object.entries(value)) {
        if (isObject(entry) && typeof entry.username === "string") {
          result.registries[host] = {
            username: entry.username,
            secret: String(entry.secret ?? ""),
          };
        }
      }
    } else {
      result.sessions[key] = value as StoredSession;
    }
  }
  return result;
}

/** Writes credentials.json atomically (temporary file + rename), mode 0600, directory 0700. */
export async function writeCredentials(configDir: string, credentials: Credentials): Promise<void> {
  const body: Record<string, unknown> = { ...credentials.sessions };
  if (Object.keys(credentials.registries).length > 0) body[registriesKey] = credentials.registries;
  await writeFileAtomic(credentialsPath(configDir), `${JSON.stringify(body, null, 2)}\n`, 0o600);
}

/**
 * Runs `update` on the current credentials under an exclusive lock file and writes the result,
 * so that concurrent CLI and credential-helper processes never spend the same refresh token
 * twice (reuse of a spent refresh token revokes the whole session).
 */
export async function updateCredentials<T>(
  configDir: string,
  update: (credentials: Credentials) => Promise<T>,
): Promise<T> {
  await mkdir(configDir, { recursive: true, mode: 0o700 });
  const lock = `${credentialsPath(configDir)}.lock`;
  const started = Date.now();
  for (;;) {
    try {
      const handle = await open(lock, "wx", 0o600);
      await handle.close();
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > lockStaleMs) await unlink(lock).catch(() => {});
      else if (Date.now() - started > lockWaitMs)
        throw new Error(`${lock} is held by another process`);
      else await sleep(25 + Math.random() * 50);
    }
  }
  try {
    const credentials = await readCredentials(configDir);
    const result = await update(credentials);
    await writeCredentials(configDir, credentials);
    return result;
  } finally {
    await unlink(lock).catch(() => {});
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
