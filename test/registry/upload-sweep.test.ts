import assert from "node:assert/strict";
import { mkdir, readdir, stat, utimes, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { bootstrapOrganisation } from "../../src/app/index.ts";
import { createTokenIssuer, ensureBuiltInRoles } from "../../src/auth/index.ts";
import { createOciDoor, type OciDoor, type OciDoorOptions } from "../../src/doors/oci/index.ts";
import { createListener, createLogger, requestIdOf } from "../../src/server/index.ts";
import { createTestBlobStore, type TestBlobStore } from "../blobs/drivers.ts";
import { sha256 } from "../support/oci-layout.ts";
import { registryPairs } from "../support/registry-server.ts";
import { openTestStore } from "../support/stores.ts";

const hour = 3_600_000;

/** Every file below `dir`, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** Sets the modification time of every file below `dir` to `ageMs` ago. */
async function age(dir: string, ageMs: number) {
  const when = new Date(Date.now() - ageMs);
  for (const file of await filesUnder(dir)) await utimes(join(dir, file), when, when);
}

/** Start-up and timed sweeps of temp data left by killed uploads, beside live sessions. */
for (const pair of registryPairs) {
  describe(`upload sweep [${pair.store}, ${pair.blobs}]`, () => {
    let close: () => Promise<void>;
    let blobs: TestBlobStore;
    let options: OciDoorOptions;
    let door: OciDoor;
    let url: string;
    let headers: Record<string, string>;
    let db: Awaited<ReturnType<typeof openTestStore>>["store"]["db"];
    before(async () => {
      const opened = await openTestStore(pair.store);
      db = opened.store.db;
      blobs = await createTestBlobStore(pair.blobs);
      const tokens = createTokenIssuer({ db, issuerUrl: "http://api.test" });
      await ensureBuiltInRoles(db);
      const boot = await bootstrapOrganisation(db, "acme");
      let handler: OciDoor["handler"] = () => undefined;
      const listener = createListener({ handler: (req, res) => handler(req, res) });
      const { port } = await listener.listen("127.0.0.1", 0);
      url = `http://127.0.0.1:${port}`;
      options = {
        db,
        blobs: blobs.open(),
        tokens,
        registryUrl: url,
        audience: `127.0.0.1:${port}`,
        publicOrg: "public",
        freeTierTags: ["latest"],
        log: createLogger({ level: "silent" }),
        requestIdOf,
        sweepIntervalMs: hour,
      };
      door = createOciDoor(options);
      handler = door.handler;
      const token = await tokens.mint({
        subject: boot.identityUid,
        audience: options.audience,
        ttlSeconds: 600,
      });
      headers = { authorization: `Bearer ${token}` };
      close = async () => {
        await door.close();
        await listener.close({ timeoutMs: 1000 });
        await opened.close();
        await blobs.cleanup();
      };
    });
    after(() => close?.());

    it("removes orphans of killed uploads at start-up and keeps a live session's data", async () => {
      await door.sweep();
      const blob = Buffer.from("a live upload, its first half old on disk");
      const start = await fetch(`${url}/v2/acme/app/blobs/uploads/`, { method: "POST", headers });
      const location = start.headers.get("location") as string;
      const first = await fetch(`${url}${location}`, {
        method: "PATCH",
        headers: { ...headers, "content-range": "0-9" },
        body: new Uint8Array(blob.subarray(0, 10)),
      });
      assert.equal(first.status, 202);
      const live = await filesUnder(blobs.dir);

      // What a process killed mid-upload leaves: an upload with no session row, and a
      // monolithic write's temp file (the S3 one written straight into the s3rver's files).
      const store = blobs.open();
      const orphan = await store.createUpload();
      await store.appendUpload(orphan, Readable.from([Buffer.from("no session owns me")]));
      const hex = "0123456789abcdef0123456789abcdef";
      const putFile =
        pair.blobs === "s3" ? join("tmp", `${hex}._S3rver_object`) : join("tmp", `put-${hex}`);
      await mkdir(join(blobs.dir, "tmp"), { recursive: true });
      await writeFile(join(blobs.dir, putFile), "killed half way");
      const planted = await filesUnder(blobs.dir);
      assert.ok(planted.length >= live.length + 2, planted.join(", "));
      // Older than the one-hour orphan age, younger than the two hours the old sweep waited;
      // the live session's files too, which its session row must protect.
      await age(blobs.dir, 1.5 * hour);

      const restarted = createOciDoor({ ...options, blobs: blobs.open() });
      await restarted.close();
      const left = await filesUnder(blobs.dir);
      assert.deepEqual(
        left.filter((file) => !file.startsWith("blobs")),
        live.filter((file) => !file.startsWith("blobs")),
      );
      for (const file of left) assert.ok((await stat(join(blobs.dir, file))).isFile());

      const done = await fetch(`${url}${location}?digest=${sha256(blob)}`, {
        method: "PUT",
        headers: { ...headers, "content-range": `10-${blob.length - 1}` },
        body: new Uint8Array(blob.subarray(10)),
      });
      assert.equal(done.status, 201);
      const got = await fetch(`${url}/v2/acme/app/blobs/${sha256(blob)}`, { headers });
      assert.deepEqual(Buffer.from(await got.arrayBuffer()), blob);
      const rows = await db.selectFrom("uploads").select("id").execute();
      assert.equal(rows.length, 0);
    });
  });
}
