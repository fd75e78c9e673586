import assert from "node:assert/strict";
import { it } from "node:test";
import { detail, failed, matrix, ok, timestamp, violations } from "../support/matrix.ts";

const viewerUid = "63921b2c44617e3f2603851537be0123af4a57d7";

matrix("IAM resources", (h) => {
  it("creates a subgroup with a child uid and millisecond timestamps, and reads it back by uid", async () => {
    const org = h.server.org.groupUid;
    assert.match(org, /^[0-9a-f]{40}$/);
    const group = ok(await h.api.create("groups", org, { name: "team-a", description: "Team A" }));
    assert.match(group.uid as string, new RegExp(`^${org}/[0-9a-f]{16}$`));
    assert.match(group.createTime as string, timestamp);
    assert.match(group.updateTime as string, timestamp);
    assert.deepEqual(ok(await h.api.get("groups", group.uid as string)), group);
  });

  it("creates an identity under the group named in the path, with claimMatch", async () => {
    const org = h.server.org.groupUid;
    const body = {
      name: "ci bot.1_x-y",
      description: "CI",
      claimMatch: {
        issuer: "https://token.example.com",
        subject: "repo:acme/app:ref:refs/heads/main",
      },
    };
    const identity = ok(await h.api.create("identities", org, body));
    assert.match(identity.uid as string, new RegExp(`^${org}/[0-9a-f]{16}$`));
    assert.equal(identity.name, body.name);
    assert.deepEqual(identity.claimMatch, {
      issuerPattern: "",
      subjectPattern: "",
      audience: "",
      claims: {},
      ...body.claimMatch,
    });
    assert.match(identity.createTime as string, timestamp);
    assert.deepEqual(ok(await h.api.get("identities", identity.uid as string)), identity);
  });

  it("rejects an identity with an empty body: code 3, one violation on name", async () => {
    const result = failed(await h.api.create("identities", h.server.org.groupUid, {}));
    assert.equal(result.code, 3);
    assert.match(result.message, /^Invalid argument: name: /);
    assert.deepEqual(detail(result, "ErrorInfo"), {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "INVALID_ARGUMENT",
      domain: "iam.lading.dev",
    });
    assert.deepEqual(
      violations(result).map((v) => v.field),
      ["name"],
    );
    assert.match(
      violations(result)[0].description,
      /must match the pattern \^\[a-z0-9 \._-\]\{1,\}\$/,
    );
    if (result.httpStatus) assert.equal(result.httpStatus, 400);
  });

  it("names every failing field once in one error", async () => {
    const result = failed(
      await h.api.create("identities", h.server.org.groupUid, {
        name: "Bad Name!",
        description: "a\nb",
      }),
    );
    assert.deepEqual(
      violations(result)
        .map((v) => v.field)
        .sort(),
      ["description", "name"],
    );
  });

  it("lists built-in roles with fixed 40-hex uids, readable by uid", async () => {
    const roles = ok(await h.api.list("roles", { page_size: 200 })).roles as {
      uid: string;
      name: string;
    }[];
    const names = roles.map((r) => r.name);
    for (const name of [
      "owner",
      "editor",
      "viewer",
      "registry.pull",
      "registry.push",
      "registry.pull_token_creator",
    ]) {
      assert.ok(names.includes(name), `built-in role ${name} listed`);
    }
    for (const role of roles) assert.match(role.uid, /^[0-9a-f]{40}$/);
    const viewer = ok(await h.api.get("roles", viewerUid));
    assert.equal(viewer.name, "viewer");
    assert.ok((viewer.capabilities as string[]).includes("CAP_IDENTITY_LIST"));
    assert.ok(!(viewer.capabilities as string[]).includes("CAP_IDENTITY_CREATE"));
  });

  it("creates a custom role under a group with its capabilities", async () => {
    const org = h.server.org.groupUid;
    const role = ok(
      await h.api.create("roles", org, {
        name: "auditor",
        capabilities: ["CAP_IDENTITY_LIST", "CAP_GROUPS_LIST"],
      }),
    );
    assert.match(role.uid as string, new RegExp(`^${org}/[0-9a-f]{16}$`));
    assert.deepEqual(role.capabilities, ["CAP_IDENTITY_LIST", "CAP_GROUPS_LIST"]);
    const empty = failed(await h.api.create("roles", org, { name: "nothing", capabilities: [] }));
    assert.equal(empty.code, 3);
    const builtIn = failed(await h.api.update("roles", viewerUid, { description: "mine now" }));
    assert.equal(builtIn.code, 9);
  });

  it("creates a role binding whose response hydrates identity, group and role; lists it by identity and role", async () => {
    const org = h.server.org.groupUid;
    const identity = ok(
      await h.api.create("identities", org, {
        name: "deployer",
        description: "deploys",
        claimMatch: { issuer: "https://issuer.example.com", subject: "deployer" },
      }),
    );
    const binding = ok(
      await h.api.create("roleBindings", org, {
        identityUid: identity.uid as string,
        roleUid: viewerUid,
      }),
    );
    assert.match(binding.uid as string, new RegExp(`^${org}/[0-9a-f]{16}$`));
    assert.deepEqual(binding.identity, {
      uid: identity.uid,
      name: "deployer",
      description: "deploys",
      subject: "deployer",
      issuer: "https://issuer.example.com",
    });
    assert.deepEqual(binding.group, { uid: org, name: "acme", description: "" });
    assert.deepEqual(binding.role, {
      uid: viewerUid,
      name: "viewer",
      description: (binding.role as { description: string }).description,
    });
    assert.ok((binding.role as { description: string }).description.length > 0);
    assert.match(binding.createTime as string, timestamp);
    assert.deepEqual(ok(await h.api.get("roleBindings", binding.uid as string)), binding);

    const byIdentity = ok(await h.api.list("roleBindings", { identity: identity.uid as string }));
    assert.deepEqual(
      (byIdentity.roleBindings as { uid: string }[]).map((b) => b.uid),
      [binding.uid],
    );
    const byRole = ok(await h.api.list("roleBindings", { role: viewerUid }));
    assert.ok((byRole.roleBindings as { uid: string }[]).some((b) => b.uid === binding.uid));

    const again = failed(
      await h.api.create("roleBindings", org, {
        identityUid: identity.uid as string,
        roleUid: viewerUid,
      }),
    );
    assert.equal(again.code, 6);

    const blocked = failed(await h.api.delete("identities", identity.uid as string));
    assert.equal(blocked.code, 9);
    assert.deepEqual(ok(await h.api.delete("roleBindings", binding.uid as string)), {});
    assert.deepEqual(ok(await h.api.delete("identities", identity.uid as string)), {});
    const gone = failed(await h.api.get("identities", identity.uid as string));
    assert.equal(gone.code, 5);
    assert.equal(detail(gone, "ResourceInfo")?.resourceName, identity.uid);
  });

  it("refuses to delete a group with children: code 9, RESOURCE_NOT_EMPTY", async () => {
    const group = ok(await h.api.create("groups", h.server.org.groupUid, { name: "full" }));
    const child = ok(await h.api.create("groups", group.uid as string, { name: "child" }));
    const result = failed(await h.api.delete("groups", group.uid as string));
    assert.equal(result.code, 9);
    assert.equal(result.message, "Precondition failed: cannot delete group with child groups");
    assert.equal(detail(result, "ErrorInfo")?.reason, "FAILED_PRECONDITION");
    const violations = detail(result, "PreconditionFailure")?.violations as {
      type: string;
      description: string;
    }[];
    assert.equal(violations[0].type, "RESOURCE_NOT_EMPTY");
    assert.match(violations[0].description, /cannot delete group with child groups/);
    if (result.httpStatus) assert.equal(result.httpStatus, 400);
    ok(await h.api.delete("groups", child.uid as string));
    assert.deepEqual(ok(await h.api.delete("groups", group.uid as string)), {});
  });

  it("refuses a sibling group with the same name", async () => {
    ok(await h.api.create("groups", h.server.org.groupUid, { name: "twin" }));
    assert.equal(
      failed(await h.api.create("groups", h.server.org.groupUid, { name: "twin" })).code,
      6,
    );
  });
});
