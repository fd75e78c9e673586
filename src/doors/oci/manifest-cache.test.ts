import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { it } from "node:test";
import { createManifestCache } from "./manifest-cache.ts";

it("keeps manifests by digest, loads each once, and evicts the least recently used past its budget", async () => {
  const cache = createManifestCache(10);
  const loads: string[] = [];
  const load = (digest: string, bytes: string) => () => {
    loads.push(digest);
    return Promise.resolve(Readable.from([Buffer.from(bytes)]));
  };
  assert.equal((await cache.read("a", load("a", "aaaa"))).toString(), "aaaa");
  assert.equal((await cache.read("a", load("a", "xxxx"))).toString(), "aaaa");
  await cache.read("b", load("b", "bbbb"));
  await cache.read("a", load("a", "aaaa"));
  await cache.read("c", load("c", "cccc"));
  await cache.read("a", load("a", "aaaa"));
  await cache.read("b", load("b", "bbbb"));
  assert.deepEqual(loads, ["a", "b", "c", "b"]);
  const big = await cache.read("d", load("d", "d".repeat(20)));
  assert.equal(big.length, 20);
  await cache.read("d", load("d", "d".repeat(20)));
  assert.deepEqual(loads.slice(-2), ["d", "d"]);
});
