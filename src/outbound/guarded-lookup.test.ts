import assert from "node:assert/strict";
import type { LookupAddress } from "node:dns";
import { describe, it } from "node:test";
import { createAllowList, parseOutboundAllow } from "./allow-list.ts";
import { guardedLookup } from "./guarded-lookup.ts";
import { OutboundError } from "./outbound-error.ts";

type Answer = { error: NodeJS.ErrnoException | null; addresses?: LookupAddress[] | string };

function lookupWith(allow: string, answers: string[]) {
  const list = createAllowList(parseOutboundAllow(allow).value ?? { hosts: [], cidrs: [] });
  const lookup = guardedLookup(list, async () =>
    answers.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })),
  );
  return (hostname: string, options: { all?: boolean; family?: number }) =>
    new Promise<Answer>((resolve) =>
      lookup(hostname, options, (error, addresses) => resolve({ error, addresses })),
    );
}

describe("guardedLookup", () => {
  it("hands the socket only the permitted addresses, in order", async () => {
    const lookup = lookupWith("127.0.0.1", ["0.0.0.0", "::1", "127.0.0.1", "10.0.0.1"]);
    const all = await lookup("mixed.test", { all: true });
    assert.equal(all.error, null);
    assert.deepEqual(all.addresses, [{ address: "127.0.0.1", family: 4 }]);
    const one = await lookup("mixed.test", {});
    assert.equal(one.addresses, "127.0.0.1");
  });

  it("refuses when no address is permitted, naming what it resolved to", async () => {
    const answer = await lookupWith("", ["127.0.0.1", "::1"])("loop.test", { all: true });
    assert.ok(answer.error instanceof OutboundError);
    assert.equal(answer.error.message, "destination not allowed");
    assert.equal(answer.error.detail, "loop.test resolves to 127.0.0.1, ::1");
  });

  it("keeps to the family the socket asks for", async () => {
    const lookup = lookupWith("127.0.0.1,::1", ["::1", "127.0.0.1"]);
    assert.deepEqual((await lookup("both.test", { all: true, family: 6 })).addresses, [
      { address: "::1", family: 6 },
    ]);
    const none = await lookupWith("::1", ["127.0.0.1"])("v4.test", { all: true, family: 6 });
    assert.ok(none.error instanceof OutboundError);
  });

  it("keeps every address of a host the operator names", async () => {
    const answer = await lookupWith("idp.corp.test", ["10.0.0.7", "127.0.0.1"])("idp.corp.test", {
      all: true,
    });
    assert.equal(answer.error, null);
    assert.equal((answer.addresses as LookupAddress[]).length, 2);
  });
});
