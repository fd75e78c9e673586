import assert from "node:assert/strict";
import { test } from "node:test";
import { isNodePackagePath, parseNodePackage } from "./node-package.ts";

test("a manifest becomes an npm purl; a scope is percent-encoded", () => {
  const path = "app/node_modules/@babel/core/package.json";
  const db = parseNodePackage(
    JSON.stringify({ name: "@babel/core", version: "7.24.0", license: "MIT" }),
    path,
  );
  assert.deepEqual(db, {
    packages: [
      {
        name: "@babel/core",
        version: "7.24.0",
        purl: "pkg:npm/%40babel/core@7.24.0",
        ecosystem: "npm",
        licence: "MIT",
        source: path,
      },
    ],
    errors: [],
  });
});

test("licences from the string, the legacy object, or the legacy list", () => {
  const licence = (manifest: object) =>
    parseNodePackage(JSON.stringify({ name: "a", version: "1.0.0", ...manifest }), "p").packages[0]
      .licence;
  assert.equal(licence({ license: "ISC" }), "ISC");
  assert.equal(licence({ license: { type: "BSD-2-Clause", url: "x" } }), "BSD-2-Clause");
  assert.equal(licence({ licenses: [{ type: "MIT" }, "Apache-2.0"] }), "MIT OR Apache-2.0");
  assert.equal(licence({}), undefined);
});

test("broken manifests are errors", () => {
  assert.match(parseNodePackage("{", "p").errors[0], /^p: not JSON/);
  assert.deepEqual(parseNodePackage("[]", "p").errors, ['p: no string "name" and "version"']);
  assert.deepEqual(parseNodePackage('{"name":"a"}', "p").errors, [
    'p: no string "name" and "version"',
  ]);
});

test("only manifests directly in a package folder are wanted, at any nesting", () => {
  assert.ok(isNodePackagePath("usr/lib/node_modules/npm/package.json"));
  assert.ok(isNodePackagePath("node_modules/@scope/pkg/package.json"));
  assert.ok(isNodePackagePath("app/node_modules/a/node_modules/b/package.json"));
  assert.ok(isNodePackagePath("app/node_modules/.pnpm/a@1.0.0/node_modules/a/package.json"));
  assert.ok(!isNodePackagePath("app/package.json"));
  assert.ok(!isNodePackagePath("app/node_modules/a/lib/package.json"));
  assert.ok(!isNodePackagePath("app/node_modules/@scope/package.json"));
  assert.ok(!isNodePackagePath("app/node_modules/.bin/package.json"));
});
