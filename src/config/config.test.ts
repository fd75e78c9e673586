import assert from "node:assert/strict";
import { it } from "node:test";
import { parseListen, resolveConfig } from "./config.ts";

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
