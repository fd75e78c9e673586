import assert from "node:assert/strict";
import { test } from "node:test";
import { isPythonDistInfoPath, parsePythonDistInfo } from "./python-dist-info.ts";

const PATH = "usr/lib/python3.12/site-packages/Foo_Bar-1.0.dist-info/METADATA";

test("core metadata becomes a pypi purl with the PEP 503 name", () => {
  const db = parsePythonDistInfo(
    "Metadata-Version: 2.4\nName: Foo_Bar.baz\nVersion: 1.0+local\nLicense-Expression: MIT OR Apache-2.0\nLicense: ignored\n\nLicense: in the body, ignored\n",
    PATH,
  );
  assert.deepEqual(db, {
    packages: [
      {
        name: "foo-bar-baz",
        version: "1.0+local",
        purl: "pkg:pypi/foo-bar-baz@1.0+local",
        ecosystem: "PyPI",
        licence: "MIT OR Apache-2.0",
        source: PATH,
      },
    ],
    errors: [],
  });
});

test("License is used when one short line, not when it is a pasted licence text", () => {
  const short = parsePythonDistInfo("Name: a\nVersion: 1\nLicense: BSD-3-Clause\n", PATH);
  assert.equal(short.packages[0].licence, "BSD-3-Clause");
  const long = parsePythonDistInfo(
    "Name: a\nVersion: 1\nLicense: Copyright (c) 2024\n        Permission is hereby granted\n",
    PATH,
  );
  assert.equal(long.packages[0].licence, undefined);
  const unknown = parsePythonDistInfo("Name: a\nVersion: 1\nLicense: UNKNOWN\n", PATH);
  assert.equal(unknown.packages[0].licence, undefined);
});

test("no Name or Version is an error", () => {
  assert.deepEqual(parsePythonDistInfo("Name: a\n", PATH).errors, [`${PATH}: no Version field`]);
});

test("dist-info METADATA and egg-info PKG-INFO in any folder are wanted, other files not", () => {
  assert.ok(isPythonDistInfoPath(PATH));
  assert.ok(isPythonDistInfoPath("usr/lib/python3/dist-packages/six-1.16.0.dist-info/METADATA"));
  assert.ok(isPythonDistInfoPath("app/.venv/lib/python3.11/site-packages/x-1.dist-info/METADATA"));
  // pip install --target puts distributions where no site-packages is.
  assert.ok(isPythonDistInfoPath("app/deps/x-1.dist-info/METADATA"));
  assert.ok(
    isPythonDistInfoPath("usr/lib/python3/dist-packages/Pygments-2.14.0.egg-info/PKG-INFO"),
  );
  assert.ok(isPythonDistInfoPath("usr/lib/python3/dist-packages/cupshelpers-1.0-py3.10.egg-info"));
  assert.ok(isPythonDistInfoPath("opt/lib/x-1.0-py3.11.egg/EGG-INFO/PKG-INFO"));
  assert.ok(!isPythonDistInfoPath("usr/lib/python3/site-packages/x-1.dist-info/RECORD"));
  assert.ok(!isPythonDistInfoPath("usr/lib/python3/site-packages/x-1.egg-info/SOURCES.txt"));
  assert.ok(!isPythonDistInfoPath("usr/lib/python3/site-packages/METADATA"));
});
