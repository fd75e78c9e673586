import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { bootstrapOrganisation } from "../../src/app/index.ts";
import { builtInRoleUid } from "../../src/auth/index.ts";
import { addIdentity } from "../support/iam-fixtures.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

/**
 * Signed-in users are root-level identities: organisations bind roles to them, see them once
 * they do, and never see users they have no binding with.
 */
for (const kind of storeKinds) {
  describe(`signed-in users [${kind}]`, () => {
    let server: TestServer;
    const call = (token: string, method: string, path: string, body?: unknown) =>
      fetch(`${server.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as Loose }));

    before(async () => {
      server = await startTestServer(kind);
    });
    after(() => server.close());

    it("can be bound by an organisation, and is then visible to it alone", async () => {
      const user = await addIdentity(server, "", "dev@example.com");
      const other = await bootstrapOrganisation(server.lading.store.db, "globex");
      const otherToken = await server.token(other.identityUid);
      const owner = server.org.token;

      const self = await call(user.token, "GET", `/iam/v2/identities/${user.uid}`);
      assert.equal(self.status, 200);
      assert.equal(self.body.email, "dev@example.com");
      assert.equal((await call(owner, "GET", `/iam/v2/identities/${user.uid}`)).status, 404);

      const binding = await call(owner, "POST", `/iam/v2/roleBindings/${server.org.groupUid}`, {
        identityUid: user.uid,
        roleUid: builtInRoleUid("viewer"),
      });
      assert.equal(binding.status, 200, JSON.stringify(binding.body));
      assert.equal(binding.body.identity.uid, user.uid);

      const seen = await call(owner, "GET", `/iam/v2/identities/${user.uid}`);
      assert.equal(seen.status, 200);
      assert.equal(seen.body.uid, user.uid);
      assert.equal((await call(otherToken, "GET", `/iam/v2/identities/${user.uid}`)).status, 404);
      const groups = await call(user.token, "GET", "/iam/v2/groups");
      assert.deepEqual(
        groups.body.groups.map((g: Loose) => g.uid),
        [server.org.groupUid],
      );
    });

    it("refuses binding an identity of another organisation", async () => {
      const other = await bootstrapOrganisation(server.lading.store.db, "initech");
      const res = await call(
        server.org.token,
        "POST",
        `/iam/v2/roleBindings/${server.org.groupUid}`,
        {
          identityUid: other.identityUid,
          roleUid: builtInRoleUid("viewer"),
        },
      );
      assert.equal(res.status, 400);
      assert.equal(res.body.details[1].fieldViolations[0].field, "identityUid");
    });
  });
}

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are read loosely
type Loose = any;
