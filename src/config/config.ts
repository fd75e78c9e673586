import { readFileSync } from "node:fs";
import { isUidp } from "../uidp/index.ts";
import { parseByteSize } from "./byte-size.ts";
import { type ConnectionLimits, resolveConnectionLimits } from "./connection-limits.ts";
import { type EventsSettings, resolveEventsSettings } from "./events-settings.ts";
import { type GcSettings, resolveGcSettings } from "./gc-settings.ts";
import { type OutboundSettings, resolveOutboundSettings } from "./outbound-settings.ts";

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
  /** `json` or `pretty`; undefined: pretty on a terminal, JSON otherwise. */
  logFormat: "json" | "pretty" | undefined;
  /** Registry listener address. Default `127.0.0.1:5000`, the port OCI clients expect. */
  registryListen: { host: string; port: number };
  /**
   * Public URL of the registry; its host (with the port unless it is the scheme's default) is
   * the registry token audience. Default `http://<registry-listen>` (the bound port on port 0).
   */
  registryUrl: string | undefined;
  /**
   * Blob store: `s3://bucket/prefix?endpoint=URL&region=R&forcePathStyle=true`, or absent for
   * the filesystem store inside the data directory.
   */
  blobStoreUrl: string | undefined;
  /** The organisation anonymous callers may pull from. Default `public`. */
  publicOrg: string;
  /** Tags of the public organisation anonymous callers may pull. Default `latest`, `latest-dev`. */
  freeTierTags: readonly string[];
  /** Terms document ids that must be accepted before an organisation's content is pulled. Default none. */
  requiredTerms: readonly string[];
  /** Timeouts and the connection cap of both listeners. */
  connections: Readonly<ConnectionLimits>;
  /**
   * Whether pushed images are scanned (SBOMs read or generated, reports computed). Default
   * true; a replica that should only serve can leave the scans to the others.
   */
  scanImages: boolean;
  /**
   * Whether the referrers API lists the SBOMs Lading generates beside the pushed referrers.
   * Default false: a client reads back exactly the referrers pushed.
   */
  scanSbomReferrers: boolean;
  /** Packages one scanned image may list; more fails its scan. Default 200,000. */
  scanMaxPackages: number;
  /** The scan thread's JavaScript heap; a scan that needs more fails. Default 384 MiB. */
  scanMaxMemoryBytes: number;
  /** Whether manifest GETs and HEADs record `dev.lading.registry.pull.v1` events. Default true. */
  eventsPulls: boolean;
  /** Largest file one library upload (wheel, npm tarball, Maven file) may be. Default 1 GiB. */
  librariesMaxFileBytes: number;
  /** Buffer memory all blob uploads of the process share at once. Default 128 MiB. */
  uploadMemoryBytes: number;
  /** Webhook delivery: timeouts, retries, retention. */
  events: Readonly<EventsSettings>;
  /** Which internal destinations requests made on a tenant's behalf may reach. */
  outbound: Readonly<OutboundSettings>;
  /** The garbage collector's schedule, grace window and history retention. */
  gc: Readonly<GcSettings>;
  /**
   * Identity uids of the installation's operators: the only callers of the operator API
   * (garbage collections). Default none, which refuses that API to everyone.
   */
  operators: readonly string[];
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
  registryListen?: string;
  registryUrl?: string;
  blobStore?: string;
  publicOrg?: string;
  freeTierTags?: string;
  requiredTerms?: string;
  headersTimeout?: string;
  requestIdleTimeout?: string;
  requestBodyTimeout?: string;
  minBodyRate?: string;
  bodyRateWindow?: string;
  keepAliveTimeout?: string;
  maxConnections?: string;
  logFormat?: string;
  scanImages?: string;
  scanSbomReferrers?: string;
  scanMaxPackages?: string;
  scanMaxMemory?: string;
  eventsPulls?: string;
  librariesMaxFileSize?: string;
  uploadMemory?: string;
  eventsAllowHttpLoopback?: string;
  eventsTimeout?: string;
  eventsRetryWindow?: string;
  eventsBackoffBase?: string;
  eventsRetention?: string;
  outboundAllow?: string;
  gcInterval?: string;
  gcGrace?: string;
  gcHistoryRetention?: string;
  operators?: string;
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
  registryListen: "LADING_REGISTRY_LISTEN",
  registryUrl: "LADING_REGISTRY_URL",
  blobStore: "LADING_BLOB_STORE",
  publicOrg: "LADING_PUBLIC_ORG",
  freeTierTags: "LADING_FREE_TIER_TAGS",
  requiredTerms: "LADING_REQUIRED_TERMS",
  headersTimeout: "LADING_HEADERS_TIMEOUT",
  requestIdleTimeout: "LADING_REQUEST_IDLE_TIMEOUT",
  requestBodyTimeout: "LADING_REQUEST_BODY_TIMEOUT",
  minBodyRate: "LADING_MIN_BODY_RATE",
  bodyRateWindow: "LADING_BODY_RATE_WINDOW",
  keepAliveTimeout: "LADING_KEEP_ALIVE_TIMEOUT",
  maxConnections: "LADING_MAX_CONNECTIONS",
  logFormat: "LADING_LOG_FORMAT",
  scanImages: "LADING_SCAN_IMAGES",
  scanSbomReferrers: "LADING_SCAN_SBOM_REFERRERS",
  scanMaxPackages: "LADING_SCAN_MAX_PACKAGES",
  scanMaxMemory: "LADING_SCAN_MAX_MEMORY",
  eventsPulls: "LADING_EVENTS_PULLS",
  librariesMaxFileSize: "LADING_LIBRARIES_MAX_FILE_SIZE",
  uploadMemory: "LADING_UPLOAD_MEMORY",
  eventsAllowHttpLoopback: "LADING_EVENTS_ALLOW_HTTP_LOOPBACK",
  eventsTimeout: "LADING_EVENTS_TIMEOUT",
  eventsRetryWindow: "LADING_EVENTS_RETRY_WINDOW",
  eventsRetention: "LADING_EVENTS_RETENTION",
  eventsBackoffBase: "LADING_EVENTS_BACKOFF_BASE",
  outboundAllow: "LADING_OUTBOUND_ALLOW",
  gcInterval: "LADING_GC_INTERVAL",
  gcGrace: "LADING_GC_GRACE",
  gcHistoryRetention: "LADING_GC_HISTORY_RETENTION",
  operators: "LADING_OPERATORS",
};

/**
 * Layers flags over the environment over a configuration file over defaults (DESIGN §9.7),
 * validates, and freezes the result. An error names the setting where it came from: the flag,
 * the environment variable, or the file's key.
 */
export function resolveConfig(
  flags: ConfigInput,
  env: NodeJS.ProcessEnv = process.env,
  file?: { path: string; values: ConfigInput },
): LadingConfig {
  const pick = (key: keyof ConfigInput) =>
    flags[key] ?? (env[environmentNames[key]] || undefined) ?? (file?.values[key] || undefined);
  try {
    return validate(pick);
  } catch (error) {
    throw new Error(renamed((error as Error).message, flags, env, file));
  }
}

/** `dataDir` → `data-dir`: the flag's name without dashes, which is also the file's key. */
export const flagNameOf = (key: keyof ConfigInput) =>
  key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** `--api-listen …` rewritten to name where the value came from, if not a flag. */
function renamed(
  message: string,
  flags: ConfigInput,
  env: NodeJS.ProcessEnv,
  file: { path: string; values: ConfigInput } | undefined,
): string {
  const flag = /^--([a-z-]+)/.exec(message)?.[1];
  const key = (Object.keys(environmentNames) as (keyof ConfigInput)[]).find(
    (k) => flagNameOf(k) === flag,
  );
  if (!key || flags[key] !== undefined) return message;
  const rest = message.slice(flag ? flag.length + 2 : 0);
  if (env[environmentNames[key]]) return `${environmentNames[key]}${rest}`;
  if (file?.values[key]) return `${flag}${rest} (in ${file.path})`;
  return message;
}

function validate(pick: (key: keyof ConfigInput) => string | undefined): LadingConfig {
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
  const registryListen = parseListen(
    pick("registryListen") ?? "127.0.0.1:5000",
    "--registry-listen",
  );
  const registryUrl = pick("registryUrl");
  if (registryUrl !== undefined) checkUrl(registryUrl, "--registry-url");
  const blobStoreUrl = pick("blobStore");
  if (blobStoreUrl !== undefined && !/^s3:\/\/[^/?]+/.test(blobStoreUrl)) {
    throw new Error("--blob-store must be an s3://bucket[/prefix] URL");
  }
  const publicOrg = pick("publicOrg") ?? "public";
  if (!/^[a-z0-9]+([._-][a-z0-9]+)*$/.test(publicOrg)) {
    throw new Error(`--public-org must be an organisation name, got "${publicOrg}"`);
  }
  const freeTierTags = (pick("freeTierTags") ?? "latest,latest-dev")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");
  if (freeTierTags.some((t) => !/^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$/.test(t))) {
    throw new Error("--free-tier-tags must be a comma-separated list of tags");
  }
  const requiredTerms = [
    ...new Set(
      (pick("requiredTerms") ?? "")
        .split(",")
        .map((t) => t.trim())
        .filter((t) => t !== ""),
    ),
  ];
  if (requiredTerms.some((t) => !/^[a-z0-9][a-z0-9._-]{0,127}$/.test(t))) {
    throw new Error("--required-terms must be a comma-separated list of document ids");
  }
  const operators = [
    ...new Set(
      (pick("operators") ?? "")
        .split(",")
        .map((t) => t.trim())
        .filter((t) => t !== ""),
    ),
  ];
  // Uids only, never names: an identity's name is set through the API, so a name here would
  // let whoever may name an identity make itself an operator.
  if (!operators.every(isUidp)) {
    throw new Error("--operators must be a comma-separated list of identity uids");
  }
  const logLevel = pick("logLevel") ?? "info";
  if (!(logLevels as readonly string[]).includes(logLevel)) {
    throw new Error(`--log-level must be one of ${logLevels.join(", ")}, got "${logLevel}"`);
  }
  const logFormat = pick("logFormat");
  if (logFormat !== undefined && logFormat !== "json" && logFormat !== "pretty") {
    throw new Error(`--log-format must be json or pretty, got "${logFormat}"`);
  }
  const scanImages = pick("scanImages") ?? "true";
  if (scanImages !== "true" && scanImages !== "false") {
    throw new Error(`--scan-images must be true or false, got "${scanImages}"`);
  }
  const scanSbomReferrers = pick("scanSbomReferrers") ?? "false";
  if (scanSbomReferrers !== "true" && scanSbomReferrers !== "false") {
    throw new Error(`--scan-sbom-referrers must be true or false, got "${scanSbomReferrers}"`);
  }
  const scanMaxPackages = pick("scanMaxPackages") ?? "200000";
  if (!/^\d{1,9}$/.test(scanMaxPackages) || Number(scanMaxPackages) < 1) {
    throw new Error(`--scan-max-packages must be a whole number from 1, got "${scanMaxPackages}"`);
  }
  const scanMaxMemory = parseByteSize(pick("scanMaxMemory") ?? "384MiB");
  if (scanMaxMemory.error !== undefined)
    throw new Error(`--scan-max-memory: ${scanMaxMemory.error}`);
  // Below this a single large allocation (a 64 MiB SBOM's text) can pass V8's leeway at the
  // limit, which aborts the whole process instead of ending the scan thread.
  if ((scanMaxMemory.value ?? 0) < 256 * 1024 ** 2) {
    throw new Error("--scan-max-memory must be at least 256MiB");
  }
  const eventsPulls = pick("eventsPulls") ?? "true";
  if (eventsPulls !== "true" && eventsPulls !== "false") {
    throw new Error(`--events-pulls must be true or false, got "${eventsPulls}"`);
  }
  const maxFileSize = parseByteSize(pick("librariesMaxFileSize") ?? "1GiB");
  if (maxFileSize.error !== undefined) {
    throw new Error(`--libraries-max-file-size: ${maxFileSize.error}`);
  }
  const uploadMemory = parseByteSize(pick("uploadMemory") ?? "128MiB");
  const uploadMemoryBytes = uploadMemory.value ?? 0;
  if (uploadMemoryBytes < 16 * 1024 ** 2) {
    throw new Error(`--upload-memory: ${uploadMemory.error ?? "must be at least 16MiB"}`);
  }
  const connections = resolveConnectionLimits({
    headersTimeout: pick("headersTimeout"),
    requestIdleTimeout: pick("requestIdleTimeout"),
    requestBodyTimeout: pick("requestBodyTimeout"),
    minBodyRate: pick("minBodyRate"),
    bodyRateWindow: pick("bodyRateWindow"),
    keepAliveTimeout: pick("keepAliveTimeout"),
    maxConnections: pick("maxConnections"),
  });
  const events = resolveEventsSettings({
    eventsTimeout: pick("eventsTimeout"),
    eventsRetryWindow: pick("eventsRetryWindow"),
    eventsBackoffBase: pick("eventsBackoffBase"),
    eventsRetention: pick("eventsRetention"),
  });
  const outbound = resolveOutboundSettings({
    outboundAllow: pick("outboundAllow"),
    eventsAllowHttpLoopback: pick("eventsAllowHttpLoopback"),
  });
  const gc = resolveGcSettings({
    gcInterval: pick("gcInterval"),
    gcGrace: pick("gcGrace"),
    gcHistoryRetention: pick("gcHistoryRetention"),
  });
  return Object.freeze({
    dataDir: pick("dataDir") ?? ".lading",
    apiListen,
    apiUrl: apiUrl?.replace(/\/+$/, ""),
    databaseUrl,
    tls:
      cert && key
        ? { cert: readFileSync(cert, "utf8"), key: readFileSync(key, "utf8") }
        : undefined,
    logLevel,
    logFormat,
    registryListen,
    registryUrl: registryUrl?.replace(/\/+$/, ""),
    blobStoreUrl,
    publicOrg,
    freeTierTags: Object.freeze(freeTierTags),
    requiredTerms: Object.freeze(requiredTerms),
    connections: Object.freeze(connections),
    scanImages: scanImages === "true",
    scanSbomReferrers: scanSbomReferrers === "true",
    scanMaxPackages: Number(scanMaxPackages),
    scanMaxMemoryBytes: scanMaxMemory.value ?? 384 * 1024 ** 2,
    eventsPulls: eventsPulls === "true",
    librariesMaxFileBytes: maxFileSize.value ?? 1024 ** 3,
    uploadMemoryBytes,
    events: Object.freeze(events),
    outbound: Object.freeze(outbound),
    gc: Object.freeze(gc),
    operators: Object.freeze(operators),
  });
}

/** The levels --log-level takes (pino's, quietest last). */
export const logLevels = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

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

/**
 * The registry token audience of a registry URL: its host, with the port unless it is the
 * scheme's default (`http://127.0.0.1:5000` → `127.0.0.1:5000`, `https://cr.example` →
 * `cr.example`).
 */
export function registryAudience(registryUrl: string): string {
  return new URL(registryUrl).host;
}
