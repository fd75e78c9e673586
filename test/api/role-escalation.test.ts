import assert from "node:assert/strict";
import { before, it } from "node:test";
import { builtIn } from "../support/federation-api.ts";
import { failed, type Loose, matrix, ok } from "../support/matrix.ts";

/**
 * The privilege escalation through UpdateRole: an identity whose custom role holds only
 * roles.update and roles.list must not be able to grow that role, and so must not get from
 * there to owner.
 */
matrix("Role escalation through role changes", (h) => {
  let org = "";
  let team = "";

  /** A custom role on `group` with `capabilities` (enum names), created by the owner. */
  const role = async (group: string, name: string, capabilities: string[]) =>
    ok(await h.api.create("roles", group, { name, capabilities })).uid as string;

  /** A new identity on the organisation bound to each [role, group], with its API. */
  async function actor(name: string, bindings: [string, string][]) {
    const uid = ok(await h.api.create("identities", org, { name })).uid as string;
    for (const [roleUid, group] of bindings) {
      ok(await h.api.create("roleBindings", group, { identityUid: uid, roleUid }));
    }
    return { uid, api: h.as(await h.server.token(uid)) };
  }

  const refusedForLack = (result: Parameters<typeof failed>[0], missing: RegExp) => {
    const error = failed(result);
    assert.equal(error.code, 7, error.message);
    if (h.transport === "rest") assert.equal(error.httpStatus, 403);
    assert.match(error.message, /capabilities the caller lacks/);
    assert.match(error.message, missing);
  };

  before(async () => {
    org = h.server.org.groupUid;
    team = ok(await h.api.create("groups", org, { name: "team" })).uid as string;
  });

  it("refuses a roles.update holder adding capabilities to its own role, so it never reaches owner", async () => {
    const own = await role(org, "role-keeper", ["CAP_ROLES_UPDATE", "CAP_ROLES_LIST"]);
    const x = await actor("x", [[own, org]]);
    const before = ok(await h.api.get("roles", own));
    const grown = [
      "CAP_ROLES_UPDATE",
      "CAP_ROLES_LIST",
      "CAP_REPO_DELETE",
      "CAP_ROLE_BINDINGS_CREATE",
    ];
    refusedForLack(
      await x.api.update("roles", own, { capabilities: grown }, "capabilities"),
      /repo\.delete, role_bindings\.create/,
    );
    refusedForLack(await x.api.update("roles", own, { capabilities: grown }), /repo\.delete/);
    assert.deepEqual(ok(await h.api.get("roles", own)), before);

    const toOwner = failed(
      await x.api.create("roleBindings", org, { identityUid: x.uid, roleUid: builtIn.owner }),
    );
    // X does not even see the group (no groups.list): NOT_FOUND, or PERMISSION_DENIED had it
    // held groups.list; never a binding.
    assert.ok([5, 7].includes(toOwner.code), toOwner.message);
    const held = ok(await h.api.list("roleBindings", { identity: x.uid })).roleBindings as Loose[];
    assert.deepEqual(
      held.map((b) => b.roleUid),
      [own],
    );
  });

  it("checks only what an update adds: renaming or trimming a role beyond the caller is allowed", async () => {
    const keeper = await role(org, "keeper-2", ["CAP_ROLES_UPDATE", "CAP_ROLES_LIST"]);
    const x = await actor("x2", [[keeper, org]]);
    const big = await role(org, "big", ["CAP_REPO_DELETE", "CAP_REPO_LIST"]);
    const renamed = ok(
      await x.api.update("roles", big, { description: "still big" }, "description"),
    );
    assert.deepEqual(renamed.capabilities, ["CAP_REPO_DELETE", "CAP_REPO_LIST"]);
    const trimmed = ok(
      await x.api.update("roles", big, { capabilities: ["CAP_REPO_LIST"] }, "capabilities"),
    );
    assert.deepEqual(trimmed.capabilities, ["CAP_REPO_LIST"]);
    refusedForLack(
      await x.api.update(
        "roles",
        big,
        { capabilities: ["CAP_REPO_LIST", "CAP_REPO_DELETE"] },
        "capabilities",
      ),
      /: repo\.delete$/,
    );
    const grown = ok(
      await x.api.update("roles", big, { capabilities: ["CAP_REPO_LIST", "CAP_ROLES_LIST"] }),
    );
    assert.deepEqual(grown.capabilities, ["CAP_REPO_LIST", "CAP_ROLES_LIST"]);
  });

  it("checks added capabilities on the role's own group, where it can be bound and below", async () => {
    const keeper = await role(org, "keeper-3", ["CAP_ROLES_UPDATE", "CAP_ROLES_LIST"]);
    const deleter = await role(org, "team-deleter", ["CAP_REPO_DELETE"]);
    const x = await actor("x3", [
      [keeper, org],
      [deleter, team],
    ]);
    const wide = await role(org, "wide", ["CAP_ROLES_LIST"]);
    refusedForLack(
      await x.api.update(
        "roles",
        wide,
        { capabilities: ["CAP_ROLES_LIST", "CAP_REPO_DELETE"] },
        "capabilities",
      ),
      new RegExp(`lacks on ${org}: repo\\.delete`),
    );
    const narrow = await role(team, "narrow", ["CAP_ROLES_LIST"]);
    ok(
      await x.api.update(
        "roles",
        narrow,
        { capabilities: ["CAP_ROLES_LIST", "CAP_REPO_DELETE"] },
        "capabilities",
      ),
    );
  });

  it("refuses creating a role with capabilities the caller lacks", async () => {
    const maker = await role(org, "maker", ["CAP_ROLES_CREATE", "CAP_GROUPS_LIST"]);
    const y = await actor("y", [[maker, org]]);
    refusedForLack(
      await y.api.create("roles", org, {
        name: "mighty",
        capabilities: ["CAP_GROUPS_LIST", "CAP_REPO_DELETE"],
      }),
      /: repo\.delete$/,
    );
    const names = (ok(await h.api.list("roles", { name: "mighty" })).roles as Loose[]).length;
    assert.equal(names, 0);
    ok(await y.api.create("roles", org, { name: "lister", capabilities: ["CAP_GROUPS_LIST"] }));
  });
});
