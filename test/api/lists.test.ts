import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { before, it } from "node:test";
import type { Api } from "../support/api-client.ts";
import { failed, matrix, ok, violations } from "../support/matrix.ts";

interface Row {
  uid: string;
  name: string;
  createTime: string;
}

/** Creates identities named `names` under `parent`, a few at a time. */
async function createIdentities(api: Api, parent: string, names: string[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (let i = 0; i < names.length; i += 10) {
    const batch = names.slice(i, i + 10).map((name) => api.create("identities", parent, { name }));
    for (const r of await Promise.all(batch)) rows.push(ok(r) as unknown as Row);
  }
  return rows;
}

/** Follows nextPageToken to the end; returns every page. */
async function allPages(api: Api, params: Record<string, string | number>) {
  const pages: {
    identities: Row[];
    nextPageToken?: string;
    totalCount: string;
    skipped: number;
  }[] = [];
  let token = "";
  do {
    const page = ok(
      await api.list("identities", { ...params, ...(token ? { page_token: token } : {}) }),
    );
    pages.push(page as never);
    token = (page.nextPageToken as string) ?? "";
    assert.ok(pages.length < 100, "paging terminates");
  } while (token);
  return pages;
}

const byName = (a: Row, b: Row) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.uid < b.uid ? -1 : 1;
const byCreated = (a: Row, b: Row) =>
  a.createTime < b.createTime ? -1 : a.createTime > b.createTime ? 1 : a.uid < b.uid ? -1 : 1;

matrix("List parameters", (h) => {
  let folder = "";
  let rows: Row[] = [];

  before(async () => {
    folder = ok(await h.api.create("groups", h.server.org.groupUid, { name: "listing" }))
      .uid as string;
    const names = Array.from(
      { length: 57 },
      (_, i) => `id-${String((i * 37) % 57).padStart(2, "0")}`,
    );
    rows = await createIdentities(h.api, folder, names);
  });

  it("pages 50 by default with totalCount as a string and skipped 0", async () => {
    const page = ok(await h.api.list("identities", { "uidp.descendants_of": folder }));
    assert.equal((page.identities as Row[]).length, 50);
    assert.equal(page.totalCount, "57");
    assert.equal(page.skipped, 0);
    assert.ok(page.nextPageToken);
  });

  for (const [order, compare] of [
    ["name", byName],
    ["name desc", (a: Row, b: Row) => byName(b, a)],
    ["created_at", byCreated],
    ["created_at desc", (a: Row, b: Row) => byCreated(b, a)],
    ["", (a: Row, b: Row) => (a.uid < b.uid ? -1 : 1)],
  ] as const) {
    it(`keeps order_by "${order}" across pages (rule 1) and ends with a short page (rule 3)`, async () => {
      const pages = await allPages(h.api, {
        "uidp.descendants_of": folder,
        page_size: 10,
        order_by: order,
      });
      const seen = pages.flatMap((p) => p.identities.map((r) => r.uid));
      assert.deepEqual(
        seen,
        [...rows].sort(compare).map((r) => r.uid),
      );
      assert.equal(pages.length, 6);
      assert.equal(pages[5].identities.length, 7);
      assert.ok(!pages[5].nextPageToken);
      for (const p of pages) assert.equal(p.totalCount, "57");
    });
  }

  it("accepts snake_case and lowerCamel parameters", async () => {
    const camel = ok(
      await h.api.list("identities", {
        "uidp.descendantsOf": folder,
        pageSize: 3,
        orderBy: "name",
      }),
    );
    assert.deepEqual(
      (camel.identities as Row[]).map((r) => r.name),
      ["id-00", "id-01", "id-02"],
    );
  });

  it("combines skip, page_size and order_by: page_size=5, skip=10 starts at the eleventh (rule 2)", async () => {
    const page = ok(
      await h.api.list("identities", {
        "uidp.descendants_of": folder,
        page_size: 5,
        skip: 10,
        order_by: "name",
      }),
    );
    assert.deepEqual(
      (page.identities as Row[]).map((r) => r.name),
      ["id-10", "id-11", "id-12", "id-13", "id-14"],
    );
    assert.equal(page.skipped, 10);
    assert.equal(page.totalCount, "57");
    const next = ok(
      await h.api.list("identities", {
        "uidp.descendants_of": folder,
        page_size: 5,
        order_by: "name",
        page_token: page.nextPageToken as string,
      }),
    );
    assert.deepEqual(
      (next.identities as Row[]).map((r) => r.name),
      ["id-15", "id-16", "id-17", "id-18", "id-19"],
    );
    const past = ok(await h.api.list("identities", { "uidp.descendants_of": folder, skip: 100 }));
    assert.deepEqual(past.identities, []);
    assert.ok(!past.nextPageToken);
  });

  it("filters by exact name and by uidp.children_of", async () => {
    const named = ok(await h.api.list("identities", { name: "id-42" }));
    assert.deepEqual(
      (named.identities as Row[]).map((r) => r.name),
      ["id-42"],
    );
    const children = ok(
      await h.api.list("groups", { "uidp.children_of": h.server.org.groupUid, name: "listing" }),
    );
    assert.deepEqual(
      (children.groups as { uid: string }[]).map((g) => g.uid),
      [folder],
    );
    const none = ok(
      await h.api.list("identities", { "uidp.children_of": h.server.org.groupUid, name: "id-42" }),
    );
    assert.deepEqual(none.identities, []);
    assert.equal(none.totalCount, "0");
  });

  it("lowers page_size above 200 to 200", async () => {
    const big = ok(await h.api.create("groups", h.server.org.groupUid, { name: "big" }))
      .uid as string;
    await createIdentities(
      h.api,
      big,
      Array.from({ length: 205 }, (_, i) => `b-${i}`),
    );
    const page = ok(
      await h.api.list("identities", { "uidp.descendants_of": big, page_size: 1000 }),
    );
    assert.equal((page.identities as Row[]).length, 200);
    assert.equal(page.totalCount, "205");
    assert.ok(page.nextPageToken);
  });

  for (const [params, field] of [
    [{ page_size: -1 }, "page_size"],
    [{ skip: -5 }, "skip"],
    [{ order_by: "colour" }, "order_by"],
    [{ order_by: "name sideways" }, "order_by"],
    [{ order_by: "name desc extra" }, "order_by"],
    [{ page_token: "garbage" }, "page_token"],
    [{ "uidp.descendants_of": "../../etc" }, "uidp.descendants_of"],
  ] as const) {
    it(`refuses ${JSON.stringify(params)} with a violation on ${field}`, async () => {
      const result = failed(
        await h.api.list("identities", params as Record<string, string | number>),
      );
      assert.equal(result.code, 3);
      const fields = violations(result).map((v) => v.field);
      assert.deepEqual(fields, [field]);
    });
  }

  it("refuses a page token used with another order or other filters", async () => {
    const first = ok(
      await h.api.list("identities", {
        "uidp.descendants_of": folder,
        page_size: 5,
        order_by: "name",
      }),
    );
    const token = first.nextPageToken as string;
    for (const params of [
      { "uidp.descendants_of": folder, page_size: 5, order_by: "created_at", page_token: token },
      { "uidp.descendants_of": folder, page_size: 5, order_by: "name desc", page_token: token },
      {
        "uidp.descendants_of": h.server.org.groupUid,
        page_size: 5,
        order_by: "name",
        page_token: token,
      },
    ]) {
      const result = failed(await h.api.list("identities", params));
      assert.equal(result.code, 3);
      assert.equal(violations(result)[0].field, "page_token");
    }
    const [payload, mac] = token.split(".");
    const body = JSON.parse(Buffer.from(payload, "base64url").toString());
    body.c[0] = "id-50";
    const tampered = `${Buffer.from(JSON.stringify(body)).toString("base64url")}.${mac}`;
    const refused = failed(
      await h.api.list("identities", {
        "uidp.descendants_of": folder,
        page_size: 5,
        order_by: "name",
        page_token: tampered,
      }),
    );
    assert.equal(violations(refused)[0].field, "page_token");
  });

  it("restarts from the first page when a page token is older than three days (Errors rule 3)", async () => {
    const { value: secret } = await h.server.lading.store.db
      .selectFrom("settings")
      .select("value")
      .where("key", "=", "page_token_secret")
      .executeTakeFirstOrThrow();
    const params = { "uidp.descendants_of": folder, page_size: 5, order_by: "name" };
    const first = ok(await h.api.list("identities", params));
    const stale = backdate(
      first.nextPageToken as string,
      secret,
      Date.now() - 4 * 24 * 3600 * 1000,
    );
    const page = ok(await h.api.list("identities", { ...params, page_token: stale }));
    assert.deepEqual(
      (page.identities as Row[]).map((r) => r.name),
      ["id-00", "id-01", "id-02", "id-03", "id-04"],
    );
    const young = backdate(
      first.nextPageToken as string,
      secret,
      Date.now() - 2 * 24 * 3600 * 1000,
    );
    const second = ok(await h.api.list("identities", { ...params, page_token: young }));
    assert.deepEqual(
      (second.identities as Row[]).map((r) => r.name),
      ["id-05", "id-06", "id-07", "id-08", "id-09"],
    );
  });

  it("neither skips nor repeats rows that exist throughout while rows are inserted and deleted between pages", async () => {
    const group = ok(await h.api.create("groups", h.server.org.groupUid, { name: "churn" }))
      .uid as string;
    const stable = await createIdentities(
      h.api,
      group,
      Array.from({ length: 30 }, (_, i) => `s-${String(i).padStart(2, "0")}`),
    );
    const doomed = await createIdentities(
      h.api,
      group,
      Array.from({ length: 10 }, (_, i) => `s-${String(i * 3).padStart(2, "0")}x`),
    );
    const seen: string[] = [];
    let token = "";
    let round = 0;
    do {
      const page = ok(
        await h.api.list("identities", {
          "uidp.descendants_of": group,
          page_size: 7,
          order_by: "name",
          ...(token ? { page_token: token } : {}),
        }),
      );
      seen.push(...(page.identities as Row[]).map((r) => r.uid));
      token = (page.nextPageToken as string) ?? "";
      await createIdentities(h.api, group, [
        `s-${String(round * 5).padStart(2, "0")}y`,
        `s-${String(29 - round).padStart(2, "0")}z`,
      ]);
      const victim = doomed[round];
      if (victim) ok(await h.api.delete("identities", victim.uid));
      round++;
    } while (token);
    for (const row of stable)
      assert.equal(seen.filter((u) => u === row.uid).length, 1, `${row.name} seen exactly once`);
    assert.equal(new Set(seen).size, seen.length, "no row repeated");
    const after = await allPages(h.api, { "uidp.descendants_of": group, page_size: 200 });
    const present = after.flatMap((p) => p.identities).length;
    assert.equal(present, 30 + doomed.length - Math.min(round, doomed.length) + 2 * round);
    assert.equal(after[0].totalCount, String(present));
    const named = ok(
      await h.api.list("identities", { "uidp.descendants_of": group, name: "s-00" }),
    );
    assert.equal(named.totalCount, "1");
  });

  it("uses the lower-case plural resource name as the envelope key", async () => {
    for (const [kind, key] of [
      ["groups", "groups"],
      ["identities", "identities"],
      ["roles", "roles"],
      ["roleBindings", "roleBindings"],
    ] as const) {
      const page = ok(await h.api.list(kind, { page_size: 1 }));
      assert.ok(Array.isArray(page[key]), `${kind} envelope has ${key}`);
      assert.equal(typeof page.totalCount, "string");
      assert.equal(typeof page.skipped, "number");
    }
  });
});

/** The same page token as if issued at `issuedAt`, signed as the server signs it. */
function backdate(token: string, secret: string, issuedAt: number): string {
  const body = JSON.parse(Buffer.from(token.split(".")[0], "base64url").toString());
  const payload = Buffer.from(JSON.stringify({ ...body, t: issuedAt })).toString("base64url");
  const mac = createHmac("sha256", secret).update(payload).digest().subarray(0, 16);
  return `${payload}.${mac.toString("base64url")}`;
}
