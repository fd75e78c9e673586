import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";

const cli = new URL("../../bin/lading.js", import.meta.url).pathname;

function serve(args: string[]): {
  child: ChildProcess;
  closed: Promise<[number | null, string | null]>;
} {
  const child = spawn(
    process.execPath,
    [cli, "serve", "--api-listen", "127.0.0.1:0", "--registry-listen", "127.0.0.1:0", ...args],
    { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH } },
  );
  const closed = new Promise<[number | null, string | null]>((resolve) =>
    child.on("close", (code, signal) => resolve([code, signal])),
  );
  return { child, closed };
}

describe("lading serve and signals", () => {
  const dir = mkdtempSync(join(tmpdir(), "lading-serve-signals-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("drains and exits 0 on a SIGTERM sent the instant the ready line is read", async () => {
    // The same data dir each round: the first round creates it, the others start at once.
    for (let round = 0; round < 5; round++) {
      const { child, closed } = serve(["--data-dir", join(dir, "data"), "--log-level", "warn"]);
      child.stdout?.on("data", (d: Buffer) => {
        if (d.toString().includes("API on")) child.kill("SIGTERM");
      });
      assert.deepEqual(await closed, [0, null], `round ${round}`);
    }
  });

  it("stops at once with 143 on a SIGTERM during start-up", async () => {
    // A database that accepts the connection and never answers holds start-up still.
    const sockets: Socket[] = [];
    let connected: () => void = () => {};
    const reached = new Promise<void>((resolve) => {
      connected = resolve;
    });
    const silent = createServer((socket) => {
      sockets.push(socket);
      connected();
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const { child, closed } = serve([
        "--data-dir",
        join(dir, "pg"),
        "--database-url",
        `postgres://lading@127.0.0.1:${port}/lading`,
      ]);
      let stdout = "";
      child.stdout?.on("data", (d) => {
        stdout += d;
      });
      await reached;
      child.kill("SIGTERM");
      assert.deepEqual(await closed, [143, null]);
      assert.doesNotMatch(stdout, /API on/);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});
