import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import {
  ensurePublicAdvisoriesGroup,
  importFeed,
  importFormats,
} from "../../src/vulnerabilities/index.ts";
import { rootfsEntries } from "../support/fixture-rootfs.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";
import { umociImage, waitFor } from "../support/scan-images.ts";
import type { TarEntry } from "../support/tar-layers.ts";

const run = promisify(execFile);
const GHSA = "GHSA-78wr-2p64-hpwj";
const WEBRICK = "GHSA-6f62-3596-g6w7";
const SMALLVEC = "RUSTSEC-2021-0003";
const RUST_BINARY = new URL("../fixtures/binaries/rust-auditable/hello-auditable", import.meta.url);
const fixtureOsv = (id: string) => new URL(`../fixtures/osv/${id}.json`, import.meta.url);

interface Match {
  vulnerability: { id: string };
  pkg: { name: string; version: string; purl: string };
  fix: { state: string; versions: string[] };
}

/** Imports real OSV records (test/fixtures/osv) as the public advisories. */
async function importOsv(r: RegistryTestServer, ...ids: string[]): Promise<void> {
  const db = r.server.lading.store.db;
  await importFeed(
    db,
    { parentUid: await ensurePublicAdvisoriesGroup(db), source: "osv", author: "test" },
    importFormats.osv.parser,
    await Promise.all(
      ids.map(async (id) => ({ file: `${id}.json`, text: await readFile(fixtureOsv(id), "utf8") })),
    ),
    { finish: false },
  );
}

/** Pushes a one-layer image (a fixture rootfs, or files) with skopeo and waits for its scan. */
async function pushScanned(r: RegistryTestServer, fixture: string | TarEntry[], repo: string) {
  const db = r.server.lading.store.db;
  const files = typeof fixture === "string" ? await rootfsEntries(fixture) : fixture;
  const { layout, digest } = await umociImage("v1", [files]);
  await run("skopeo", [
    "copy",
    `oci:${layout}:v1`,
    `docker://${r.host}/${repo}:v1`,
    "--dest-creds",
    `_token:${r.ownerToken}`,
    "--dest-tls-verify=false",
  ]);
  const row = await waitFor(
    "the scan",
    () =>
      db
        .selectFrom("image_scans")
        .selectAll()
        .where("digest", "=", digest)
        .where("state", "=", "done")
        .executeTakeFirst(),
    60_000,
  );
  return { digest, row };
}

/** The image's report through the v1 API, once it has matches. */
function reportOf(r: RegistryTestServer, repoUid: string, digest: string): Promise<Match[]> {
  return waitFor(
    "the report",
    async () => {
      const res = await fetch(
        `${r.server.apiUrl}/registry/v1/repos/${repoUid}/digests/${digest}/vulnreport`,
        { headers: { authorization: `Bearer ${r.server.org.token}` } },
      );
      if (!res.ok) return undefined;
      const body = (await res.json()) as { vulnerabilityMatches?: Match[] };
      return body.vulnerabilityMatches?.length ? body.vulnerabilityMatches : undefined;
    },
    60_000,
  );
}

/**
 * The real-file Debian image (test/fixtures/images/bookworm-inventory) pushed with skopeo, with
 * scanning on: its generated package list has the jars, eggs and application manifests, and
 * its report matches the jar against the OSV record of its ecosystem. Then the gems Debian
 * installed (ruby-gems) and a Rust binary with cargo-auditable data, each against a real
 * record of its ecosystem (test/fixtures/osv/SOURCE.md).
 */
for (const pair of registryPairs) {
  describe(`package inventory of a real-file image [${pair.store}, ${pair.blobs}]`, () => {
    // Lading as users run it: scanning and matching on, no hooks.
    let r: RegistryTestServer;
    before(async () => {
      r = await startRegistryServer(pair);
    });
    after(() => r?.close());

    it("lists jars, egg-info and npm applications and matches commons-io against its GHSA", async () => {
      const db = r.server.lading.store.db;
      await importOsv(r, GHSA);
      const { digest, row } = await pushScanned(r, "bookworm-inventory", "acme/inventory");
      assert.equal(row.distro, "debian 12");
      const rows = await db
        .selectFrom("image_packages")
        .select("purl")
        .where("image_digest", "=", digest)
        .execute();
      const purls = rows.map((p) => p.purl);
      for (const purl of [
        "pkg:maven/commons-io/commons-io@2.11.0",
        "pkg:maven/com.google.guava/guava@31.1-jre",
        "pkg:pypi/pygments@2.14.0",
        "pkg:pypi/greet-lading@1.2.0",
        "pkg:npm/hooks-app@1.0.0",
        "pkg:deb/debian/login@4.13+dfsg1-1+deb12u1?arch=amd64&distro=debian-12&epoch=1&upstream=shadow",
      ]) {
        assert.ok(purls.includes(purl), `${purl} is listed`);
      }
      // Found at two paths, listed once in the package list.
      assert.equal(purls.filter((p) => p === "pkg:npm/packageurl-js@2.0.1").length, 1);

      const report = await reportOf(r, row.repo_uid, digest);
      assert.deepEqual(
        report.map((m) => [m.vulnerability.id, m.pkg.name, m.pkg.version]),
        [["CVE-2024-47554", "commons-io:commons-io", "2.11.0"]],
      );
    });

    it("matches a gem a Debian package installed against the RubyGems record", async () => {
      await importOsv(r, WEBRICK);
      const { digest, row } = await pushScanned(r, "ruby-gems", "acme/gems");
      const report = await reportOf(r, row.repo_uid, digest);
      assert.deepEqual(
        report.map((m) => [m.vulnerability.id, m.pkg.purl, m.fix.state, m.fix.versions]),
        [["CVE-2024-47220", "pkg:gem/webrick@1.8.1", "FIXED", ["1.8.2"]]],
      );
    });

    it("lists the crates of a Rust binary's cargo-auditable data and matches smallvec", async () => {
      await importOsv(r, SMALLVEC);
      const binary = await readFile(RUST_BINARY);
      const { digest, row } = await pushScanned(
        r,
        [{ name: "usr/local/bin/hello-auditable", content: binary, mode: 0o755 }],
        "acme/rust",
      );
      const rows = await r.server.lading.store.db
        .selectFrom("image_packages")
        .select("purl")
        .where("image_digest", "=", digest)
        .execute();
      assert.deepEqual(rows.map((p) => p.purl).sort(), [
        "pkg:cargo/itoa@1.0.10",
        "pkg:cargo/ryu@1.0.17",
        "pkg:cargo/serde@1.0.197",
        "pkg:cargo/serde_json@1.0.114",
        "pkg:cargo/smallvec@1.6.0",
      ]);
      const report = await reportOf(r, row.repo_uid, digest);
      assert.deepEqual(
        report.map((m) => [m.vulnerability.id, m.pkg.purl, m.fix.state, m.fix.versions]),
        [["CVE-2021-25900", "pkg:cargo/smallvec@1.6.0", "FIXED", ["1.6.1"]]],
      );
    });
  });
}
