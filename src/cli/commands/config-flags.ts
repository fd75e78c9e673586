import { existsSync } from "node:fs";
import {
  type ConfigInput,
  type LadingConfig,
  logLevels,
  readConfigFile,
  resolveConfig,
} from "../../config/index.ts";
import { UsageError } from "../cli-context.ts";
import type { FlagSpec, ParsedArgs } from "../command-spec.ts";

/** The flags every command that opens the store or serves accepts (README "Configuration"). */
export const configFlags: FlagSpec[] = [
  {
    name: "config",
    value: "FILE",
    help: "YAML file of these settings (default $LADING_CONFIG, else ./lading.yaml if present)",
  },
  {
    name: "data-dir",
    value: "DIR",
    help: "SQLite database and filesystem blobs (default ./.lading)",
  },
  {
    name: "database-url",
    value: "URL",
    help: "keep metadata in PostgreSQL: postgres://user@host/db",
  },
  { name: "api-listen", value: "HOST:PORT", help: "API listener (default 127.0.0.1:8080)" },
  { name: "api-url", value: "URL", help: "public API URL: token issuer and API audience" },
  {
    name: "registry-listen",
    value: "HOST:PORT",
    help: "registry listener (default 127.0.0.1:5000)",
  },
  {
    name: "registry-url",
    value: "URL",
    help: "public registry URL; its host is the token audience",
  },
  {
    name: "blob-store",
    value: "URL",
    help: "s3://bucket/prefix?endpoint=URL&region=R (default: data dir)",
  },
  { name: "tls-cert", value: "FILE", help: "PEM certificate: serve HTTPS (with --tls-key)" },
  { name: "tls-key", value: "FILE", help: "PEM private key of --tls-cert" },
  { name: "log-level", value: "LEVEL", help: `one of ${logLevels.join(", ")} (default info)` },
  {
    name: "log-format",
    value: "FORMAT",
    help: "json or pretty (default: pretty on a terminal, json otherwise)",
    choices: ["json", "pretty"],
  },
  { name: "public-org", value: "NAME", help: "organisation anonymous callers may pull from" },
  { name: "free-tier-tags", value: "LIST", help: "public tags anonymous callers may pull" },
  { name: "required-terms", value: "LIST", help: "terms documents to accept before pulling" },
  {
    name: "events-pulls",
    value: "BOOL",
    help: "record a pull event per manifest GET and HEAD (default true)",
    choices: ["true", "false"],
  },
  {
    name: "headers-timeout",
    value: "DURATION",
    help: "time to send complete request headers (default 20s)",
  },
  {
    name: "request-idle-timeout",
    value: "DURATION",
    help: "a request body that makes no progress this long is cut (default 30s)",
  },
  {
    name: "request-body-timeout",
    value: "DURATION",
    help: "a request body must arrive whole this soon; authenticated uploads are exempt (default 30s)",
  },
  {
    name: "min-body-rate",
    value: "SIZE",
    help: "a body must bring this much a second, 0 for no minimum (default 1KiB/s)",
  },
  {
    name: "body-rate-window",
    value: "DURATION",
    help: "the window the minimum body rate is measured over (default 10s)",
  },
  {
    name: "keep-alive-timeout",
    value: "DURATION",
    help: "idle keep-alive connections and HTTP/2 sessions close (default 15s)",
  },
  { name: "max-connections", value: "N", help: "open connections per listener (default 10000)" },
  {
    name: "scan-images",
    value: "BOOL",
    help: "scan pushed images for their packages and vulnerabilities (default true)",
    choices: ["true", "false"],
  },
  {
    name: "scan-sbom-referrers",
    value: "BOOL",
    help: "list the SBOMs Lading generates in the OCI referrers API (default false)",
    choices: ["true", "false"],
  },
  {
    name: "scan-max-packages",
    value: "N",
    help: "packages one scanned image may list; more fails its scan (default 200000)",
  },
  {
    name: "scan-max-memory",
    value: "SIZE",
    help: "memory the scan thread may use; a scan needing more fails (default 384MiB)",
  },
  {
    name: "libraries-max-file-size",
    value: "SIZE",
    help: "largest file one library upload may be, e.g. 512MiB (default 1GiB)",
  },
  {
    name: "upload-memory",
    value: "SIZE",
    help: "buffer memory all blob uploads share; past it they wait their turn (default 128MiB)",
  },
  {
    name: "outbound-allow",
    value: "LIST",
    help: "internal hosts and CIDRs requests on a tenant's behalf may reach, e.g. 10.1.0.0/16,idp.corp.example (default none)",
  },
  {
    name: "events-allow-http-loopback",
    type: "boolean",
    help: "alias: adds 127.0.0.0/8,::1 to --outbound-allow (development and tests only)",
  },
  {
    name: "events-timeout",
    value: "DURATION",
    help: "deadline of one webhook delivery attempt (default 10s)",
  },
  {
    name: "events-retry-window",
    value: "DURATION",
    help: "failing deliveries are retried this long, then dead-lettered (default 24h)",
  },
  {
    name: "events-backoff-base",
    value: "DURATION",
    help: "first webhook retry delay, doubled per attempt up to 1h, with jitter (default 1s)",
  },
  {
    name: "events-retention",
    value: "DURATION",
    help: "events and their finished deliveries older than this are deleted; forever keeps them (default 7d)",
  },
  {
    name: "gc-interval",
    value: "DURATION",
    help: "time between garbage collections of the registry; off runs them only on demand (default 1h)",
  },
  {
    name: "gc-grace",
    value: "DURATION",
    help: "blobs and manifests a push relied on within this window are never collected (default 2h)",
  },
  {
    name: "gc-history-retention",
    value: "DURATION",
    help: "manifests named only by tag history records younger than this stay pullable (default 30d)",
  },
  {
    name: "operators",
    value: "LIST",
    help: "identity uids of the installation's operators, who may run garbage collections through the API (default none)",
  },
];

/**
 * The config flags of a command that reads only the settings `names`: those are shown in its
 * help; the others are accepted but hidden, so the command line `serve` runs with works as is.
 */
export function configFlagsNamed(...names: string[]): FlagSpec[] {
  const unknown = names.filter((n) => !configFlags.some((f) => f.name === n));
  if (unknown.length > 0) throw new Error(`not config flags: ${unknown.join(", ")}`);
  return configFlags.map((f) => (names.includes(f.name) ? f : { ...f, hidden: true }));
}

/** Where the store is: what every admin command reads. */
export const storeFlagNames = ["config", "data-dir", "database-url"];

/** What the token issuer URL follows: admin commands that mint tokens read them too. */
export const issuerFlagNames = ["api-listen", "api-url", "tls-cert", "tls-key"];

/** Maps parsed flags to config input (the environment fills what they leave out). */
export function configFromFlags(parsed: ParsedArgs): ConfigInput {
  const text = (name: string) => parsed.flags[name] as string | undefined;
  return {
    dataDir: text("data-dir"),
    apiListen: text("api-listen"),
    apiUrl: text("api-url"),
    databaseUrl: text("database-url"),
    tlsCert: text("tls-cert"),
    tlsKey: text("tls-key"),
    logLevel: text("log-level"),
    registryListen: text("registry-listen"),
    registryUrl: text("registry-url"),
    blobStore: text("blob-store"),
    publicOrg: text("public-org"),
    freeTierTags: text("free-tier-tags"),
    requiredTerms: text("required-terms"),
    headersTimeout: text("headers-timeout"),
    requestIdleTimeout: text("request-idle-timeout"),
    requestBodyTimeout: text("request-body-timeout"),
    minBodyRate: text("min-body-rate"),
    bodyRateWindow: text("body-rate-window"),
    keepAliveTimeout: text("keep-alive-timeout"),
    maxConnections: text("max-connections"),
    logFormat: text("log-format"),
    scanImages: text("scan-images"),
    scanSbomReferrers: text("scan-sbom-referrers"),
    scanMaxPackages: text("scan-max-packages"),
    scanMaxMemory: text("scan-max-memory"),
    eventsPulls: text("events-pulls"),
    librariesMaxFileSize: text("libraries-max-file-size"),
    uploadMemory: text("upload-memory"),
    eventsAllowHttpLoopback:
      parsed.flags["events-allow-http-loopback"] === true ? "true" : undefined,
    eventsTimeout: text("events-timeout"),
    eventsRetryWindow: text("events-retry-window"),
    eventsBackoffBase: text("events-backoff-base"),
    eventsRetention: text("events-retention"),
    outboundAllow: text("outbound-allow"),
    gcInterval: text("gc-interval"),
    gcGrace: text("gc-grace"),
    gcHistoryRetention: text("gc-history-retention"),
    operators: text("operators"),
  };
}

/** The configuration file in use: --config, else LADING_CONFIG, else ./lading.yaml if present. */
export function configFilePath(
  parsed: ParsedArgs,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const named = (parsed.flags.config as string | undefined) ?? (env.LADING_CONFIG || undefined);
  if (named !== undefined) return named;
  return existsSync("lading.yaml") ? "lading.yaml" : undefined;
}

/**
 * The settings `serve` and the `admin` commands run with: the same file, environment and flags,
 * layered the same way, so an operator command acts on the store the server uses.
 */
export function loadConfig(parsed: ParsedArgs, env: NodeJS.ProcessEnv = process.env): LadingConfig {
  const path = configFilePath(parsed, env);
  const file = path === undefined ? undefined : readConfigFile(path);
  if (file?.error) throw new UsageError(file.error);
  try {
    return resolveConfig(configFromFlags(parsed), env, file?.value);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
