import assert from "node:assert/strict";
import { it } from "node:test";
import { parseListen, registryAudience, resolveConfig } from "./config.ts";

it("defaults to local disk and 127.0.0.1:8080", () => {
  const config = resolveConfig({}, {});
  assert.equal(config.dataDir, ".lading");
  assert.deepEqual(config.apiListen, { host: "127.0.0.1", port: 8080 });
  assert.equal(config.apiUrl, undefined);
  assert.equal(config.databaseUrl, undefined);
  assert.ok(Object.isFrozen(config));
});

it("layers flags over the environment", () => {
  const env = {
    LADING_DATA_DIR: "/env",
    LADING_API_LISTEN: "0.0.0.0:9000",
    LADING_API_URL: "https://api.example.com/",
  };
  const config = resolveConfig({ dataDir: "flag" }, env);
  assert.equal(config.dataDir, "flag");
  assert.deepEqual(config.apiListen, { host: "0.0.0.0", port: 9000 });
  assert.equal(config.apiUrl, "https://api.example.com");
});

it("refuses bad values with the flag's name", () => {
  assert.throws(() => resolveConfig({ apiListen: "8080" }, {}), /--api-listen/);
  assert.throws(() => resolveConfig({ apiUrl: "ftp://x" }, {}), /--api-url/);
  assert.throws(() => resolveConfig({ databaseUrl: "mysql://x" }, {}), /--database-url/);
  assert.throws(() => resolveConfig({ tlsCert: "a.pem" }, {}), /--tls-key/);
});

it("parses IPv6 listen addresses", () => {
  assert.deepEqual(parseListen("[::1]:5000", "--x"), { host: "::1", port: 5000 });
  assert.throws(() => parseListen("host:70000", "--x"));
});

it("configures the registry listener, blob store and public organisation", () => {
  const defaults = resolveConfig({}, {});
  assert.deepEqual(defaults.registryListen, { host: "127.0.0.1", port: 5000 });
  assert.equal(defaults.registryUrl, undefined);
  assert.equal(defaults.blobStoreUrl, undefined);
  assert.equal(defaults.publicOrg, "public");
  assert.deepEqual(defaults.freeTierTags, ["latest", "latest-dev"]);
  const env = {
    LADING_REGISTRY_LISTEN: "0.0.0.0:5001",
    LADING_REGISTRY_URL: "https://cr.example.com/",
    LADING_BLOB_STORE: "s3://bucket/prefix?region=x",
    LADING_PUBLIC_ORG: "open",
    LADING_FREE_TIER_TAGS: "stable, edge",
  };
  const config = resolveConfig({ publicOrg: "free" }, env);
  assert.deepEqual(config.registryListen, { host: "0.0.0.0", port: 5001 });
  assert.equal(config.registryUrl, "https://cr.example.com");
  assert.equal(config.blobStoreUrl, "s3://bucket/prefix?region=x");
  assert.equal(config.publicOrg, "free");
  assert.deepEqual(config.freeTierTags, ["stable", "edge"]);
  assert.throws(() => resolveConfig({ registryListen: "5000" }, {}), /--registry-listen/);
  assert.throws(() => resolveConfig({ registryUrl: "cr.example" }, {}), /--registry-url/);
  assert.throws(() => resolveConfig({ blobStore: "/tmp/blobs" }, {}), /--blob-store/);
  assert.throws(() => resolveConfig({ publicOrg: "Bad Org" }, {}), /--public-org/);
});

it("scans images unless told not to", () => {
  assert.equal(resolveConfig({}, {}).scanImages, true);
  assert.equal(resolveConfig({}, { LADING_SCAN_IMAGES: "false" }).scanImages, false);
  assert.equal(
    resolveConfig({ scanImages: "true" }, { LADING_SCAN_IMAGES: "false" }).scanImages,
    true,
  );
  assert.throws(
    () => resolveConfig({ scanImages: "no" }, {}),
    /--scan-images must be true or false/,
  );
});

it("keeps generated SBOMs out of the referrers API unless told to list them", () => {
  assert.equal(resolveConfig({}, {}).scanSbomReferrers, false);
  assert.equal(resolveConfig({}, { LADING_SCAN_SBOM_REFERRERS: "true" }).scanSbomReferrers, true);
  assert.throws(
    () => resolveConfig({ scanSbomReferrers: "yes" }, {}),
    /--scan-sbom-referrers must be true or false/,
  );
});

it("bounds each scan's packages and memory", () => {
  const defaults = resolveConfig({}, {});
  assert.equal(defaults.scanMaxPackages, 200_000);
  assert.equal(defaults.scanMaxMemoryBytes, 384 * 1024 ** 2);
  const set = resolveConfig({ scanMaxPackages: "5000" }, { LADING_SCAN_MAX_MEMORY: "1GiB" });
  assert.equal(set.scanMaxPackages, 5000);
  assert.equal(set.scanMaxMemoryBytes, 1024 ** 3);
  assert.throws(() => resolveConfig({ scanMaxPackages: "0" }, {}), /--scan-max-packages/);
  assert.throws(() => resolveConfig({ scanMaxPackages: "lots" }, {}), /--scan-max-packages/);
  assert.throws(() => resolveConfig({ scanMaxMemory: "128MiB" }, {}), /at least 256MiB/);
  assert.throws(
    () => resolveConfig({}, { LADING_SCAN_MAX_MEMORY: "1GB" }),
    /LADING_SCAN_MAX_MEMORY/,
  );
});

it("derives the registry audience from the registry URL", () => {
  assert.equal(registryAudience("http://127.0.0.1:5000"), "127.0.0.1:5000");
  assert.equal(registryAudience("https://cr.example.com:443"), "cr.example.com");
  assert.equal(registryAudience("https://cr.example.com:8443/"), "cr.example.com:8443");
});

it("reads the required terms documents, default none", () => {
  assert.deepEqual(resolveConfig({}, {}).requiredTerms, []);
  const env = { LADING_REQUIRED_TERMS: "tos-2024, privacy.v1,tos-2024" };
  assert.deepEqual(resolveConfig({}, env).requiredTerms, ["tos-2024", "privacy.v1"]);
  assert.deepEqual(resolveConfig({ requiredTerms: "eula" }, env).requiredTerms, ["eula"]);
  assert.throws(() => resolveConfig({ requiredTerms: "Bad Doc" }, {}), /--required-terms/);
});

it("reads the operators' identity uids, default none, and refuses names", () => {
  const a = "a".repeat(40);
  const b = `${"b".repeat(40)}/${"c".repeat(16)}`;
  assert.deepEqual(resolveConfig({}, {}).operators, []);
  assert.deepEqual(resolveConfig({}, { LADING_OPERATORS: `${a}, ${b},${a}` }).operators, [a, b]);
  assert.deepEqual(resolveConfig({ operators: b }, { LADING_OPERATORS: a }).operators, [b]);
  assert.throws(() => resolveConfig({ operators: "alice" }, {}), /--operators/);
  assert.throws(() => resolveConfig({}, { LADING_OPERATORS: "alice" }), /LADING_OPERATORS/);
});

it("reads the connection timeouts and cap, with their defaults", () => {
  assert.deepEqual(resolveConfig({}, {}).connections, {
    headersTimeoutMs: 20_000,
    requestIdleTimeoutMs: 30_000,
    requestBodyTimeoutMs: 30_000,
    minBodyBytesPerSecond: 1024,
    bodyRateWindowMs: 10_000,
    keepAliveTimeoutMs: 15_000,
    maxConnections: 10_000,
  });
  const env = {
    LADING_HEADERS_TIMEOUT: "5s",
    LADING_REQUEST_IDLE_TIMEOUT: "1m30s",
    LADING_REQUEST_BODY_TIMEOUT: "45s",
    LADING_MIN_BODY_RATE: "4KiB/s",
    LADING_BODY_RATE_WINDOW: "5s",
    LADING_KEEP_ALIVE_TIMEOUT: "750ms",
    LADING_MAX_CONNECTIONS: "2000",
  };
  assert.deepEqual(resolveConfig({ maxConnections: "50", minBodyRate: "512" }, env).connections, {
    headersTimeoutMs: 5_000,
    requestIdleTimeoutMs: 90_000,
    requestBodyTimeoutMs: 45_000,
    minBodyBytesPerSecond: 512,
    bodyRateWindowMs: 5_000,
    keepAliveTimeoutMs: 750,
    maxConnections: 50,
  });
  assert.equal(resolveConfig({ minBodyRate: "0" }, {}).connections.minBodyBytesPerSecond, 0);
  assert.equal(resolveConfig({}, env).connections.minBodyBytesPerSecond, 4096);
  assert.throws(() => resolveConfig({ requestBodyTimeout: "30" }, {}), /--request-body-timeout/);
  assert.throws(() => resolveConfig({ minBodyRate: "1KB/s" }, {}), /--min-body-rate/);
  assert.throws(
    () => resolveConfig({}, { LADING_MIN_BODY_RATE: "-1" }),
    /LADING_MIN_BODY_RATE must be 0 or a size/,
  );
  assert.throws(() => resolveConfig({ bodyRateWindow: "0s" }, {}), /--body-rate-window/);
  assert.throws(() => resolveConfig({ headersTimeout: "20" }, {}), /--headers-timeout.*20s/);
  assert.throws(() => resolveConfig({ requestIdleTimeout: "0s" }, {}), /--request-idle-timeout/);
  assert.throws(() => resolveConfig({ keepAliveTimeout: "soon" }, {}), /--keep-alive-timeout/);
  assert.throws(() => resolveConfig({ maxConnections: "0" }, {}), /--max-connections/);
  assert.throws(() => resolveConfig({ maxConnections: "1e4" }, {}), /--max-connections/);
});

it("records pull events unless --events-pulls is false", () => {
  assert.equal(resolveConfig({}, {}).eventsPulls, true);
  assert.equal(resolveConfig({ eventsPulls: "false" }, {}).eventsPulls, false);
  assert.equal(resolveConfig({}, { LADING_EVENTS_PULLS: "false" }).eventsPulls, false);
  assert.throws(
    () => resolveConfig({ eventsPulls: "off" }, {}),
    /--events-pulls must be true or false/,
  );
});

it("keeps events 7 days unless --events-retention says otherwise, never less than the retry window", () => {
  assert.equal(resolveConfig({}, {}).events.retentionMs, 7 * 86_400_000);
  assert.equal(resolveConfig({ eventsRetention: "30d" }, {}).events.retentionMs, 30 * 86_400_000);
  assert.equal(
    resolveConfig({}, { LADING_EVENTS_RETENTION: "36h" }).events.retentionMs,
    36 * 3_600_000,
  );
  assert.equal(resolveConfig({ eventsRetention: "forever" }, {}).events.retentionMs, 0);
  assert.equal(
    resolveConfig({ eventsRetention: "2h", eventsRetryWindow: "1h" }, {}).events.retentionMs,
    2 * 3_600_000,
  );
  assert.throws(
    () => resolveConfig({ eventsRetention: "12h" }, {}),
    /--events-retention must be at least --events-retry-window/,
  );
  assert.throws(() => resolveConfig({ eventsRetention: "7" }, {}), /--events-retention.*7d/);
});

it("--libraries-max-file-size takes binary units, defaults to 1 GiB, refuses the rest", () => {
  assert.equal(resolveConfig({}, {}).librariesMaxFileBytes, 1024 ** 3);
  assert.equal(
    resolveConfig({ librariesMaxFileSize: "512MiB" }, {}).librariesMaxFileBytes,
    512 * 1024 ** 2,
  );
  assert.equal(
    resolveConfig({}, { LADING_LIBRARIES_MAX_FILE_SIZE: "2048" }).librariesMaxFileBytes,
    2048,
  );
  for (const bad of ["1GB", "1.5GiB", "-1", "0", "lots", "1TiB"]) {
    assert.throws(
      () => resolveConfig({ librariesMaxFileSize: bad }, {}),
      /--libraries-max-file-size/,
      bad,
    );
  }
});

it("allows no internal destination unless --outbound-allow (or its loopback alias) lists it", () => {
  assert.deepEqual(resolveConfig({}, {}).outbound.allow, { hosts: [], cidrs: [] });
  const listed = resolveConfig({ outboundAllow: "10.1.0.0/16, idp.corp.example,::1" }, {});
  assert.deepEqual(listed.outbound.allow, {
    hosts: ["idp.corp.example"],
    cidrs: ["10.1.0.0/16", "::1/128"],
  });
  assert.ok(Object.isFrozen(listed.outbound.allow.cidrs));
  const env = resolveConfig({}, { LADING_OUTBOUND_ALLOW: "127.0.0.1" });
  assert.deepEqual(env.outbound.allow.cidrs, ["127.0.0.1/32"]);
  // The older flag is an alias that adds the loopback ranges.
  const alias = resolveConfig({ outboundAllow: "::1", eventsAllowHttpLoopback: "true" }, {});
  assert.deepEqual(alias.outbound.allow.cidrs, ["::1/128", "127.0.0.0/8"]);
  assert.deepEqual(
    resolveConfig({}, { LADING_EVENTS_ALLOW_HTTP_LOOPBACK: "true" }).outbound.allow.cidrs,
    ["127.0.0.0/8", "::1/128"],
  );
  assert.throws(
    () => resolveConfig({ outboundAllow: "10.0.0.0/40" }, {}),
    /^Error: --outbound-allow: "10.0.0.0\/40": the prefix length must be 0 to 32$/,
  );
  assert.throws(
    () => resolveConfig({}, { LADING_OUTBOUND_ALLOW: "not a host" }),
    /^Error: LADING_OUTBOUND_ALLOW: "not a host" is neither/,
  );
  assert.throws(
    () => resolveConfig({ eventsAllowHttpLoopback: "yes" }, {}),
    /--events-allow-http-loopback must be true or false/,
  );
});

it("--upload-memory takes binary units, defaults to 128 MiB, refuses less than 16 MiB", () => {
  assert.equal(resolveConfig({}, {}).uploadMemoryBytes, 128 * 1024 ** 2);
  assert.equal(resolveConfig({ uploadMemory: "1GiB" }, {}).uploadMemoryBytes, 1024 ** 3);
  assert.equal(
    resolveConfig({}, { LADING_UPLOAD_MEMORY: "64MiB" }).uploadMemoryBytes,
    64 * 1024 ** 2,
  );
  for (const bad of ["8MiB", "0", "lots", "1.5GiB"]) {
    assert.throws(() => resolveConfig({ uploadMemory: bad }, {}), /--upload-memory/, bad);
  }
});
