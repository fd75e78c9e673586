import assert from "node:assert/strict";
import { test } from "node:test";
import type { LayerPackage } from "../layers/layer-package.ts";
import { parseSbom } from "../sbom/index.ts";
import { imagePurl, isLicenseExpression, spdxChunks, writeSpdx } from "./spdx-writer.ts";

const subject = {
  registryUrl: "https://registry.example.com",
  path: "acme/team/App",
  digest: "sha256:0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6",
};

const found: LayerPackage[] = [
  {
    name: "musl",
    version: "1.2.5-r0",
    purl: "pkg:apk/alpine/musl@1.2.5-r0?arch=x86_64",
    ecosystem: "Alpine",
    licence: "MIT",
    origin: "musl",
    source: "lib/apk/db/installed",
  },
  {
    name: "requests",
    version: "2.32.3",
    purl: "pkg:pypi/requests@2.32.3",
    ecosystem: "PyPI",
    licence: "Apache License 2.0",
    source: "usr/lib/python3.12/site-packages/requests-2.32.3.dist-info/METADATA",
  },
  {
    name: "@types/node",
    version: "24.0.0",
    purl: "pkg:npm/%40types/node@24.0.0",
    ecosystem: "npm",
    licence: undefined,
    source: "app/node_modules/@types/node/package.json",
  },
];

test("a generated SPDX document reads back as exactly the packages found", () => {
  const bytes = writeSpdx(subject, found, "1.2.3", new Date("2026-01-02T03:04:05.678Z"));
  const read = parseSbom(bytes, "application/spdx+json");
  assert.equal(read.error, undefined);
  assert.equal(read.value?.format, "spdx-2.3");
  assert.deepEqual(read.value?.packages, [
    {
      name: "musl",
      version: "1.2.5-r0",
      purl: "pkg:apk/alpine/musl@1.2.5-r0?arch=x86_64",
      ecosystem: "apk",
      licence: "MIT",
    },
    // Free text is not an SPDX expression: NOASSERTION, the text kept as a comment.
    {
      name: "requests",
      version: "2.32.3",
      purl: "pkg:pypi/requests@2.32.3",
      ecosystem: "pypi",
      licence: "",
    },
    {
      name: "@types/node",
      version: "24.0.0",
      purl: "pkg:npm/%40types/node@24.0.0",
      ecosystem: "npm",
      licence: "",
    },
  ]);
  const doc = JSON.parse(bytes.toString("utf8"));
  assert.deepEqual(doc.creationInfo, {
    created: "2026-01-02T03:04:05Z",
    creators: ["Tool: lading-1.2.3"],
  });
  assert.match(
    doc.documentNamespace,
    /^https:\/\/registry\.example\.com\/spdx\/acme\/team\/App\/sha256:0d1e[0-9a-f]+\/[0-9a-f-]{36}$/,
  );
  assert.deepEqual(doc.relationships[0], {
    spdxElementId: "SPDXRef-DOCUMENT",
    relationshipType: "DESCRIBES",
    relatedSpdxElement: "SPDXRef-Image",
  });
  assert.equal(doc.relationships.length, 1 + found.length);
  const requests = doc.packages.find((p: { name: string }) => p.name === "requests");
  assert.equal(requests.licenseDeclared, "NOASSERTION");
  assert.equal(requests.licenseComments, "Apache License 2.0");
  const musl = doc.packages.find((p: { name: string }) => p.name === "musl");
  assert.equal(musl.sourceInfo, "built from source package musl");
});

test("the same image and version give the same bytes; another version another namespace", () => {
  const created = new Date("2026-01-02T03:04:05Z");
  const a = writeSpdx(subject, found, "1.2.3", created);
  assert.deepEqual(writeSpdx(subject, found, "1.2.3", created), a);
  const ns = (b: Buffer) => JSON.parse(b.toString("utf8")).documentNamespace as string;
  assert.notEqual(ns(writeSpdx(subject, found, "1.2.4", created)), ns(a));
  assert.match(ns(a), /\/[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test("the image's own purl is an oci purl naming its repository", () => {
  assert.equal(
    imagePurl(subject),
    "pkg:oci/app@sha256%3A0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6?repository_url=registry.example.com%2Facme%2Fteam%2FApp",
  );
});

test("licence expressions are told from free text", () => {
  for (const good of [
    "MIT",
    "Apache-2.0 OR MIT",
    "(MIT AND BSD-3-Clause)",
    "GPL-2.0-or-later WITH Classpath-exception-2.0",
    "LicenseRef-foo",
  ]) {
    assert.equal(isLicenseExpression(good), true, good);
  }
  for (const bad of [
    "MIT License",
    "Apache License 2.0",
    "MIT AND",
    "AND MIT",
    "",
    "MIT/X11",
    "BSD OR OR MIT",
  ]) {
    assert.equal(isLicenseExpression(bad), false, bad);
  }
});

test("a large document comes in pieces of about 64 KiB whose bytes are JSON.stringify's", () => {
  const many = Array.from({ length: 5000 }, (_, i) => ({ ...found[i % 3], name: `p-é-${i}` }));
  const chunks = [...spdxChunks(subject, many, "1.2.3", new Date(0))];
  assert.ok(chunks.length > 10, `${chunks.length} pieces`);
  for (const chunk of chunks) assert.ok(chunk.length < 80 * 1024, `a piece of ${chunk.length}`);
  const text = Buffer.concat(chunks).toString("utf8");
  assert.equal(text, JSON.stringify(JSON.parse(text)));
  const doc = JSON.parse(text);
  assert.equal(doc.packages.length, 5001);
  assert.equal(doc.relationships.length, 5001);
  assert.equal(doc.packages[5000].name, "p-é-4999");
});
