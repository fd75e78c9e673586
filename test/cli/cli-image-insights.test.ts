import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import { apk, match, recordScan } from "../support/scan-data.ts";
import type { TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";
import { type CliRunner, type CliServer, startCliServer } from "./cli-support.ts";

const busybox = apk("busybox", "1.36.1-r0");
const zlib = apk("zlib", "1.3-r0");
const zlibNext = apk("zlib", "1.3.1-r0");
const curl = apk("curl", "8.5.0-r0");
const openssl = apk("openssl", "3.1.4-r0");

/** Scans are recorded by hand here: the server must not scan the pushed images itself. */
const noScans = { scanImages: "false" };

for (const kind of storeKinds) {
  describe(`lading images diff, history --changes and vex (CLI process) [${kind}]`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let fixture: CliServer;
    const digests: string[] = [];

    before(async () => {
      fixture = await startCliServer(kind, noScans);
      ({ server, cli } = fixture);
      const host = server.lading.registryAudience;
      const token = await server.token(server.org.identityUid, { audience: host });
      const oci = ociClient(server.lading.registryUrl, token);
      for (const content of ["one", "two", "three"]) {
        digests.push(await oci.pushImage("acme/app", "latest", buildImage(content)));
      }
      await oci.pushImage("acme/app", "v2", buildImage("two"));
      await oci.pushImage("acme/other", "v1", buildImage("one"));
      const repo = (
        await server.lading.store.db
          .selectFrom("repos")
          .select("uid")
          .where("name", "=", "app")
          .executeTakeFirstOrThrow()
      ).uid;
      const db = server.lading.store.db;
      await recordScan(db, repo, digests[0], {
        state: "done",
        packages: [busybox, zlib],
        matches: [match("CVE-2023-0002", "CRITICAL", zlib)],
      });
      await recordScan(db, repo, digests[1], {
        state: "done",
        packages: [busybox, zlibNext, curl, openssl],
        matches: [match("CVE-2024-0004", "HIGH", curl, { state: "FIXED", versions: ["8.6.0-r0"] })],
      });
      await recordScan(db, repo, digests[2], { state: "pending" });
    });
    after(() => fixture.close());

    it("prints packages, CVEs and size per architecture; -o json prints the API answer", async () => {
      const text = await cli.ok("images", "diff", `acme/app@${digests[0]}`, "acme/app:v2");
      const lines = text.trimEnd().split("\n");
      assert.equal(lines[0], "amd64");
      assert.match(lines[1], /^ {2}size [+-]?\d+ bytes \(\d+ → \d+\)$/);
      assert.deepEqual(lines.slice(2), [
        "  packages +2 -0 ~1",
        "  + curl 8.5.0-r0",
        "  + openssl 3.1.4-r0",
        "  ~ zlib 1.3-r0 → 1.3.1-r0",
        "  fixed CVE-2023-0002 CRITICAL",
        "  introduced CVE-2024-0004 HIGH",
      ]);
      const json = JSON.parse(
        await cli.ok(
          "images",
          "diff",
          `acme/app@${digests[0]}`,
          `acme/app@${digests[1]}`,
          "-o",
          "json",
        ),
      );
      assert.equal(json.from, digests[0]);
      assert.equal(json.to, digests[1]);
      assert.equal(json.architectures[0].introduced[0].id, "CVE-2024-0004");

      const pending = await cli.ok("images", "diff", "acme/app:v2", "acme/app:latest");
      assert.match(pending, /^ {2}not compared: from done, to pending$/m);
    });

    it("refuses two repositories, bad references and unknown tags", async () => {
      const two = await cli.run(["images", "diff", "acme/app:v2", "acme/other:v1"]);
      assert.equal(two.code, 2);
      assert.match(
        two.stderr,
        /both images must be of one repository, got acme\/app and acme\/other/,
      );
      const bad = await cli.run(["images", "diff", "acme/app", "acme/app:v2"]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /expected <org>\/<image>@sha256:<digest> or <org>\/<image>:<tag>/);
      const unknown = await cli.run(["images", "diff", "acme/app:nope", "acme/app:v2"]);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /no tag acme\/app:nope/);
      const limit = await cli.run([
        "images",
        "history",
        "acme/app:latest",
        "--changes",
        "--limit",
        "0",
      ]);
      assert.equal(limit.code, 2);
    });

    it("summarises each move of a tag with --changes, bounded by --limit", async () => {
      const out = await cli.ok("images", "history", "acme/app:latest", "--changes");
      const rows = out.trimEnd().split("\n");
      assert.match(rows[0], /^TIME\s+DIGEST\s+CHANGES$/);
      assert.match(rows[1], new RegExp(`${digests[0]}\\s+first version$`));
      assert.match(
        rows[2],
        new RegExp(`${digests[1]}\\s+\\+2 packages, ~1 package changed, 1 CVE fixed, 1 new HIGH$`),
      );
      assert.match(
        rows[3],
        new RegExp(`${digests[2]}\\s+not compared: amd64 \\(done → pending\\)$`),
      );
      assert.equal(rows.length, 4);

      const latest = await cli.ok(
        "images",
        "history",
        "acme/app:latest",
        "--changes",
        "--limit",
        "1",
      );
      const last = latest.trimEnd().split("\n");
      assert.equal(last.length, 2);
      assert.match(last[1], new RegExp(digests[2]));
      const json = JSON.parse(
        await cli.ok(
          "images",
          "history",
          "acme/app:latest",
          "--changes",
          "--limit",
          "2",
          "-o",
          "json",
        ),
      );
      assert.deepEqual(
        json.history.map((r: { changes: string }) => r.changes.split(",")[0]),
        ["+2 packages", "not compared: amd64 (done → pending)"],
      );
    });

    it("prints the OpenVEX document of an image", async () => {
      const doc = JSON.parse(await cli.ok("images", "vex", "acme/app:v2"));
      assert.equal(doc["@context"], "https://openvex.dev/ns/v0.2.0");
      assert.equal(doc.statements.length, 1);
      assert.equal(doc.statements[0].vulnerability.name, "CVE-2024-0004");
      assert.equal(doc.statements[0].status, "affected");
      assert.equal(doc.statements[0].action_statement, "Update curl to 8.6.0-r0 or later");
      assert.match(
        doc.statements[0].products[0]["@id"],
        new RegExp(`^pkg:oci/app@${digests[1]}\\?`),
      );
      const notYet = await cli.run(["images", "vex", "acme/app:latest"]);
      assert.equal(notYet.code, 1);
      assert.match(notYet.stderr, /no finished scan/);
      const help = await cli.ok("images", "diff", "--help");
      assert.match(help, /lading images diff acme\/app@sha256:… acme\/app:latest/);
    });
  });
}
