import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { PackageURL } from "packageurl-js";
import { layer, layersOf } from "../../../test/support/tar-layers.ts";
import { isNpmLockPath, parseNpmLock } from "./npm-lock.ts";
import { scanImagePackages } from "./scan-image-packages.ts";

const lockFile = () =>
  readFile(new URL("../../../test/fixtures/lockfiles/npm-v3/package-lock.json", import.meta.url));

/** What `npm install` resolved, not counting the dev-only is-number@7.0.0 (ORIGIN.md). */
const EXPECTED = [
  "pkg:npm/is-number@6.0.0",
  "pkg:npm/packageurl-js@2.0.1",
  "pkg:npm/picomatch@4.0.2",
];

test("a lock npm wrote lists every resolved non-dev package, aliases by their real name", async () => {
  const db = parseNpmLock((await lockFile()).toString("utf8"), "srv/app/package-lock.json");
  assert.deepEqual(db.errors, []);
  assert.deepEqual(db.packages.map((p) => p.purl).sort(), EXPECTED);
  const alias = db.packages.find((p) => p.name === "is-number");
  assert.deepEqual(alias, {
    name: "is-number",
    version: "6.0.0",
    purl: "pkg:npm/is-number@6.0.0",
    ecosystem: "npm",
    licence: "MIT",
    source: "srv/app/package-lock.json",
  });
  for (const purl of EXPECTED) assert.equal(PackageURL.fromString(purl).toString(), purl);
});

test("in an image, the lock's packages are listed with the lock as their location", async () => {
  const result = await scanImagePackages(
    layersOf(await layer([{ name: "srv/app/package-lock.json", content: await lockFile() }])),
  );
  assert.deepEqual(result.errors, []);
  assert.deepEqual(
    result.packages.map((p) => `${p.purl} ${p.source}`),
    EXPECTED.map((purl) => `${purl} srv/app/package-lock.json`),
  );
});

test("scoped names, links, unresolved entries and version 1 locks", () => {
  const db = parseNpmLock(
    JSON.stringify({
      packages: {
        "": { name: "app", version: "1.0.0" },
        "node_modules/@scope/a": { version: "1.2.3" },
        "node_modules/@scope/a/node_modules/b": { version: "2.0.0" },
        "node_modules/ws": { link: true, resolved: "packages/ws" },
        "node_modules/optional": { optional: true },
      },
    }),
    "package-lock.json",
  );
  assert.deepEqual(
    db.packages.map((p) => p.purl),
    ["pkg:npm/%40scope/a@1.2.3", "pkg:npm/b@2.0.0"],
  );
  assert.match(
    parseNpmLock('{"lockfileVersion":1,"dependencies":{}}', "p").errors[0],
    /no "packages"/,
  );
  assert.match(parseNpmLock("{", "p").errors[0], /not JSON/);
});

test("only locks outside node_modules are wanted", () => {
  assert.ok(isNpmLockPath("package-lock.json"));
  assert.ok(isNpmLockPath("srv/app/package-lock.json"));
  assert.ok(isNpmLockPath("srv/app/npm-shrinkwrap.json"));
  assert.ok(!isNpmLockPath("srv/app/node_modules/.package-lock.json"));
  assert.ok(!isNpmLockPath("srv/app/node_modules/x/package-lock.json"));
  assert.ok(!isNpmLockPath("srv/app/yarn.lock"));
});
