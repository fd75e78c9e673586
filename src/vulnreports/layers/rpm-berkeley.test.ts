import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { rootfsEntries } from "../../../test/support/fixture-rootfs.ts";
import { layer, layersOf } from "../../../test/support/tar-layers.ts";
import { readBerkeleyHashValues } from "./rpm-berkeley.ts";
import { isRpmBerkeleyPath, parseRpmBerkeley } from "./rpm-database.ts";
import { scanImagePackages } from "./scan-image-packages.ts";

const DB = "var/lib/rpm/Packages";
const RHEL = { id: "rhel", versionId: "8.10", idLike: ["fedora"] };
const fixture = (name: string) =>
  readFile(new URL(`../../../test/fixtures/images/${name}/rootfs/${DB}`, import.meta.url));

/** What rpm's own Berkeley DB reader lists for both fixtures (ORIGIN.md): exactly these. */
const EXPECTED = [
  "pkg:rpm/redhat/greet-lading@1.2.0-3.fc40?arch=noarch&distro=rhel-8.10&upstream=greet-lading-1.2.0-3.fc40.src.rpm",
  "pkg:rpm/redhat/hello-tool@2.0-1.fc40?arch=noarch&distro=rhel-8.10&epoch=2&upstream=hello-tool-2.0-1.fc40.src.rpm",
];

for (const name of ["rpm-berkeley", "rpm-berkeley-be"]) {
  test(`${name}: every package of a real Berkeley DB rpm database, nothing else`, async () => {
    const db = parseRpmBerkeley(await fixture(name), DB, RHEL);
    assert.deepEqual(db.errors, []);
    assert.deepEqual(db.packages.map((p) => p.purl).sort(), EXPECTED);
    const hello = db.packages.find((p) => p.name === "hello-tool");
    assert.equal(hello?.version, "2:2.0-1.fc40");
    assert.equal(hello?.ecosystem, "Red Hat");
    assert.equal(hello?.origin, "hello-tool");
  });
}

test("an image with the Berkeley DB is scanned end to end", async () => {
  const osRelease = await layer([
    { name: "etc/os-release", content: 'ID="rhel"\nVERSION_ID="8.10"\nID_LIKE="fedora"\n' },
  ]);
  const result = await scanImagePackages(
    layersOf(await layer(await rootfsEntries("rpm-berkeley")), osRelease),
  );
  assert.deepEqual(result.errors, []);
  assert.deepEqual(
    result.packages.map((p) => `${p.purl} ${p.source}`),
    EXPECTED.map((purl) => `${purl} ${DB}`),
  );
});

test("a corrupt or hostile file is an error, and overflow pages are read once at most", async () => {
  assert.match(String(readBerkeleyHashValues(Buffer.alloc(100)).error), /shorter/);
  assert.match(String(readBerkeleyHashValues(Buffer.alloc(4096)).error), /not a Berkeley DB/);
  const bytes = Buffer.from(await fixture("rpm-berkeley"));
  // Page 2's off-page item is pointed at the chain page 1's item has already read.
  const itemOf = (page: number) => 4096 * page + bytes.readUInt16LE(4096 * page + 26 + 2);
  assert.equal(bytes[itemOf(1)], 3);
  assert.equal(bytes[itemOf(2)], 3);
  bytes.writeUInt32LE(bytes.readUInt32LE(itemOf(1) + 4), itemOf(2) + 4);
  assert.match(String(readBerkeleyHashValues(bytes).error), /not a free overflow page/);
  const looping = Buffer.from(await fixture("rpm-berkeley"));
  // An overflow page that holds less than its value and names itself as the next.
  looping.writeUInt32LE(3, 4096 * 3 + 16);
  looping.writeUInt16LE(100, 4096 * 3 + 22);
  assert.match(String(readBerkeleyHashValues(looping).error), /not a free overflow page/);
});

test("only var/lib/rpm/Packages is wanted", () => {
  assert.ok(isRpmBerkeleyPath(DB));
  assert.ok(!isRpmBerkeleyPath("var/lib/rpm/Name"));
  assert.ok(!isRpmBerkeleyPath("opt/var/lib/rpm/Packages"));
});
