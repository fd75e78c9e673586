import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type ConfigInput, environmentNames, resolveConfig } from "./config.ts";
import { fileKeyOf, readConfigFile } from "./config-file.ts";

const example = new URL("../../lading.example.yaml", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "lading-config-"));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe("configuration file", () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("lading.example.yaml parses, names every setting, and holds the defaults", () => {
    const read = readConfigFile(example);
    assert.equal(read.error, undefined);
    const text = (read.value as { values: ConfigInput }).values;
    for (const key of Object.keys(environmentNames) as (keyof ConfigInput)[]) {
      assert.ok(
        new RegExp(`^${fileKeyOf(key)}:`, "m").test(readFileSync(example, "utf8")),
        `lading.example.yaml has no ${fileKeyOf(key)}`,
      );
    }
    assert.deepEqual(resolveConfig({}, {}, read.value), resolveConfig({}, {}));
    assert.equal(text.freeTierTags, "latest,latest-dev");
  });

  it("layers flags over the environment over the file over the defaults", () => {
    const path = file(
      "layers.yaml",
      "api-listen: 127.0.0.1:9001\nregistry-listen: 127.0.0.1:9002\npublic-org: lib\nmax-connections: 50\n",
    );
    const read = readConfigFile(path).value;
    const config = resolveConfig(
      { apiListen: "127.0.0.1:9101" },
      { LADING_REGISTRY_LISTEN: "127.0.0.1:9202" },
      read,
    );
    assert.equal(config.apiListen.port, 9101, "the flag wins");
    assert.equal(config.registryListen.port, 9202, "the environment beats the file");
    assert.equal(config.publicOrg, "lib", "the file beats the default");
    assert.equal(config.connections.maxConnections, 50);
    assert.equal(config.dataDir, ".lading", "the default stays");
  });

  it("names the file and the key of a bad value, the variable of a bad environment value", () => {
    const read = readConfigFile(file("bad.yaml", "api-listen: nowhere\n")).value;
    assert.throws(
      () => resolveConfig({}, {}, read),
      /^Error: api-listen must be HOST:PORT, got "nowhere" \(in .*bad\.yaml\)$/,
    );
    assert.throws(
      () => resolveConfig({}, { LADING_HEADERS_TIMEOUT: "soon" }, read),
      /^Error: (LADING_HEADERS_TIMEOUT|api-listen)/,
    );
    assert.throws(
      () => resolveConfig({ apiListen: "x" }, {}, read),
      /^Error: --api-listen must be/,
    );
    const timeout = readConfigFile(file("t.yaml", "headers-timeout: 20\n")).value;
    assert.throws(
      () => resolveConfig({}, {}, timeout),
      /^Error: headers-timeout: .* \(in .*t\.yaml\)$/,
    );
  });

  it("refuses unknown keys, duplicate keys, wrong shapes and what is not YAML", () => {
    assert.match(
      readConfigFile(file("u.yaml", "api-lsten: x\n")).error ?? "",
      /unknown key "api-lsten"; the keys are data-dir, /,
    );
    assert.match(
      readConfigFile(file("d.yaml", "public-org: a\npublic-org: b\n")).error ?? "",
      /not valid YAML: .*unique/i,
    );
    assert.match(
      readConfigFile(file("s.yaml", "public-org:\n  name: a\n")).error ?? "",
      /public-org must be a string/,
    );
    assert.match(readConfigFile(file("l.yaml", "- a\n- b\n")).error ?? "", /must be a mapping/);
    assert.match(readConfigFile(file("y.yaml", "a: [\n")).error ?? "", /not valid YAML/);
    assert.match(
      readConfigFile(join(dir, "missing.yaml")).error ?? "",
      /cannot read the configuration file/,
    );
    assert.deepEqual(readConfigFile(file("empty.yaml", "# nothing\n")).value?.values, {});
  });
});
