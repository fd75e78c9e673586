import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openTestStore } from "../../../test/support/stores.ts";
import { bootstrapOrganisation } from "../../app/index.ts";
import { createTokenIssuer, ensureBuiltInRoles } from "../../auth/index.ts";
import { createListener, createLogger, probeAnswer, requestIdOf } from "../../server/index.ts";
import { createFilesystemBlobStore } from "../../store/blobs/index.ts";
import { createOciDoor, type OciDoor } from "./oci-door.ts";

describe("OCI door upload expiry and probes", () => {
  let ready = true;
  let close: () => Promise<void>;
  let door: OciDoor;
  let url: string;
  let token: string;
  before(async () => {
    const opened = await openTestStore("sqlite");
    const dir = mkdtempSync(join(tmpdir(), "lading-door-"));
    const tokens = createTokenIssuer({ db: opened.store.db, issuerUrl: "http://api.test" });
    await ensureBuiltInRoles(opened.store.db);
    const boot = await bootstrapOrganisation(opened.store.db, "acme");
    let handler: OciDoor["handler"] = () => undefined;
    const listener = createListener({ handler: (req, res) => handler(req, res) });
    const address = await listener.listen("127.0.0.1", 0);
    url = `http://127.0.0.1:${address.port}`;
    door = createOciDoor({
      db: opened.store.db,
      blobs: createFilesystemBlobStore({ dir }),
      tokens,
      registryUrl: url,
      audience: `127.0.0.1:${address.port}`,
      publicOrg: "public",
      freeTierTags: ["latest"],
      log: createLogger({ level: "silent" }),
      requestIdOf,
      uploadTtlMs: 150,
      probe: (path) => probeAnswer(path, () => ready),
    });
    handler = door.handler;
    token = await tokens.mint({
      subject: boot.identityUid,
      audience: `127.0.0.1:${address.port}`,
      ttlSeconds: 600,
    });
    close = async () => {
      await door.close();
      await listener.close({ timeoutMs: 1000 });
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
    };
  });
  after(() => close?.());

  it("forgets sessions left untouched past their expiry and sweeps them", async () => {
    const headers = { authorization: `Bearer ${token}` };
    const start = await fetch(`${url}/v2/acme/app/blobs/uploads/`, { method: "POST", headers });
    assert.equal(start.status, 202);
    const location = start.headers.get("location") as string;
    assert.equal((await fetch(`${url}${location}`, { headers })).status, 204);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await fetch(`${url}${location}`, { headers })).status, 404);
    assert.equal((await door.sweep()).sessions, 1);
    assert.equal((await door.sweep()).sessions, 0);
  });

  it("answers the probes it is given, readiness as the server says", async () => {
    const answer = async (path: string) => {
      const res = await fetch(`${url}${path}`);
      return [res.status, res.headers.get("content-type"), await res.json()];
    };
    assert.deepEqual(await answer("/healthz"), [200, "application/json", { status: "ok" }]);
    assert.deepEqual(await answer("/readyz"), [200, "application/json", { status: "ready" }]);
    ready = false;
    assert.deepEqual(await answer("/readyz"), [503, "application/json", { status: "not ready" }]);
    assert.deepEqual(await answer("/healthz"), [200, "application/json", { status: "ok" }]);
    ready = true;
    const post = await fetch(`${url}/readyz`, { method: "POST" });
    assert.equal(post.status, 404, "only GET is a probe");
    await post.arrayBuffer();
  });
});
