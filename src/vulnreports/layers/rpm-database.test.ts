import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { PackageURL } from "packageurl-js";
import { rootfsEntries } from "../../../test/support/fixture-rootfs.ts";
import { layer, layersOf } from "../../../test/support/tar-layers.ts";
import { isRpmSqlitePath, parseRpmSqlite, rpmPackage } from "./rpm-database.ts";
import { parseRpmHeader } from "./rpm-header.ts";
import { scanImagePackages } from "./scan-image-packages.ts";

const DB = "var/lib/rpm/rpmdb.sqlite";
const FEDORA = { id: "fedora", versionId: "40", idLike: [] };
const fixture = () =>
  readFile(new URL(`../../../test/fixtures/images/rpm-sqlite/rootfs/${DB}`, import.meta.url));

/** What rpm itself lists for the fixture (`rpm -qa`, ORIGIN.md): exactly these. */
const EXPECTED = [
  "pkg:rpm/fedora/greet-lading@1.2.0-3.fc40?arch=noarch&distro=fedora-40&upstream=greet-lading-1.2.0-3.fc40.src.rpm",
  "pkg:rpm/fedora/hello-tool@2.0-1.fc40?arch=noarch&distro=fedora-40&epoch=2&upstream=hello-tool-2.0-1.fc40.src.rpm",
];

test("a real rpm SQLite database lists every package rpm installed, nothing else", async () => {
  const db = parseRpmSqlite(await fixture(), DB, FEDORA);
  assert.deepEqual(db.errors, []);
  assert.deepEqual(db.packages.map((p) => p.purl).sort(), EXPECTED);
  const [hello, greet] = db.packages;
  assert.deepEqual(greet, {
    name: "greet-lading",
    version: "1.2.0-3.fc40",
    purl: EXPECTED[0],
    ecosystem: "RPM",
    licence: "MIT",
    origin: "greet-lading",
    source: DB,
  });
  assert.equal(hello.version, "2:2.0-1.fc40");
  assert.equal(hello.licence, "Apache-2.0");
  for (const purl of EXPECTED) assert.equal(PackageURL.fromString(purl).toString(), purl);
});

test("the namespace is the vendor: redhat for RHEL, amazon for Amazon Linux", async () => {
  const rhel = parseRpmSqlite(await fixture(), DB, {
    id: "rhel",
    versionId: "9.4",
    idLike: ["fedora"],
  });
  assert.match(rhel.packages[1].purl, /^pkg:rpm\/redhat\/greet-lading@.*distro=rhel-9\.4/);
  assert.equal(rhel.packages[0].ecosystem, "Red Hat");
  const amzn = parseRpmSqlite(await fixture(), DB, {
    id: "amzn",
    versionId: "2023",
    idLike: ["fedora"],
  });
  assert.match(amzn.packages[1].purl, /^pkg:rpm\/amazon\/greet-lading@.*distro=amzn-2023/);
  // No os-release: no vendor and no distro are guessed.
  const none = parseRpmSqlite(await fixture(), DB, undefined);
  assert.match(
    none.packages[1].purl,
    /^pkg:rpm\/greet-lading@1\.2\.0-3\.fc40\?arch=noarch&upstream=/,
  );
});

test("an image with the rpm database is scanned end to end", async () => {
  const osRelease = await layer([
    { name: "etc/os-release", content: "ID=fedora\nVERSION_ID=40\n" },
  ]);
  const result = await scanImagePackages(
    layersOf(await layer(await rootfsEntries("rpm-sqlite")), osRelease),
  );
  assert.deepEqual(result.errors, []);
  assert.deepEqual(
    result.packages.map((p) => `${p.purl} ${p.source}`),
    EXPECTED.map((purl) => `${purl} ${DB}`),
  );
});

test("what is not an rpm database is an error, not a crash", () => {
  assert.deepEqual(parseRpmSqlite(Buffer.from("not sqlite"), DB).errors, [
    `${DB}: not an SQLite database`,
  ]);
  const truncated = Buffer.concat([Buffer.from("SQLite format 3\0"), Buffer.alloc(200)]);
  assert.equal(parseRpmSqlite(truncated, DB).packages.length, 0);
  assert.equal(parseRpmSqlite(truncated, DB).errors.length, 1);
});

test("header blobs are bounds-checked", () => {
  assert.ok(parseRpmHeader(Buffer.alloc(4)).error);
  const huge = Buffer.alloc(8);
  huge.writeUInt32BE(0x10000, 0);
  assert.match(String(parseRpmHeader(huge).error), /65536 entries/);
  const short = Buffer.alloc(8 + 16);
  short.writeUInt32BE(1, 0);
  short.writeUInt32BE(100, 4);
  assert.match(String(parseRpmHeader(short).error), /declares/);
  // NAME pointing past the data, and an unterminated string.
  const outside = header([[1000, 6, 50]], Buffer.from("abc\0"));
  assert.match(String(parseRpmHeader(outside).error), /outside/);
  const open = header([[1000, 6, 0]], Buffer.from("abc"));
  assert.match(String(parseRpmHeader(open).error), /not a terminated string/);
  const epoch = header([[1003, 6, 0]], Buffer.from("abc\0"));
  assert.match(String(parseRpmHeader(epoch).error), /epoch/);
});

test("gpg-pubkey pseudo-packages are not listed; a header without a release is an error", () => {
  const key = rpmPackage({ name: "gpg-pubkey", version: "a", release: "b" }, DB, FEDORA);
  assert.deepEqual(key, { value: undefined });
  assert.deepEqual(rpmPackage({ name: "x", version: "1" }, DB, FEDORA), {
    error: "header has no release",
  });
});

test("only the rpm SQLite database paths are wanted", () => {
  assert.ok(isRpmSqlitePath(DB));
  assert.ok(isRpmSqlitePath("usr/lib/sysimage/rpm/rpmdb.sqlite"));
  assert.ok(!isRpmSqlitePath("var/lib/rpm/rpmdb.sqlite-wal"));
  assert.ok(!isRpmSqlitePath("opt/var/lib/rpm/rpmdb.sqlite"));
});

/** A header of index entries [tag, type, offset] (count 1) over `data`. */
function header(entries: [number, number, number][], data: Buffer): Buffer {
  const out = Buffer.alloc(8 + entries.length * 16);
  out.writeUInt32BE(entries.length, 0);
  out.writeUInt32BE(data.length, 4);
  entries.forEach(([tag, type, offset], i) => {
    out.writeUInt32BE(tag, 8 + i * 16);
    out.writeUInt32BE(type, 12 + i * 16);
    out.writeUInt32BE(offset, 16 + i * 16);
    out.writeUInt32BE(1, 20 + i * 16);
  });
  return Buffer.concat([out, data]);
}
