import assert from "node:assert/strict";
import { test } from "node:test";
import { PackageURL } from "packageurl-js";
import { isDpkgStatusPath, parseDpkgStatus } from "./dpkg-status.ts";

const BOOKWORM = { id: "debian", versionId: "12", idLike: [] };

const STATUS = `Package: libc6
Status: install ok installed
Priority: optional
Architecture: amd64
Multi-Arch: same
Source: glibc
Version: 2.36-9+deb12u7
Description: GNU C Library: Shared libraries
 Contains the standard libraries that are used by nearly all programs on
 the system.
 .
 This package includes shared versions of the standard C library.

Package: removed-thing
Status: deinstall ok config-files
Architecture: amd64
Version: 1.0-1

Package: perl-base
Status: install  ok  installed
Architecture: amd64
Source: perl (5.36.0-7+deb12u1)
Version: 5.36.0-7+deb12u1

Package: login
Status: install ok installed
Architecture: amd64
Version: 1:4.13+dfsg1-1+b1
`;

test("installed stanzas become canonical deb purls with distro, epoch and upstream; removed ones do not count", () => {
  const db = parseDpkgStatus(STATUS, "var/lib/dpkg/status", BOOKWORM);
  assert.deepEqual(db.errors, []);
  assert.deepEqual(
    db.packages.map((p) => [p.name, p.version, p.purl, p.origin]),
    [
      [
        "libc6",
        "2.36-9+deb12u7",
        "pkg:deb/debian/libc6@2.36-9+deb12u7?arch=amd64&distro=debian-12&upstream=glibc",
        "glibc",
      ],
      [
        "perl-base",
        "5.36.0-7+deb12u1",
        "pkg:deb/debian/perl-base@5.36.0-7+deb12u1?arch=amd64&distro=debian-12&upstream=perl",
        "perl",
      ],
      [
        "login",
        "1:4.13+dfsg1-1+b1",
        "pkg:deb/debian/login@4.13+dfsg1-1+b1?arch=amd64&distro=debian-12&epoch=1",
        undefined,
      ],
    ],
  );
  assert.equal(db.packages[0].ecosystem, "Debian");
  assert.equal(db.packages[0].licence, undefined);
  // Each purl reads back with the purl library as the same package, in the same canonical form.
  for (const pkg of db.packages) {
    const parsed = PackageURL.fromString(pkg.purl);
    assert.equal(parsed.toString(), pkg.purl);
    assert.equal(parsed.name, pkg.name);
    const epoch = parsed.qualifiers?.epoch;
    assert.equal(epoch ? `${epoch}:${parsed.version}` : parsed.version, pkg.version);
  }
});

test("the epoch is kept in the version and goes to the purl's epoch qualifier", () => {
  const db = parseDpkgStatus(
    "Package: x\nStatus: install ok installed\nVersion: 1:2.3-4\nArchitecture: all\n",
    "var/lib/dpkg/status",
  );
  assert.equal(db.packages[0].version, "1:2.3-4");
  assert.equal(db.packages[0].purl, "pkg:deb/debian/x@2.3-4?arch=all&epoch=1");
});

test("ubuntu images get the ubuntu namespace; other IDs fall back to debian", () => {
  const text = "Package: bash\nStatus: install ok installed\nVersion: 5.2.21-2ubuntu4\n";
  const noble = { id: "ubuntu", versionId: "24.04", idLike: ["debian"] };
  const ubuntu = parseDpkgStatus(text, "var/lib/dpkg/status", noble).packages[0];
  assert.equal(ubuntu.purl, "pkg:deb/ubuntu/bash@5.2.21-2ubuntu4?distro=ubuntu-24.04");
  assert.equal(ubuntu.ecosystem, "Ubuntu");
  const kali = parseDpkgStatus(text, "var/lib/dpkg/status", {
    id: "kali",
    versionId: "2024.3",
    idLike: ["debian"],
  }).packages[0];
  assert.equal(kali.purl, "pkg:deb/debian/bash@5.2.21-2ubuntu4?distro=kali-2024.3");
});

test("status.d stanzas need no Status; in status a stanza without one is not installed", () => {
  const text = "Package: base-files\nVersion: 12.4+deb12u6\nArchitecture: amd64\n";
  assert.equal(parseDpkgStatus(text, "var/lib/dpkg/status.d/base-files").packages.length, 1);
  assert.equal(parseDpkgStatus(text, "var/lib/dpkg/status").packages.length, 0);
});

test("status.d files are databases, their md5sums are not", () => {
  assert.ok(isDpkgStatusPath("var/lib/dpkg/status"));
  assert.ok(isDpkgStatusPath("var/lib/dpkg/status.d/libc6"));
  assert.ok(!isDpkgStatusPath("var/lib/dpkg/status.d/libc6.md5sums"));
  assert.ok(!isDpkgStatusPath("var/lib/dpkg/status-old"));
  assert.ok(!isDpkgStatusPath("var/lib/dpkg/status.d/sub/x"));
});

test("broken stanzas are errors naming the file and line", () => {
  const db = parseDpkgStatus(
    "Package: a\nStatus: install ok installed\n\n junk\nStatus: install ok installed\nPackage: b\n",
    "var/lib/dpkg/status",
  );
  assert.deepEqual(db.errors, [
    "var/lib/dpkg/status: line 4: continuation line with no field before it",
    "var/lib/dpkg/status: stanza at line 1 has no Version",
    "var/lib/dpkg/status: stanza at line 5 has no Version",
  ]);
});
