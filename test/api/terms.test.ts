import assert from "node:assert/strict";
import { before, it } from "node:test";
import { holder, type InvitesApi, invitesApi } from "../support/iam-fixtures.ts";
import { failed, type Loose, matrix, ok, timestamp, violations } from "../support/matrix.ts";

matrix("Terms", (h) => {
  let api: InvitesApi;
  let org: string;
  const as = (token: string | undefined) => invitesApi(h.transport, h.server.apiUrl, token);
  let groups = 0;
  const subgroup = async (parent: string) =>
    ok(await h.api.create("groups", parent, { name: `team-${++groups}` })).uid as string;

  before(() => {
    api = as(h.server.org.token);
    org = h.server.org.groupUid;
  });

  it("records acceptances idempotently and lists those of the group and its ancestors", async () => {
    const team = await subgroup(org);
    const sibling = await subgroup(org);
    const squad = await subgroup(team);
    assert.deepEqual(ok(await api.acceptTerms(org, ["tos-2024", "tos-2024"])), {
      group: org,
      documentIds: ["tos-2024"],
    });
    ok(await api.acceptTerms(team, ["privacy.v1"]));
    ok(await api.acceptTerms(sibling, ["sibling-only"]));
    const first = ok(await api.listTerms(squad));
    ok(await api.acceptTerms(org, ["tos-2024"]));
    const list = ok(await api.listTerms(squad));
    assert.deepEqual(list, first, "accepting again changes nothing");
    const rows = list.termsAcceptances as Loose[];
    assert.deepEqual(
      rows.map((r) => [r.docId, r.groupUid]),
      [
        ["tos-2024", org],
        ["privacy.v1", team],
      ],
    );
    assert.equal(Number(list.totalCount), 2);
    for (const row of rows) {
      assert.equal(row.acceptedBy, h.server.org.identityUid);
      assert.match(row.createTime, timestamp);
    }
    const atOrg = ok(await api.listTerms(org)).termsAcceptances as Loose[];
    assert.deepEqual(
      atOrg.map((r) => r.docId),
      ["tos-2024"],
    );
  });

  it("honours page_size and page_token", async () => {
    const group = await subgroup(org);
    const ids = ["a1", "b2", "c3", "d4", "e5"];
    for (const id of ids) ok(await api.acceptTerms(group, [id]));
    const seen: string[] = [];
    let token = "";
    let pages = 0;
    do {
      const page = ok(
        await api.listTerms(group, { page_size: 2, ...(token ? { page_token: token } : {}) }),
      );
      pages++;
      assert.ok((page.termsAcceptances as Loose[]).length <= 2);
      assert.equal(Number(page.totalCount), ids.length + 1);
      seen.push(...(page.termsAcceptances as Loose[]).map((r) => r.docId as string));
      token = page.nextPageToken as string;
    } while (token);
    assert.equal(pages, 3);
    assert.deepEqual(
      seen.filter((d) => ids.includes(d)),
      ids,
    );
    const first = ok(await api.listTerms(group, { page_size: 2 }));
    const elsewhere = failed(
      await api.listTerms(await subgroup(org), {
        page_size: 2,
        page_token: first.nextPageToken as string,
      }),
    );
    assert.equal(elsewhere.code, 3, "a page token only continues the group it was issued for");
    assert.deepEqual(
      violations(elsewhere).map((v) => v.field),
      ["page_token"],
    );
  });

  it("validates document ids", async () => {
    const empty = failed(await api.acceptTerms(org, []));
    assert.equal(empty.code, 3);
    assert.deepEqual(
      violations(empty).map((v) => v.field),
      ["document_ids"],
    );
    const bad = failed(await api.acceptTerms(org, ["ok-doc", "Bad Doc"]));
    assert.deepEqual(
      violations(bad).map((v) => v.field),
      ["document_ids[1]"],
    );
    assert.equal(failed(await api.acceptTerms("not-a-uid", ["x"])).code, 3);
  });

  it("requires terms.accept to accept and terms.list to list", async () => {
    const reader = await holder(h.server, org, ["groups.list", "terms.list"]);
    const denied = failed(await as(reader.token).acceptTerms(org, ["tos-2024"]));
    assert.equal(denied.code, 7);
    ok(await as(reader.token).listTerms(org));
    const blind = await holder(h.server, org, ["terms.accept"]);
    assert.equal(failed(await as(blind.token).acceptTerms(org, ["tos-2024"])).code, 5);
    const outsider = await holder(h.server, org, ["groups.list"]);
    assert.equal(failed(await as(outsider.token).listTerms(org)).code, 5);
    assert.equal(failed(await as(undefined).listTerms(org)).code, 16);
  });
});
