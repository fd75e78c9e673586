import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { createServer } from "node:net";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { migrationProvider } from "../src/store/metadata/migrations/index.ts";
import { createTestStore, storeKinds, type TestStore } from "./support/stores.ts";

const run = promisify(execFile);
const cli = new URL("../bin/lading.js", import.meta.url).pathname;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

for (const kind of storeKinds) {
  describe(`lading CLI [${kind}]`, () => {
    let store: TestStore;
    let flags: string[];
    before(async () => {
      store = await createTestStore(kind);
      const port = await freePort();
      flags = [
        "--api-listen",
        `127.0.0.1:${port}`,
        "--registry-listen",
        "127.0.0.1:0",
        ...(store.options.databaseUrl
          ? ["--database-url", store.options.databaseUrl]
          : ["--data-dir", store.options.dataDir]),
      ];
    });
    after(() => store.drop());

    const lading = async (...args: string[]) =>
      (await run(process.execPath, [cli, ...args])).stdout;

    it("migrates, and answers a second migrate with nothing to apply", async () => {
      const first = JSON.parse(await lading("admin", "migrate", ...flags));
      const all = Object.keys(await migrationProvider.getMigrations());
      assert.ok(all.length >= 2);
      assert.deepEqual(first.applied, all);
      assert.deepEqual(JSON.parse(await lading("admin", "migrate", ...flags)).applied, []);
    });

    it("bootstraps an organisation idempotently, serves it, and drains on SIGTERM", async () => {
      const first = JSON.parse(await lading("admin", "bootstrap", "--org", "acme", ...flags));
      const second = JSON.parse(await lading("admin", "bootstrap", "--org", "acme", ...flags));
      assert.match(first.groupUid, /^[0-9a-f]{40}$/);
      assert.equal(second.groupUid, first.groupUid);
      assert.equal(second.identityUid, first.identityUid);
      assert.notEqual(second.token, "");

      const minted = (
        await lading("admin", "token", "--identity", first.identityUid, "--ttl", "15m", ...flags)
      ).trim();
      const claims = JSON.parse(Buffer.from(minted.split(".")[1], "base64url").toString());
      assert.equal(claims.sub, first.identityUid);
      assert.equal(claims.exp - claims.iat, 900);

      const child = spawn(process.execPath, [cli, "serve", ...flags], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          const match = /API on ([^\s,]+)/.exec(chunk.toString());
          if (match) resolve(match[1]);
        });
        child.once("exit", (code) => reject(new Error(`serve exited with ${code}`)));
      });
      const res = await fetch(`${url}/iam/v2/groups`, {
        headers: { authorization: `Bearer ${first.token}` },
      });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { groups: { uid: string }[] };
      assert.deepEqual(
        body.groups.map((g) => g.uid),
        [first.groupUid],
      );
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      assert.equal(await exited, 0);
    });

    it("refuses bad arguments with a clear message and exit code 2", async () => {
      for (const args of [
        ["admin", "bootstrap", "--org", "Bad Name", ...flags],
        ["admin", "token", "--identity", "nope", ...flags],
        [
          "admin",
          "token",
          "--identity",
          `${"a".repeat(40)}/0123456789abcdef`,
          "--ttl",
          "forever",
          ...flags,
        ],
        ["serve", "--api-listen", "nowhere"],
        ["serve", "--unknown-flag"],
        ["frobnicate"],
      ]) {
        const failure = await run(process.execPath, [cli, ...args]).then(
          () => undefined,
          (error: { code: number; stderr: string }) => error,
        );
        assert.ok(failure, `${args.join(" ")} fails`);
        assert.ok(
          failure.code === 1 || failure.code === 2,
          `${args.join(" ")} exit ${failure.code}`,
        );
        assert.match(failure.stderr, /lading/);
      }
    });
  });
}
