import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, it } from "node:test";
import {
  connectRaw,
  destroyRawConnections,
  type RawConnection,
  within,
} from "../../test/support/raw-connections.ts";
import { createListener } from "./listener.ts";

const hello = (_req: unknown, res: { end(text: string): void }) => res.end("hello");

/** Fetches until an answer comes (the server frees a slot only once it has seen a close). */
async function eventuallyFetch(url: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await (await fetch(url, { signal: AbortSignal.timeout(2000) })).text();
    } catch (error) {
      if (attempt === 20) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe("listener connections", () => {
  afterEach(destroyRawConnections);

  it("closes connections beyond the cap at once while the others go on", async () => {
    const listener = createListener({ handler: hello, limits: { maxConnections: 3 } });
    const { port } = await listener.listen("127.0.0.1", 0);
    try {
      const held: RawConnection[] = [];
      for (let i = 0; i < 3; i++) held.push(await connectRaw(port));
      const extra = await connectRaw(port);
      assert.notEqual(await within(extra.closed, 1000), "timed out", "a 4th connection was kept");
      assert.equal(extra.received(), "");
      held[0].socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      await once(held[0].socket, "data");
      assert.match(held[0].received(), /^HTTP\/1\.1 200 [\s\S]*hello$/);
      for (const conn of held) conn.socket.destroy();
      assert.equal(await eventuallyFetch(`http://127.0.0.1:${port}/`), "hello");
    } finally {
      await listener.close({ timeoutMs: 500 });
    }
  });

  it("answers again once unfinished requests that used up the descriptors are timed out", async () => {
    // A child with few descriptors (Node itself takes about 25) and a short headers timeout.
    const listenerUrl = new URL("./listener.ts", import.meta.url).href;
    const program = `
      const { createListener } = await import(${JSON.stringify(listenerUrl)});
      const listener = createListener({
        handler: (_req, res) => res.end("hello"),
        limits: { headersTimeoutMs: 500 },
      });
      const { port } = await listener.listen("127.0.0.1", 0);
      console.log(port);`;
    const child = spawn(
      "sh",
      ["-c", 'ulimit -n 64 && exec "$0" --input-type=module -e "$1"', process.execPath, program],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      const [portText] = (await once(child.stdout, "data")) as [Buffer];
      const port = Number(portText.toString().trim());
      const started = Date.now();
      const flood = await Promise.all(
        Array.from({ length: 100 }, () => connectRaw(port).catch(() => undefined)),
      );
      for (const conn of flood) conn?.socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      const firstClose = await Promise.race(flood.map((conn) => conn?.closed ?? 0));
      assert.ok(firstClose < 400, "no connection was refused: the descriptors did not run out");
      assert.equal(await eventuallyFetch(`http://127.0.0.1:${port}/`), "hello");
      assert.ok(Date.now() - started < 5000);
      for (const conn of flood) conn?.socket.destroy();
      assert.equal(child.exitCode, null);
    } finally {
      child.kill();
    }
  });
});
