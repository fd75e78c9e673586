import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

const repo = new URL("../..", import.meta.url).pathname;
const read = (file: string) => readFileSync(join(repo, file), "utf8");

describe("README prerequisites", () => {
  it("one apt-get line installs every Debian package CI installs, PostgreSQL too", () => {
    const lines = read("README.md")
      .split("\n")
      .filter((line) => /^sudo apt-get install /.test(line));
    assert.equal(lines.length, 1, "one apt-get line");
    const readme = new Set(lines[0].replace("sudo apt-get install ", "").split(/\s+/));
    const ci = /^packages="([^"]+)"/m.exec(read(".ci/run"))?.[1].split(/\s+/) ?? [];
    assert.ok(ci.length > 5, "the package list of .ci/run");
    for (const name of [...ci, "postgresql", "curl"]) {
      assert.ok(readme.has(name), `the README's apt-get line lacks ${name}`);
    }
  });
});
