import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createStampedCache } from "./stamped-cache.ts";

/** A cache of strings counting one byte a character, and a build that counts its calls. */
function setup(maxBytes = 10) {
  const cache = createStampedCache<string>({ maxBytes, sizeOf: (v) => v.length });
  const builds: string[] = [];
  const build = (value: string) => async () => {
    builds.push(value);
    return value;
  };
  return { cache, builds, build };
}

describe("createStampedCache", () => {
  it("serves the cached value while the stamp holds, and rebuilds when it moves", async () => {
    const { cache, builds, build } = setup();
    assert.equal(await cache.get("a", "1", build("one")), "one");
    assert.equal(await cache.get("a", "1", build("never")), "one");
    assert.equal(await cache.get("a", "2", build("two")), "two");
    assert.equal(await cache.get("a", "2", build("never")), "two");
    assert.deepEqual(builds, ["one", "two"]);
  });

  it("shares one build between concurrent misses for a stamp", async () => {
    const cache = createStampedCache<number>({ maxBytes: 100, sizeOf: () => 1 });
    let calls = 0;
    let release = (_: number) => {};
    const slow = () => {
      calls++;
      return new Promise<number>((resolve) => {
        release = resolve;
      });
    };
    const both = Promise.all([cache.get("k", "s", slow), cache.get("k", "s", slow)]);
    release(7);
    assert.deepEqual(await both, [7, 7]);
    assert.equal(calls, 1);
  });

  it("keeps no failed build: the next request builds again", async () => {
    const { cache, builds, build } = setup();
    await assert.rejects(
      cache.get("a", "1", async () => {
        throw new Error("store down");
      }),
      /store down/,
    );
    assert.equal(await cache.get("a", "1", build("back")), "back");
    assert.deepEqual(builds, ["back"]);
  });

  it("drops the least recently used entries past maxBytes", async () => {
    const { cache, builds, build } = setup(10);
    await cache.get("a", "1", build("aaaa"));
    await cache.get("b", "1", build("bbbb"));
    await cache.get("a", "1", build("never"));
    await cache.get("c", "1", build("cccc"));
    // a (used after b) and c stay; b went to make room.
    assert.equal(await cache.get("a", "1", build("never")), "aaaa");
    assert.equal(await cache.get("c", "1", build("never")), "cccc");
    assert.equal(await cache.get("b", "1", build("bbbb again")), "bbbb again");
    assert.deepEqual(builds, ["aaaa", "bbbb", "cccc", "bbbb again"]);
  });
});
