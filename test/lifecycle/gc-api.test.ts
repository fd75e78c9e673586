import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { DescMethod, JsonObject } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import { GarbageCollectionService } from "../../src/gen/lading/lifecycle/v2/garbage_collection_pb.js";
import { gcLeaseName } from "../../src/lifecycle/index.ts";
import { identityExtras } from "../../src/store/metadata/index.ts";
import { newRootUid } from "../../src/uidp/index.ts";
import { cliRunner } from "../cli/cli-support.ts";
import type { Result } from "../support/api-client.ts";
import { type MethodCall, methodCaller } from "../support/method-call.ts";
import { ociClient } from "../support/oci-client.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";
import { imageManifest, postBlob, putManifest, randomLayer, sha256 } from "./gc-push.ts";

const { runGarbageCollection, listGarbageCollections, getGarbageCollection } =
  GarbageCollectionService.method;
const transports = ["rest", "grpc"] as const;

/** The body of a call that must have succeeded. */
function body(result: Result): JsonObject {
  assert.ok(result.ok, JSON.stringify(result));
  return result.body;
}

/** Inserts the identity the server's operators setting names (a root identity). */
async function addOperator(reg: RegistryTestServer, uid: string): Promise<void> {
  const time = new Date().toISOString();
  await reg.server.lading.store.db
    .insertInto("identities")
    .values({
      uid,
      parent_uid: "",
      name: "operator",
      description: "",
      issuer: "https://idp.example.com",
      subject: uid,
      ...identityExtras,
      email: "",
      last_seen_time: null,
      create_time: time,
      update_time: time,
    })
    .execute();
}

/** Reads a collection until it has ended. */
async function finished(call: MethodCall, uid: string): Promise<JsonObject> {
  for (let i = 0; i < 200; i++) {
    const run = body(await call(getGarbageCollection, { uid }));
    if (run.state !== "running") return run;
    await sleep(50);
  }
  throw new Error(`garbage collection ${uid} did not end`);
}

/**
 * The operators' API call (issue 23): an operator runs dry and real collections over REST and
 * gRPC and lists them; everyone else is refused each method; a run while another holds the
 * lease is FAILED_PRECONDITION.
 */
for (const pair of registryPairs) {
  describe(`garbage collection API [${pair.store}, ${pair.blobs}]`, () => {
    const operatorUid = newRootUid();
    let reg: RegistryTestServer;
    let operatorToken: string;
    before(async () => {
      reg = await startRegistryServer(pair, {
        gcInterval: "off",
        gcGrace: "0s",
        gcHistoryRetention: "0s",
        operators: operatorUid,
      });
      await addOperator(reg, operatorUid);
      operatorToken = await reg.server.token(operatorUid);
    });
    after(() => reg?.close());

    for (const transport of transports) {
      it(`runs, lists and reads collections for an operator over ${transport}`, async () => {
        const call = methodCaller(transport, reg.server.apiUrl, operatorToken);
        const client = ociClient(reg.registryUrl, reg.ownerToken);
        const repo = `acme/gc-${transport}`;
        const image = imageManifest([randomLayer(4096), randomLayer(3000)], transport);
        for (const blob of image.blobs) await postBlob(client, repo, blob);
        await putManifest(client, repo, "1", image);
        const deleted = await client.fetch(`/v2/${repo}/manifests/${image.digest}`, {
          method: "DELETE",
        });
        assert.equal(deleted.status, 202);
        const imageBytes = image.bytes.length + image.blobs.reduce((n, b) => n + b.length, 0);

        const dry = body(await call(runGarbageCollection, { dryRun: true }));
        assert.equal(dry.state, "running");
        assert.equal(dry.trigger, "api");
        assert.equal(dry.dryRun, true);
        const dryEnd = await finished(call, String(dry.uid));
        assert.equal(dryEnd.state, "done", JSON.stringify(dryEnd));
        assert.ok(Number(dryEnd.bytesReclaimed) >= imageBytes, JSON.stringify(dryEnd));
        assert.ok(await reg.server.lading.blobs.stat(sha256(image.blobs[1])), "dry run kept it");

        const run = body(await call(runGarbageCollection, {}));
        assert.equal(run.state, "running");
        assert.equal(run.dryRun, false);
        const end = await finished(call, String(run.uid));
        assert.equal(end.state, "done", JSON.stringify(end));
        assert.ok(Number(end.bytesReclaimed) >= imageBytes, JSON.stringify(end));
        assert.ok(Number(end.blobsDeleted) >= image.blobs.length + 1);
        assert.notEqual(end.endTime, "");
        // The duration is the run's, from its start to its end as the run reports them.
        const span = Date.parse(String(end.endTime)) - Date.parse(String(end.startTime));
        assert.ok(Math.abs(Number(end.durationMs) - span) <= 50, JSON.stringify(end));
        for (const blob of image.blobs) {
          assert.equal(await reg.server.lading.blobs.stat(sha256(blob)), undefined);
        }

        const listed = body(await call(listGarbageCollections, { pageSize: 1 }));
        const page = listed.garbageCollections as JsonObject[];
        assert.deepEqual(
          page.map((r) => r.uid),
          [run.uid],
          "newest first",
        );
        assert.notEqual(listed.nextPageToken, "");
        const next = body(
          await call(listGarbageCollections, {
            pageSize: 1,
            pageToken: String(listed.nextPageToken),
          }),
        );
        assert.deepEqual(
          (next.garbageCollections as JsonObject[]).map((r) => r.uid),
          [dry.uid],
        );
        const dryOnly = body(await call(listGarbageCollections, { trigger: "schedule" }));
        assert.deepEqual(dryOnly.garbageCollections ?? [], []);
        const missing = await call(getGarbageCollection, { uid: "no-such-run" });
        assert.equal(!missing.ok && missing.code, Code.NotFound);
      });
    }

    it("refuses malformed requests with INVALID_ARGUMENT, and a non-operator before reading them", async () => {
      const bad: [DescMethod, JsonObject][] = [
        [getGarbageCollection, { uid: "" }],
        [listGarbageCollections, { orderBy: "no_such_field" }],
        [listGarbageCollections, { pageToken: "not-a-token" }],
        [listGarbageCollections, { pageSize: -1 }],
      ];
      for (const transport of transports) {
        const operator = methodCaller(transport, reg.server.apiUrl, operatorToken);
        const owner = methodCaller(transport, reg.server.apiUrl, reg.server.org.token);
        for (const [method, request] of bad) {
          // Over REST an empty uid is a path with no resource in it: no route, 404.
          if (transport === "rest" && request.uid === "") continue;
          const what = `${method.name} ${JSON.stringify(request)} over ${transport}`;
          const refused = await operator(method, request);
          assert.equal(!refused.ok && refused.code, Code.InvalidArgument, what);
          if (transport === "rest") assert.equal(!refused.ok && refused.httpStatus, 400, what);
          const denied = await owner(method, request);
          assert.equal(!denied.ok && denied.code, Code.PermissionDenied, what);
        }
      }
    });

    it("refuses anonymous callers and every identity the setting does not name", async () => {
      const known = body(
        await methodCaller("rest", reg.server.apiUrl, operatorToken)(listGarbageCollections, {}),
      );
      const uid = String((known.garbageCollections as JsonObject[] | undefined)?.[0]?.uid ?? "x");
      const requests: [DescMethod, JsonObject][] = [
        [runGarbageCollection, { dryRun: true }],
        [listGarbageCollections, {}],
        [getGarbageCollection, { uid }],
      ];
      // The organisation's owner holds every capability there, and is still no operator; nor
      // is an operator's token narrowed to some groups.
      const narrowed = await reg.server.lading.tokens.mint({
        subject: operatorUid,
        audience: reg.server.apiUrl,
        ttlSeconds: 600,
        claims: { scopes: [reg.server.org.groupUid] },
      });
      const callers = [
        { token: undefined, code: Code.Unauthenticated, status: 401 },
        { token: reg.server.org.token, code: Code.PermissionDenied, status: 403 },
        { token: narrowed, code: Code.PermissionDenied, status: 403 },
      ];
      const before = await reg.server.lading.store.db.selectFrom("gc_runs").select("uid").execute();
      for (const transport of transports) {
        for (const { token, code, status } of callers) {
          const call = methodCaller(transport, reg.server.apiUrl, token);
          for (const [method, request] of requests) {
            const result = await call(method, request);
            const what = `${method.name} over ${transport} with ${token ? "a token" : "none"}`;
            assert.equal(result.ok, false, what);
            assert.equal(!result.ok && result.code, code, what);
            if (transport === "rest") assert.equal(!result.ok && result.httpStatus, status, what);
          }
        }
      }
      const afterwards = await reg.server.lading.store.db
        .selectFrom("gc_runs")
        .select("uid")
        .execute();
      assert.equal(afterwards.length, before.length, "no refused call started a collection");
    });

    it("runs and lists collections from the CLI, for operators only", async () => {
      const cli = await cliRunner({ LADING_API_URL: reg.server.apiUrl });
      try {
        const asOperator = { LADING_TOKEN: operatorToken };
        const ran = await cli.run(
          ["storage", "gc", "run", "--dry-run", "--wait", "-o", "json"],
          asOperator,
        );
        assert.equal(ran.code, 0, ran.stderr);
        const run = JSON.parse(ran.stdout);
        assert.deepEqual([run.state, run.trigger, run.dryRun], ["done", "api", true]);
        const table = await cli.run(["storage", "gc", "list"], asOperator);
        assert.equal(table.code, 0, table.stderr);
        const [header, first] = table.stdout.split("\n");
        assert.match(header, /^UID\s+STARTED\s+TRIGGER\s+DRY RUN\s+STATE/);
        assert.match(first, new RegExp(`^${run.uid}\\s.*\\sapi\\s+yes\\s+done\\s`));
        const shown = await cli.run(["storage", "gc", "get", run.uid, "-o", "json"], asOperator);
        assert.equal(JSON.parse(shown.stdout).uid, run.uid);
        const refused = await cli.run(["storage", "gc", "run"], {
          LADING_TOKEN: reg.server.org.token,
        });
        assert.equal(refused.code, 1);
        assert.match(refused.stderr, /only the installation's operators/);
      } finally {
        await cli.cleanup();
      }
    });

    it("answers FAILED_PRECONDITION while another replica collects, and fails its run once it is gone", async () => {
      const db = reg.server.lading.store.db;
      const future = new Date(Date.now() + 60_000).toISOString();
      await db
        .insertInto("leases")
        .values({ name: gcLeaseName, holder: "another-replica", expire_time: future })
        .execute();
      const running = {
        uid: "run-of-another-replica",
        trigger: "schedule",
        dry_run: 0,
        state: "running",
        start_time: new Date().toISOString(),
        end_time: "",
        manifests_deleted: 0,
        links_deleted: 0,
        blobs_deleted: 0,
        bytes_reclaimed: 0,
        uploads_expired: 0,
        files_swept: 0,
        duration_ms: 0,
        error: "",
      };
      await db.insertInto("gc_runs").values(running).execute();
      try {
        for (const transport of transports) {
          const call = methodCaller(transport, reg.server.apiUrl, operatorToken);
          const refused = await call(runGarbageCollection, {});
          assert.equal(!refused.ok && refused.code, Code.FailedPrecondition);
          assert.match(!refused.ok ? refused.message : "", /run-of-another-replica is running/);
          if (transport === "rest") assert.equal(!refused.ok && refused.httpStatus, 400);
          const listed = body(await call(listGarbageCollections, { state: "running" }));
          assert.deepEqual(
            (listed.garbageCollections as JsonObject[]).map((r) => r.uid),
            [running.uid],
          );
        }
      } finally {
        await db.deleteFrom("leases").where("name", "=", gcLeaseName).execute();
      }
      // The other replica is gone (its lease is): the next run records the stale row as failed.
      const call = methodCaller("rest", reg.server.apiUrl, operatorToken);
      const run = body(await call(runGarbageCollection, { dryRun: true }));
      assert.equal((await finished(call, String(run.uid))).state, "done");
      const stale = body(await call(getGarbageCollection, { uid: running.uid }));
      assert.equal(stale.state, "failed", JSON.stringify(stale));
      assert.match(String(stale.error), /stopped before it ended/);
      await db.deleteFrom("gc_runs").where("uid", "=", running.uid).execute();
    });
  });
}
