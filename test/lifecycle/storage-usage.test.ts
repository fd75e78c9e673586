import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { restCall } from "../support/api-client.ts";
import { holder } from "../support/iam-fixtures.ts";
import { ociClient } from "../support/oci-client.ts";
import { registryPairs } from "../support/registry-server.ts";
import { imageManifest, postBlob, putManifest, randomLayer, sha256 } from "./gc-push.ts";
import { operatorSetup } from "./operator-setup.ts";

/**
 * An operator's day: usage per repo and organisation (API, CLI, /metrics), a quota set from
 * the CLI refusing a push with the numbers and warning at 80 %, tags deleted, a dry run, a
 * collection, its history, and usage falling; the API's refusals for other organisations.
 */
for (const pair of registryPairs) {
  describe(`storage usage, quotas and the admin collector [${pair.store}, ${pair.blobs}]`, () => {
    const setup = operatorSetup(pair);

    it("counts each blob once per organisation, enforces quotas and frees bytes", async () => {
      const { reg, cli, store } = setup;
      const client = ociClient(reg.registryUrl, reg.ownerToken);
      const org = reg.server.org.groupUid;
      const api = (path: string, token = reg.server.org.token) =>
        restCall(reg.server.apiUrl, token, "GET", path);
      const shared = randomLayer(10_000);
      const a = imageManifest([shared, randomLayer(5_000)], "a");
      const b = imageManifest([shared], "b");
      for (const blob of a.blobs) await postBlob(client, "acme/app", blob);
      await putManifest(client, "acme/app", "1", a);
      for (const blob of b.blobs) await postBlob(client, "acme/tools", blob);
      await putManifest(client, "acme/tools", "1", b);
      const size = (m: typeof a) => m.bytes.length + m.blobs.reduce((n, x) => n + x.length, 0);
      const orgBytes = size(a) + size(b) - shared.length;

      const usage = await api(`/lifecycle/v2/storage/${org}`);
      assert.ok(usage.ok, JSON.stringify(usage));
      assert.equal(Number(usage.body.bytes), orgBytes);
      assert.equal(Number(usage.body.objects), a.blobs.length + b.blobs.length + 2 - 1);
      const repos = await restCall(
        reg.server.apiUrl,
        reg.server.org.token,
        "GET",
        "/registry/v2/repos",
      );
      assert.ok(repos.ok);
      const app = (repos.body.repos as { uid: string; name: string }[]).find(
        (r) => r.name === "app",
      );
      const repoUsage = await api(`/lifecycle/v2/repo-storage/${app?.uid}`);
      assert.ok(repoUsage.ok, JSON.stringify(repoUsage));
      assert.equal(Number(repoUsage.body.bytes), size(a));

      // Another organisation's owner sees neither.
      const outsider = await reg.server.token(reg.publicOrg.identityUid);
      const refused = await api(`/lifecycle/v2/storage/${org}`, outsider);
      assert.equal(refused.ok, false);
      assert.equal(!refused.ok && refused.httpStatus, 404);
      const refusedRepo = await api(`/lifecycle/v2/repo-storage/${app?.uid}`, outsider);
      assert.equal(!refusedRepo.ok && refusedRepo.httpStatus, 404);
      // A member who sees the organisation but may not list its repositories sees no usage.
      const noRepoList = await holder(reg.server, org, ["groups.list"]);
      const lacking = await api(`/lifecycle/v2/storage/${org}`, noRepoList.token);
      assert.equal(!lacking.ok && lacking.httpStatus, 403);
      const lackingRepo = await api(`/lifecycle/v2/repo-storage/${app?.uid}`, noRepoList.token);
      assert.equal(lackingRepo.ok, false);
      const notAnOrg = await api(`/lifecycle/v2/storage/${app?.uid}`);
      assert.equal(!notAnOrg.ok && notAnOrg.httpStatus, 400);
      const anonymous = await restCall(
        reg.server.apiUrl,
        undefined,
        "GET",
        `/lifecycle/v2/storage/${org}`,
      );
      assert.equal(!anonymous.ok && anonymous.httpStatus, 401);

      const metrics = await (await fetch(`${reg.registryUrl}/metrics`)).text();
      assert.match(
        metrics,
        new RegExp(`lading_storage_org_bytes\\{org_uid="${org}"\\} ${orgBytes}\\n`),
      );

      // A quota just above today's usage: the next push of new bytes is refused with numbers.
      const quota = orgBytes + 2_000;
      JSON.parse(
        await cli.ok(
          "admin",
          "storage",
          "quota",
          "--org",
          "acme",
          "--bytes",
          String(quota),
          ...store,
        ),
      );
      const shown = JSON.parse(
        await cli.ok("admin", "storage", "usage", "--org", "acme", ...store),
      );
      assert.deepEqual(shown, { org, bytes: orgBytes, objects: 6, quotaBytes: quota });
      const big = randomLayer(4_000);
      const res = await client.fetch(`/v2/acme/app/blobs/uploads/?digest=${sha256(big)}`, {
        method: "POST",
        body: new Uint8Array(big),
        headers: { "content-type": "application/octet-stream" },
      });
      assert.equal(res.status, 403);
      const error = ((await res.json()) as { errors: { code: string; detail: unknown }[] })
        .errors[0];
      assert.equal(error.code, "DENIED");
      assert.deepEqual(error.detail, { used: orgBytes, quota, attempted: 4_000 });
      // Bytes the organisation already has cost nothing; the check itself saw ≥ 80 % and warned.
      await postBlob(client, "acme/other", shared);
      const warned = await reg.server.lading.store.db
        .selectFrom("events")
        .select("type")
        .where("type", "=", "dev.lading.registry.quota.threshold.v1")
        .execute();
      assert.equal(warned.length, 1);

      // Delete app:1; a dry run counts, the collection frees, history lists both, usage falls.
      const gone = await client.fetch("/v2/acme/app/manifests/1", { method: "DELETE" });
      assert.equal(gone.status, 202);
      const flags = [...store, "--gc-grace", "0s", "--gc-history-retention", "0s"];
      const dry = JSON.parse(await cli.ok("admin", "gc", "--dry-run", ...flags));
      assert.equal(dry.dryRun, true);
      assert.equal(dry.manifestsDeleted, 1);
      assert.equal(dry.bytesReclaimed, size(a) - shared.length);
      assert.equal(Number((await api(`/lifecycle/v2/storage/${org}`)).ok && 1), 1);
      const run = JSON.parse(await cli.ok("admin", "gc", ...flags));
      assert.equal(run.state, "done");
      assert.equal(run.manifestsDeleted, 1);
      assert.equal(run.blobsDeleted, 3);
      assert.equal(run.bytesReclaimed, size(a) - shared.length);
      const history = (await cli.ok("admin", "gc", "--history", ...store))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      assert.deepEqual(
        history.map((h) => [h.uid, h.dryRun]),
        [
          [run.uid, false],
          [dry.uid, true],
        ],
      );
      const after = await api(`/lifecycle/v2/storage/${org}`);
      assert.ok(after.ok);
      assert.equal(Number(after.body.bytes), size(b));
      for (const blob of a.blobs.filter((x) => x !== shared)) {
        assert.equal(await reg.server.lading.blobs.stat(sha256(blob)), undefined);
      }
      assert.notEqual(await reg.server.lading.blobs.stat(sha256(shared)), undefined);
    });
  });
}
