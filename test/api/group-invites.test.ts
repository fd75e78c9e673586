import assert from "node:assert/strict";
import { before, it } from "node:test";
import { bootstrapOrganisation } from "../../src/app/index.ts";
import { builtInRoleUid } from "../../src/auth/index.ts";
import type { Result } from "../support/api-client.ts";
import {
  addIdentity,
  addRole,
  bind,
  holder,
  type InvitesApi,
  invitesApi,
} from "../support/iam-fixtures.ts";
import {
  detail,
  failed,
  type Loose,
  matrix,
  ok,
  timestamp,
  violations,
} from "../support/matrix.ts";

const viewer = builtInRoleUid("viewer");
const owner = builtInRoleUid("owner");

/** The PreconditionFailure violation types of a failed result. */
function preconditionTypes(result: Result): string[] {
  const entry = detail(result, "PreconditionFailure") as Loose | undefined;
  return ((entry?.violations ?? []) as { type: string }[]).map((v) => v.type);
}

matrix("Group invites", (h) => {
  let api: InvitesApi;
  let org: string;
  const as = (token: string | undefined) => invitesApi(h.transport, h.server.apiUrl, token);
  const invite = async (body: Loose = {}) =>
    ok(await api.create(org, { roleUid: viewer, ttl: "3600s", ...body }));
  const signedIn = (email = "dev@example.com") => addIdentity(h.server, "", email);

  before(() => {
    api = as(h.server.org.token);
    org = h.server.org.groupUid;
  });

  it("creates an invite whose code only the create response carries", async () => {
    const created = await invite({ email: "Dev@Example.com", singleUse: true });
    assert.match(created.uid, new RegExp(`^${org}/[0-9a-f]{16}$`));
    assert.match(created.code, /^lgi_[A-Za-z0-9_-]{43}$/);
    assert.match(created.keyId, /^[0-9a-f]{8}$/);
    assert.equal(created.email, "dev@example.com");
    assert.equal(created.singleUse, true);
    assert.equal(created.roleUid, viewer);
    assert.deepEqual(
      { uid: created.role.uid, name: created.role.name },
      { uid: viewer, name: "viewer" },
    );
    assert.match(created.createTime, timestamp);
    assert.equal(Date.parse(created.expirationTime) - Date.parse(created.createTime), 3_600_000);
    assert.equal(created.ttl, undefined);
    const got = ok(await api.get(created.uid));
    assert.ok(!got.code, "Get never returns the code");
    assert.deepEqual({ ...got, code: created.code }, { ...created, code: created.code });
    const listed = ok(await api.list({ key_id: created.keyId })).groupInvites as Loose[];
    assert.deepEqual(
      listed.map((i) => [i.uid, i.code ?? ""]),
      [[created.uid, ""]],
    );
  });

  it("lists newest first by default, with page parameters", async () => {
    const a = await invite();
    const b = await invite();
    const page = ok(await api.list({ page_size: 1 }));
    assert.equal((page.groupInvites as Loose[])[0].uid, b.uid);
    assert.ok(page.nextPageToken);
    assert.ok(Number(page.totalCount) >= 2);
    const next = ok(await api.list({ page_size: 1, page_token: page.nextPageToken }));
    assert.equal((next.groupInvites as Loose[])[0].uid, a.uid);
    const asc = ok(await api.list({ order_by: "created_at", page_size: 200 })).groupInvites;
    assert.ok((asc as Loose[]).findIndex((i) => i.uid === a.uid) < (asc as Loose[]).length - 1);
  });

  it("validates role, ttl (1 minute to 30 days) and email", async () => {
    const empty = failed(await api.create(org, {}));
    assert.equal(empty.code, 3);
    assert.deepEqual(
      violations(empty)
        .map((v) => v.field)
        .sort(),
      ["group_invite.role_uid", "group_invite.ttl"],
    );
    for (const ttl of ["59s", "2592001s"]) {
      const bad = failed(await api.create(org, { roleUid: viewer, ttl }));
      assert.deepEqual(
        violations(bad).map((v) => v.field),
        ["group_invite.ttl"],
      );
    }
    ok(await api.create(org, { roleUid: viewer, ttl: "2592000s" }));
    const mail = failed(await api.create(org, { roleUid: viewer, ttl: "60s", email: "nope" }));
    assert.deepEqual(
      violations(mail).map((v) => v.field),
      ["group_invite.email"],
    );
    const other = await bootstrapOrganisation(h.server.lading.store.db, `o${Date.now()}`);
    const foreignRole = await addRole(h.server, other.groupUid, ["groups.list"]);
    const role = failed(await api.create(org, { roleUid: foreignRole, ttl: "60s" }));
    assert.deepEqual(
      violations(role).map((v) => v.field),
      ["group_invite.role_uid"],
    );
  });

  it("accepts: the caller gets the role on the group, hydrated like a role binding", async () => {
    const created = await invite();
    const user = await signedIn();
    const binding = ok(await as(user.token).accept(created.code)).roleBinding as Loose;
    assert.match(binding.uid, new RegExp(`^${org}/[0-9a-f]{16}$`));
    assert.equal(binding.identity.uid, user.uid);
    assert.equal(binding.group.uid, org);
    assert.equal(binding.role.uid, viewer);
    assert.equal(binding.role.name, "viewer");
    assert.ok(ok(await as(user.token).get(created.uid)).uid, "the viewer role lets the user read");
  });

  it("answers NOT_FOUND alike for an unknown and a deleted code", async () => {
    const user = await signedIn();
    const unknown = failed(await as(user.token).accept(`lgi_${"A".repeat(43)}`));
    const created = await invite();
    ok(await api.delete(created.uid));
    ok(await api.delete(created.uid));
    assert.equal(failed(await api.get(created.uid)).code, 5);
    const deleted = failed(await as(user.token).accept(created.code));
    assert.equal(unknown.code, 5);
    assert.deepEqual(
      { code: deleted.code, message: deleted.message },
      { code: unknown.code, message: unknown.message },
    );
    assert.equal(failed(await as(user.token).accept("")).code, 3);
  });

  it("refuses an expired invite: FAILED_PRECONDITION, INVITE_EXPIRED", async () => {
    const created = await invite();
    await h.server.lading.store.db
      .updateTable("group_invites")
      .set({ expire_time: new Date(Date.now() - 1000).toISOString() })
      .where("uid", "=", created.uid)
      .execute();
    const result = failed(await as((await signedIn()).token).accept(created.code));
    assert.equal(result.code, 9);
    if (result.httpStatus) assert.equal(result.httpStatus, 400);
    assert.match(result.message, /^Precondition failed: /);
    assert.deepEqual(preconditionTypes(result), ["INVITE_EXPIRED"]);
  });

  it("lets one of two concurrent accepts of a single-use invite win; later ones get INVITE_USED", async () => {
    const created = await invite({ singleUse: true });
    const [a, b, c] = await Promise.all([signedIn(), signedIn(), signedIn()]);
    const results = await Promise.all([
      as(a.token).accept(created.code),
      as(b.token).accept(created.code),
    ]);
    assert.equal(results.filter((r) => r.ok).length, 1);
    const loser = failed(results.find((r) => !r.ok) as Result);
    assert.equal(loser.code, 9);
    assert.deepEqual(preconditionTypes(loser), ["INVITE_USED"]);
    assert.deepEqual(preconditionTypes(failed(await as(c.token).accept(created.code))), [
      "INVITE_USED",
    ]);
    const bindings = await h.server.lading.store.db
      .selectFrom("role_bindings")
      .select("identity_uid")
      .where("identity_uid", "in", [a.uid, b.uid, c.uid])
      .execute();
    assert.equal(bindings.length, 1);
  });

  it("lets a multi-use invite be accepted by many", async () => {
    const created = await invite();
    for (const user of [await signedIn(), await signedIn()]) {
      ok(await as(user.token).accept(created.code));
    }
  });

  it("binds an invite with an email only to that email (case-insensitive)", async () => {
    const created = await invite({ email: "alice@example.com" });
    for (const email of ["bob@example.com", ""]) {
      const result = failed(await as((await signedIn(email)).token).accept(created.code));
      assert.equal(result.code, 9);
      assert.deepEqual(preconditionTypes(result), ["INVITE_EMAIL_MISMATCH"]);
    }
    ok(await as((await signedIn("Alice@Example.COM")).token).accept(created.code));
  });

  it("refuses a caller whose identity cannot reach the group", async () => {
    const created = await invite();
    const other = await bootstrapOrganisation(h.server.lading.store.db, `x${Date.now()}`);
    const stranger = await addIdentity(h.server, other.groupUid, "dev@example.com");
    const result = failed(await as(stranger.token).accept(created.code));
    assert.equal(result.code, 9);
    assert.deepEqual(preconditionTypes(result), ["INVITE_GROUP_UNREACHABLE"]);
    assert.equal(failed(await as(undefined).accept(created.code)).code, 16);
  });

  it("returns an existing binding as it is, without consuming a single-use invite", async () => {
    const created = await invite({ singleUse: true });
    const user = await signedIn();
    await bind(h.server, user.uid, org, viewer);
    const first = ok(await as(user.token).accept(created.code)).roleBinding as Loose;
    const again = ok(await as(user.token).accept(created.code)).roleBinding as Loose;
    assert.equal(first.uid, again.uid);
    ok(await as((await signedIn()).token).accept(created.code));
  });

  it("requires group_invites.create and role_bindings.create on the group", async () => {
    const noInvite = await holder(h.server, org, ["groups.list", "role_bindings.create"]);
    const noBind = await holder(h.server, org, ["groups.list", "group_invites.create"]);
    for (const who of [noInvite, noBind]) {
      const result = failed(await as(who.token).create(org, { roleUid: viewer, ttl: "60s" }));
      assert.equal(result.code, 7);
    }
    const blind = await holder(h.server, org, ["group_invites.create"]);
    assert.equal(
      failed(await as(blind.token).create(org, { roleUid: viewer, ttl: "60s" })).code,
      5,
    );
  });

  it("refuses to invite to a role with capabilities the caller lacks (anti-escalation)", async () => {
    const caps = ["groups.list", "group_invites.create", "role_bindings.create"];
    const inviter = await holder(h.server, org, caps);
    const result = failed(await as(inviter.token).create(org, { roleUid: owner, ttl: "60s" }));
    assert.equal(result.code, 7);
    assert.match(result.message, /capabilities the caller lacks/);
    const same = await addRole(h.server, org, caps);
    ok(await as(inviter.token).create(org, { roleUid: same, ttl: "60s" }));
  });

  it("lists, reads and deletes only with group_invites.list and group_invites.delete", async () => {
    const created = await invite();
    const outsider = await holder(h.server, org, ["groups.list"]);
    const listed = ok(await as(outsider.token).list({ key_id: created.keyId }));
    assert.deepEqual(listed.groupInvites ?? [], []);
    assert.equal(failed(await as(outsider.token).get(created.uid)).code, 5);
    assert.equal(failed(await as(outsider.token).delete(created.uid)).code, 5);
    const reader = await holder(h.server, org, ["group_invites.list"]);
    assert.equal(ok(await as(reader.token).get(created.uid)).uid, created.uid);
    assert.equal(failed(await as(reader.token).delete(created.uid)).code, 7);
    const deleter = await holder(h.server, org, ["group_invites.list", "group_invites.delete"]);
    ok(await as(deleter.token).delete(created.uid));
  });
});
