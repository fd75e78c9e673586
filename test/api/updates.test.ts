import assert from "node:assert/strict";
import { before, it } from "node:test";
import { failed, matrix, ok, timestamp, violations } from "../support/matrix.ts";

matrix("Partial update", (h) => {
  let uid = "";
  const claimMatch = { issuer: "https://issuer.example.com", subject: "builder" };
  const unset = { issuerPattern: "", subjectPattern: "", audience: "", claims: {} };

  before(async () => {
    const identity = ok(
      await h.api.create("identities", h.server.org.groupUid, {
        name: "builder",
        description: "builds",
        claimMatch,
      }),
    );
    uid = identity.uid as string;
  });

  it("without updateMask changes only the fields in the body (rule 1)", async () => {
    const before = ok(await h.api.get("identities", uid));
    await new Promise((r) => setTimeout(r, 5));
    const updated = ok(await h.api.update("identities", uid, { description: "builds images" }));
    assert.equal(updated.description, "builds images");
    assert.equal(updated.name, "builder");
    assert.deepEqual(updated.claimMatch, { ...unset, ...claimMatch });
    assert.equal(updated.createTime, before.createTime);
    assert.match(updated.updateTime as string, timestamp);
    assert.ok((updated.updateTime as string) > (before.updateTime as string));
    assert.deepEqual(ok(await h.api.get("identities", uid)), updated);
  });

  it("with updateMask changes only the listed fields and ignores the rest of the body (rule 2)", async () => {
    const updated = ok(
      await h.api.update(
        "identities",
        uid,
        { name: "ignored", description: "masked" },
        "description",
      ),
    );
    assert.equal(updated.description, "masked");
    assert.equal(updated.name, "builder");
  });

  it("accepts several comma-separated paths, in lowerCamel or snake_case, nested with dots", async () => {
    const updated = ok(
      await h.api.update(
        "identities",
        uid,
        { name: "builder2", claimMatch: { issuer: "https://other.example.com", subject: "b2" } },
        "name,claimMatch.subject",
      ),
    );
    assert.equal(updated.name, "builder2");
    assert.deepEqual(updated.claimMatch, { ...unset, issuer: claimMatch.issuer, subject: "b2" });
    if (h.transport === "rest") {
      const snake = ok(
        await h.api.update(
          "identities",
          uid,
          { claimMatch: { issuer: "https://other.example.com" } },
          "claim_match.issuer",
        ),
      );
      assert.deepEqual(snake.claimMatch, {
        ...unset,
        issuer: "https://other.example.com",
        subject: "b2",
      });
    }
  });

  it("an updateMask naming a message replaces all of it", async () => {
    const updated = ok(await h.api.update("identities", uid, { claimMatch }, "claimMatch"));
    assert.deepEqual(updated.claimMatch, { ...unset, ...claimMatch });
  });

  for (const path of ["colour", "createTime", "uid", "lastSeenTime"]) {
    it(`refuses updateMask path ${path}: unknown or output only`, async () => {
      const before = ok(await h.api.get("identities", uid));
      const result = failed(await h.api.update("identities", uid, { description: "nope" }, path));
      assert.equal(result.code, 3);
      assert.equal(violations(result)[0].field, "update_mask");
      assert.deepEqual(ok(await h.api.get("identities", uid)), before);
    });
  }

  it("validates the fields it changes", async () => {
    const result = failed(await h.api.update("identities", uid, { name: "UPPER" }, "name"));
    assert.equal(result.code, 3);
    assert.deepEqual(
      violations(result).map((v) => v.field),
      ["name"],
    );
  });

  it("applies to groups, roles and role bindings too (rule 3)", async () => {
    const group = ok(
      await h.api.create("groups", h.server.org.groupUid, { name: "upd", description: "d1" }),
    );
    const g = ok(await h.api.update("groups", group.uid as string, { description: "d2" }));
    assert.deepEqual([g.name, g.description], ["upd", "d2"]);
    const role = ok(
      await h.api.create("roles", h.server.org.groupUid, {
        name: "r1",
        description: "x",
        capabilities: ["CAP_GROUPS_LIST"],
      }),
    );
    const r = ok(
      await h.api.update("roles", role.uid as string, { capabilities: ["CAP_IDENTITY_LIST"] }),
    );
    assert.deepEqual([r.name, r.description, r.capabilities], ["r1", "x", ["CAP_IDENTITY_LIST"]]);
    const identity = ok(await h.api.create("identities", h.server.org.groupUid, { name: "bound" }));
    const binding = ok(
      await h.api.create("roleBindings", h.server.org.groupUid, {
        identityUid: identity.uid as string,
        roleUid: role.uid as string,
      }),
    );
    const viewer = "63921b2c44617e3f2603851537be0123af4a57d7";
    const b = ok(
      await h.api.update("roleBindings", binding.uid as string, { roleUid: viewer }, "roleUid"),
    );
    assert.equal((b.role as { name: string }).name, "viewer");
    assert.equal((b.identity as { uid: string }).uid, identity.uid);
  });

  it("clears a field with an empty value when REST names it in the body or any transport masks it", async () => {
    ok(await h.api.update("identities", uid, { description: "something" }, "description"));
    const cleared =
      h.transport === "rest"
        ? ok(await h.api.update("identities", uid, { description: "" }))
        : ok(await h.api.update("identities", uid, { description: "" }, "description"));
    assert.equal(cleared.description, "");
    assert.equal(cleared.name, "builder2");
  });
});
