import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MemoryBudget } from "./memory-budget.ts";

describe("memory budget", () => {
  it("lends up to its limit, then makes callers wait their turn, first come first served", async () => {
    const budget = new MemoryBudget(10);
    const first = await budget.acquire(6);
    assert.equal(budget.used, 6);
    const order: string[] = [];
    const big = budget.acquire(8).then((lease) => {
      order.push("big");
      return lease;
    });
    const small = budget.acquire(2).then((lease) => {
      order.push("small");
      return lease;
    });
    // 4 bytes are free, but a caller waits: a later one may not jump ahead of it.
    assert.equal(budget.tryAcquire(1), undefined);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(order, []);
    first.release();
    first.release(); // twice gives back once
    const bigLease = await big;
    const smallLease = await small;
    assert.deepEqual(order, ["big", "small"]);
    assert.equal(budget.used, 10);
    bigLease.release();
    smallLease.release();
    assert.equal(budget.used, 0);
  });

  it("lends a caller asking for more than the limit the whole budget, not a wait forever", async () => {
    const budget = new MemoryBudget(4);
    const lease = await budget.acquire(100);
    assert.equal(lease.bytes, 4);
    lease.release();
    assert.equal(budget.used, 0);
  });

  it("refuses a limit that is not a positive whole number of bytes", () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) assert.throws(() => new MemoryBudget(limit));
  });
});
