import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

/** Raw HTTP cases no typed client can send; each must give a structured 4xx and change nothing. */
for (const store of storeKinds) {
  describe(`bad input over REST [${store}]`, () => {
    let server: TestServer;
    let identity = "";
    const send = (
      method: string,
      path: string,
      body?: string,
      headers: Record<string, string> = {},
    ) =>
      fetch(`${server.apiUrl}${path}`, {
        method,
        body,
        headers: {
          authorization: `Bearer ${server.org.token}`,
          "content-type": "application/json",
          ...headers,
        },
      });
    const snapshot = async () => {
      const res = await send("GET", "/iam/v2/identities?page_size=200&order_by=name");
      return res.json();
    };

    before(async () => {
      server = await startTestServer(store);
      const res = await send(
        "POST",
        `/iam/v2/identities/${server.org.groupUid}`,
        JSON.stringify({ name: "target" }),
      );
      identity = ((await res.json()) as { uid: string }).uid;
    });
    after(() => server.close());

    const org = () => server.org.groupUid;
    const cases: [string, () => [string, string, string?]][] = [
      ["malformed JSON", () => ["POST", `/iam/v2/identities/${org()}`, "{name:"]],
      ["a JSON array body", () => ["POST", `/iam/v2/identities/${org()}`, "[1,2]"]],
      ["a wrong type", () => ["POST", `/iam/v2/identities/${org()}`, JSON.stringify({ name: 5 })]],
      [
        "an unknown body field",
        () => ["POST", `/iam/v2/identities/${org()}`, JSON.stringify({ name: "x", colour: "red" })],
      ],
      [
        "an over-long name",
        () => ["POST", `/iam/v2/identities/${org()}`, JSON.stringify({ name: "a".repeat(64) })],
      ],
      [
        "a huge description",
        () => [
          "POST",
          `/iam/v2/identities/${org()}`,
          JSON.stringify({ name: "x", description: "d".repeat(600) }),
        ],
      ],
      ["a non-numeric page_size", () => ["GET", "/iam/v2/identities?page_size=abc"]],
      ["a page_size beyond int32", () => ["GET", "/iam/v2/identities?page_size=99999999999"]],
      ["a negative page_size", () => ["GET", "/iam/v2/identities?page_size=-1"]],
      ["a fractional skip", () => ["GET", "/iam/v2/identities?skip=1.5"]],
      ["a garbage page token", () => ["GET", "/iam/v2/identities?page_token=%00%FF..."]],
      ["an unknown query parameter", () => ["GET", "/iam/v2/identities?colour=red"]],
      ["a dot-dot uid", () => ["GET", "/iam/v2/identities/..%2F..%2Fetc%2Fpasswd"]],
      ["a dot-dot path", () => ["GET", `/iam/v2/groups/${org()}/../../../etc`]],
      ["an upper-case uid", () => ["GET", `/iam/v2/identities/${identity.toUpperCase()}`]],
      ["a uid with a trailing slash", () => ["DELETE", `/iam/v2/identities/${identity}/`]],
      ["a uid with SQL in it", () => ["DELETE", `/iam/v2/identities/${org()}'%20OR%20'1'='1`]],
      [
        "a parent that is not a uid",
        () => ["POST", "/iam/v2/identities/not-a-uid", JSON.stringify({ name: "x" })],
      ],
      [
        "an update of an unknown field",
        () => [
          "PATCH",
          `/iam/v2/identities/${identity}?updateMask=colour`,
          JSON.stringify({ name: "y" }),
        ],
      ],
      [
        "an update with an output-only path",
        () => [
          "PATCH",
          `/iam/v2/identities/${identity}?updateMask=create_time`,
          JSON.stringify({}),
        ],
      ],
    ];
    for (const [title, make] of cases) {
      it(`answers ${title} with a structured 4xx and changes nothing`, async () => {
        const before = await snapshot();
        const [method, path, body] = make();
        const res = await send(method, path, body);
        assert.ok(res.status >= 400 && res.status < 500, `status ${res.status}`);
        const error = (await res.json()) as {
          code: number;
          message: string;
          details: { "@type": string }[];
        };
        assert.equal(typeof error.code, "number");
        assert.ok(error.code > 0);
        assert.equal(typeof error.message, "string");
        assert.ok(Array.isArray(error.details));
        assert.deepEqual(await snapshot(), before);
      });
    }

    it("refuses a body over 1 MiB without reading it all", async () => {
      const res = await send(
        "POST",
        `/iam/v2/identities/${org()}`,
        JSON.stringify({ name: "x", description: "d".repeat(2 * 1024 * 1024) }),
      );
      assert.equal(res.status, 413);
      assert.equal(((await res.json()) as { code: number }).code, 3);
    });

    it("answers an unknown path with a structured 404", async () => {
      const res = await send("GET", "/iam/v2/nothing-here");
      assert.equal(res.status, 404);
      assert.equal(((await res.json()) as { code: number }).code, 5);
    });
  });
}
