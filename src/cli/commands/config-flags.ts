import type { ParseArgsConfig } from "node:util";
import type { ConfigInput } from "../../config/index.ts";

/** The flags every command that opens the store or serves accepts. */
export const configOptions = {
  "data-dir": { type: "string" },
  "api-listen": { type: "string" },
  "api-url": { type: "string" },
  "database-url": { type: "string" },
  "tls-cert": { type: "string" },
  "tls-key": { type: "string" },
  "log-level": { type: "string" },
  "registry-listen": { type: "string" },
  "registry-url": { type: "string" },
  "blob-store": { type: "string" },
  "public-org": { type: "string" },
  "free-tier-tags": { type: "string" },
  "required-terms": { type: "string" },
  "headers-timeout": { type: "string" },
  "request-idle-timeout": { type: "string" },
  "keep-alive-timeout": { type: "string" },
  "max-connections": { type: "string" },
} as const satisfies ParseArgsConfig["options"];

/** Maps parsed flags to config input. */
export function configFromFlags(values: Record<string, string | boolean | undefined>): ConfigInput {
  const text = (name: string) => values[name] as string | undefined;
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
    keepAliveTimeout: text("keep-alive-timeout"),
    maxConnections: text("max-connections"),
  };
}
