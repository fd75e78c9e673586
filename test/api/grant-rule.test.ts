import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isCapability } from "../../src/auth/index.ts";
import { grantScenarios, type Stage } from "../support/grant-scenarios.ts";
import { addIdentity, addRole, bind } from "../support/iam-fixtures.ts";
import {
  authorizationOf,
  fullName,
  grantingFields,
  isMutating,
  ladingMethods,
} from "../support/lading-methods.ts";
import { failed, type Harness, matrix, ok } from "../support/matrix.ts";
import { methodCaller } from "../support/method-call.ts";

/**
 * Nobody grants what they lack, for every RPC of the API: the RPCs come from the generated
 * descriptors and their lading.iam.v2.authorization option, so a new RPC is covered (or the
 * test says what it is missing) without a new test.
 */
const methods = await ladingMethods();
const granting = methods.filter((m) => authorizationOf(m)?.grants);

describe("Authorization annotations", () => {
  it("are on every RPC and name only known capabilities", () => {
    assert.ok(methods.length > 40, "the generated files were found");
    for (const method of methods) {
      const auth = authorizationOf(method);
      assert.ok(auth, `${fullName(method)} needs (lading.iam.v2.authorization)`);
      for (const c of auth.capabilities) assert.ok(isCapability(c), `${method.name}: ${c}`);
    }
  });

  it("mark grants: true on every mutating RPC whose request can name capabilities or roles", () => {
    for (const method of methods.filter(isMutating)) {
      const fields = grantingFields(method.input);
      if (fields.length === 0) continue;
      assert.ok(
        authorizationOf(method)?.grants,
        `${fullName(method)} can name ${fields.join(", ")}: annotate it ` +
          "grants: true, apply requireCanGrant (src/iam/role-grant.ts) and add a scenario",
      );
    }
  });

  it("have an escalation scenario for every granting RPC", () => {
    assert.ok(granting.length >= 8);
    for (const method of granting) {
      assert.ok(
        grantScenarios[fullName(method)],
        `add a scenario for ${fullName(method)} to test/support/grant-scenarios.ts`,
      );
    }
  });
});

/** The IAM rows a refused call must leave as they were. */
async function snapshot(h: Harness): Promise<unknown[]> {
  const db = h.server.lading.store.db;
  const tables = [
    "roles",
    "role_bindings",
    "identities",
    "identity_providers",
    "external_group_role_mappings",
    "group_invites",
  ] as const;
  return Promise.all(tables.map((t) => db.selectFrom(t).selectAll().orderBy("uid").execute()));
}

matrix("Nobody grants what they lack", (h) => {
  let groups = 0;

  /** A fresh group where the attacker holds exactly `held`, through a custom role of its own. */
  async function stageFor(held: string[]): Promise<Stage & { token: string }> {
    const org = h.server.org.groupUid;
    const group = ok(await h.api.create("groups", org, { name: `stage-${++groups}` }))
      .uid as string;
    const attacker = await addIdentity(h.server, group);
    const role = await addRole(h.server, group, held);
    await bind(h.server, attacker.uid, group, role);
    const owner = methodCaller(h.transport, h.server.apiUrl, h.server.org.token);
    return {
      server: h.server,
      group,
      attacker: { uid: attacker.uid, role },
      token: attacker.token,
      held,
      asOwner: async (method, request) => ok(await owner(method, request)),
    };
  }

  for (const method of granting) {
    const name = fullName(method);
    it(`${name}: refuses granting beyond the caller's capabilities, allows within`, async () => {
      const scenario = grantScenarios[name];
      assert.ok(scenario, `add a scenario for ${name} to test/support/grant-scenarios.ts`);
      const held = authorizationOf(method)?.capabilities ?? [];
      const stage = await stageFor(held);
      const attempts = await scenario(stage);
      const call = methodCaller(h.transport, h.server.apiUrl, stage.token);
      for (const request of attempts.escalations) {
        const before = await snapshot(h);
        const refused = failed(await call(method, request));
        const what = `${name} ${JSON.stringify(request)}`;
        assert.equal(refused.code, 7, `${what}: ${refused.message}`);
        if (refused.httpStatus) assert.equal(refused.httpStatus, 403);
        assert.match(refused.message, /capabilities the caller lacks/, what);
        assert.deepEqual(await snapshot(h), before, `${what} changed nothing`);
      }
      ok(await call(method, attempts.control));
    });
  }
});
