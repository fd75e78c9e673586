import { readFileSync } from "node:fs";

/** Lading's settings, validated once at start and frozen. */
export interface LadingConfig {
  /** Data directory for the embedded store. Default `./.lading`. */
  dataDir: string;
  /** API listener address. Default `127.0.0.1:8080`: local only until the operator opens it. */
  apiListen: { host: string; port: number };
  /**
   * Public URL of the API: the token issuer and the API token audience. Default
   * `http://<api-listen>` (with the port actually bound when listening on port 0).
   */
  apiUrl: string | undefined;
  /** `postgres://…` selects PostgreSQL; absent means embedded SQLite in the data directory. */
  databaseUrl: string | undefined;
  /** PEM certificate and key; both given means TLS (HTTP/1.1 + h2 by ALPN). */
  tls: { cert: string; key: string } | undefined;
  /** pino level. Default `info`. */
  logLevel: string;
}

/** Settings as strings, from flags or the environment; absent means "use the default". */
export interface ConfigInput {
  dataDir?: string;
  apiListen?: string;
  apiUrl?: string;
  databaseUrl?: string;
  tlsCert?: string;
  tlsKey?: string;
  logLevel?: string;
}

/** The environment variable behind each setting. */
export const environmentNames: Readonly<Record<keyof ConfigInput, string>> = {
  dataDir: "LADING_DATA_DIR",
  apiListen: "LADING_API_LISTEN",
  apiUrl: "LADING_API_URL",
  databaseUrl: "LADING_DATABASE_URL",
  tlsCert: "LADING_TLS_CERT",
  tlsKey: "LADING_TLS_KEY",
  logLevel: "LADING_LOG_LEVEL",
};

/** Layers flags over the environment over defaults, validates, and freezes the result. */
export function resolveConfig(
  flags: ConfigInput,
  env: NodeJS.ProcessEnv = process.env,
): LadingConfig {
  const pick = (key: keyof ConfigInput) => flags[key] ?? (env[environmentNames[key]] || undefined);
  const apiListen = parseListen(pick("apiListen") ?? "127.0.0.1:8080", "--api-listen");
  const apiUrl = pick("apiUrl");
  if (apiUrl !== undefined) checkUrl(apiUrl, "--api-url");
  const databaseUrl = pick("databaseUrl");
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error("--database-url must be a postgres:// URL");
  }
  const cert = pick("tlsCert");
  const key = pick("tlsKey");
  if ((cert === undefined) !== (key === undefined))
    throw new Error("--tls-cert and --tls-key go together");
  return Object.freeze({
    dataDir: pick("dataDir") ?? ".lading",
    apiListen,
    apiUrl: apiUrl?.replace(/\/+$/, ""),
    databaseUrl,
    tls:
      cert && key
        ? { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") }
        : undefined,
    logLevel: pick("logLevel") ?? "info",
  });
}

/** Parses `HOST:PORT` (IPv6 hosts in brackets). */
export function parseListen(text: string, flag: string): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[2]) : -1;
  if (!match || port > 65535) throw new Error(`${flag} must be HOST:PORT, got "${text}"`);
  return { host: match[1].replace(/^\[|\]$/g, ""), port };
}

function checkUrl(text: string, flag: string): void {
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) {
    throw new Error(`${flag} must be an http or https URL, got "${text}"`);
  }
}

/** The default API URL for a bound address. */
export function urlForAddress(host: string, port: number, tls: boolean): string {
  const name = host.includes(":") ? `[${host}]` : host;
  return `${tls ? "https" : "http"}://${name}:${port}`;
}
