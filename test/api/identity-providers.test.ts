import assert from "node:assert/strict";
import { before, it } from "node:test";
import {
  actor,
  builtIn,
  clientSecretOf,
  customRole,
  type FederationApi,
  federationApi,
  providerBody,
  rivalOwner,
} from "../support/federation-api.ts";
import { failed, type Loose, matrix, ok, timestamp, violations } from "../support/matrix.ts";

const kind = "identityProviders";

matrix(
  "Identity providers",
  (h) => {
    let fed: FederationApi;
    let org = "";
    let team = "";

    const provider = providerBody;
    const storedSecret = (uid: string) => clientSecretOf(h, uid);

    /** The secret is absent from the answer (REST JSON and the decoded gRPC message alike). */
    const assertNoSecret = (body: Loose) => {
      assert.ok(!("clientSecret" in (body.oidc as Loose)), `${h.transport} never returns it`);
      assert.ok(!JSON.stringify(body).includes("s3cret"));
    };

    before(async () => {
      fed = federationApi(h.transport, h.server.apiUrl, h.server.org.token);
      org = h.server.org.groupUid;
      team = ok(await h.api.create("groups", org, { name: "team" })).uid as string;
    });

    it("creates, reads, lists, updates and deletes a provider, never returning the secret", async () => {
      const created = ok(
        await fed.create(
          kind,
          org,
          provider({}, { additionalScopes: ["email", "openid", "groups"], groupsClaim: "groups" }),
        ),
      );
      assert.match(created.uid as string, new RegExp(`^${org}/[0-9a-f]{16}$`));
      assert.equal(created.name, "corp sso");
      assert.equal(created.defaultRole, builtIn.viewer);
      assert.match(created.createTime as string, timestamp);
      assert.equal(created.createTime, created.updateTime);
      assert.equal(created.oidc.issuer, "https://login.example.com");
      assert.equal(created.oidc.clientId, "lading");
      assert.deepEqual(created.oidc.additionalScopes, ["email", "groups"]);
      assert.equal(created.oidc.groupsClaim, "groups");
      assertNoSecret(created);
      assert.equal(await storedSecret(created.uid), "s3cret");

      const got = ok(await fed.get(kind, created.uid));
      assert.deepEqual(got, created);
      const listed = ok(await fed.list(kind, { "uidp.children_of": org }));
      const mine = (listed.identityProviders as Loose[]).find((p) => p.uid === created.uid);
      assert.deepEqual(mine, created);
      for (const p of listed.identityProviders as Loose[]) assertNoSecret(p);

      const updated = ok(
        await fed.update(kind, created.uid, { description: "New" }, "description"),
      );
      assert.equal(updated.description, "New");
      assert.equal(updated.name, "corp sso");
      assertNoSecret(updated);
      assert.equal(await storedSecret(created.uid), "s3cret");

      assert.deepEqual(ok(await fed.delete(kind, created.uid)), {});
      assert.equal(failed(await fed.get(kind, created.uid)).code, 5);
    });

    it("keeps the secret on an update that omits it, replaces it, and clears it only when masked with PKCE on", async () => {
      const p = ok(await fed.create(kind, org, provider({ name: "secret keeper" })));
      ok(await fed.update(kind, p.uid, { oidc: { clientId: "other" } }, "oidc.clientId"));
      assert.equal(await storedSecret(p.uid), "s3cret");
      ok(await fed.update(kind, p.uid, { description: "no mask" }));
      assert.equal(await storedSecret(p.uid), "s3cret");
      ok(
        await fed.update(
          kind,
          p.uid,
          { oidc: { issuer: "https://login.example.com", clientId: "lading" } },
          "oidc",
        ),
      );
      assert.equal(await storedSecret(p.uid), "s3cret", "naming the oidc message keeps it");

      const replaced = ok(await fed.update(kind, p.uid, { oidc: { clientSecret: "s3cret-2" } }));
      assertNoSecret(replaced);
      assert.equal(await storedSecret(p.uid), "s3cret-2");

      const refused = failed(
        await fed.update(kind, p.uid, { oidc: { clientSecret: "" } }, "oidc.clientSecret"),
      );
      assert.equal(refused.code, 3);
      assert.deepEqual(
        violations(refused).map((v) => v.field),
        ["oidc.client_secret"],
      );
      assert.equal(await storedSecret(p.uid), "s3cret-2");

      const cleared = ok(
        await fed.update(
          kind,
          p.uid,
          { oidc: { clientSecret: "", pkceEnabled: true } },
          "oidc.clientSecret,oidc.pkceEnabled",
        ),
      );
      assert.equal(cleared.oidc.pkceEnabled, true);
      assert.equal(await storedSecret(p.uid), "");
      ok(await fed.update(kind, p.uid, { oidc: { clientSecret: "again" } }));
      assert.equal(await storedSecret(p.uid), "again");
      assertNoSecret(ok(await fed.update(kind, p.uid, { oidc: { clientSecret: "" } })));
      assert.equal(
        await storedSecret(p.uid),
        "",
        "an explicit empty secret without a mask clears it",
      );
    });

    it("accepts a PKCE provider without a secret and a loopback http issuer", async () => {
      const p = ok(
        await fed.create(
          kind,
          team,
          provider(
            { name: "local" },
            { issuer: "http://127.0.0.1:9999/realms/x", clientSecret: "", pkceEnabled: true },
          ),
        ),
      );
      assert.equal(p.oidc.pkceEnabled, true);
      assert.equal(await storedSecret(p.uid), "");
    });

    it("lists with uidp, name filter, order_by and pages", async () => {
      const group = ok(await h.api.create("groups", org, { name: "listing" })).uid as string;
      for (const name of ["idp-a", "idp-b", "idp-c"])
        ok(await fed.create(kind, group, provider({ name })));
      const page1 = ok(
        await fed.list(kind, { "uidp.descendants_of": group, order_by: "name desc", page_size: 2 }),
      );
      assert.deepEqual(
        (page1.identityProviders as Loose[]).map((p) => p.name),
        ["idp-c", "idp-b"],
      );
      assert.equal(String(page1.totalCount), "3");
      const page2 = ok(
        await fed.list(kind, {
          "uidp.descendants_of": group,
          order_by: "name desc",
          page_size: 2,
          page_token: page1.nextPageToken as string,
        }),
      );
      assert.deepEqual(
        (page2.identityProviders as Loose[]).map((p) => p.name),
        ["idp-a"],
      );
      assert.ok(!page2.nextPageToken);
      const byName = ok(await fed.list(kind, { name: "idp-b" }));
      assert.deepEqual(
        (byName.identityProviders as Loose[]).map((p) => p.name),
        ["idp-b"],
      );
      const bad = failed(await fed.list(kind, { order_by: "issuer" }));
      assert.equal(bad.code, 3);
    });

    it("names every invalid field", async () => {
      const sibling = ok(await h.api.create("groups", org, { name: "sibling" })).uid as string;
      const siblingRole = await customRole(h, sibling, "sibling-role", ["CAP_GROUPS_LIST"]);
      const cases: [Loose, string[]][] = [
        [
          provider(
            { name: "Bad!", description: "a\nb", defaultRole: "" },
            {
              issuer: "http://login.example.com",
              clientId: "",
              clientSecret: "",
              additionalScopes: ["ok", "two words"],
              groupsClaim: "has space",
            },
          ),
          [
            "default_role",
            "description",
            "name",
            "oidc.additional_scopes",
            "oidc.client_id",
            "oidc.client_secret",
            "oidc.groups_claim",
            "oidc.issuer",
          ],
        ],
        [provider({}, { issuer: "https://login.example.com/?x=1" }), ["oidc.issuer"]],
        [provider({}, { issuer: "not a url" }), ["oidc.issuer"]],
        [provider({ defaultRole: "0".repeat(40) }), ["default_role"]],
        [provider({ defaultRole: siblingRole }), ["default_role"]],
        [
          { name: "no oidc", defaultRole: builtIn.viewer },
          ["oidc.client_id", "oidc.client_secret", "oidc.issuer"],
        ],
      ];
      for (const [body, fields] of cases) {
        const result = failed(await fed.create(kind, team, body));
        assert.equal(result.code, 3, JSON.stringify(body));
        assert.deepEqual(
          [...new Set(violations(result).map((v) => v.field))].sort(),
          fields,
          JSON.stringify(body),
        );
      }
      const p = ok(await fed.create(kind, team, provider({ name: "valid" })));
      const update = failed(
        await fed.update(kind, p.uid, { oidc: { issuer: "ftp://x" } }, "oidc.issuer"),
      );
      assert.deepEqual(
        violations(update).map((v) => v.field),
        ["oidc.issuer"],
      );
      const outputOnly = failed(await fed.update(kind, p.uid, {}, "createTime"));
      assert.deepEqual(
        violations(outputOnly).map((v) => v.field),
        ["update_mask"],
      );
    });

    it("refuses a default role with capabilities the caller lacks (anti-escalation)", async () => {
      const admin = await customRole(h, org, "idp-admin", [
        "CAP_GROUPS_LIST",
        "CAP_IDENTITY_PROVIDERS_CREATE",
        "CAP_IDENTITY_PROVIDERS_UPDATE",
        "CAP_IDENTITY_PROVIDERS_LIST",
        "CAP_ROLE_BINDINGS_CREATE",
        "CAP_ROLES_LIST",
      ]);
      const a = await actor(h, "idp-admin-user", org, [admin]);
      for (const role of [builtIn.owner, builtIn.viewer]) {
        const denied = failed(await a.fed.create(kind, team, provider({ defaultRole: role })));
        assert.equal(denied.code, 7);
        assert.match(denied.message, /capabilities the caller lacks/);
      }
      const own = ok(await a.fed.create(kind, team, provider({ name: "own", defaultRole: admin })));
      const raise = failed(
        await a.fed.update(kind, own.uid, { defaultRole: builtIn.owner }, "defaultRole"),
      );
      assert.equal(raise.code, 7);
      assert.equal(ok(await fed.get(kind, own.uid)).defaultRole, admin);
    });

    it("refuses every operation to callers without its capability", async () => {
      const p = ok(await fed.create(kind, team, provider({ name: "guarded" })));
      const viewer = await actor(h, "idp-viewer", org, [builtIn.viewer]);
      ok(await viewer.fed.get(kind, p.uid));
      assert.ok(
        (ok(await viewer.fed.list(kind)).identityProviders as Loose[]).some((x) => x.uid === p.uid),
      );
      assert.equal(failed(await viewer.fed.create(kind, team, provider())).code, 7);
      assert.equal(
        failed(await viewer.fed.update(kind, p.uid, { description: "x" }, "description")).code,
        7,
      );
      assert.equal(failed(await viewer.fed.delete(kind, p.uid)).code, 7);

      const noBind = await customRole(h, org, "idp-no-bind", [
        "CAP_GROUPS_LIST",
        "CAP_IDENTITY_PROVIDERS_CREATE",
        "CAP_IDENTITY_PROVIDERS_UPDATE",
        "CAP_IDENTITY_PROVIDERS_LIST",
      ]);
      const half = await actor(h, "idp-half", org, [noBind, builtIn.viewer]);
      const noBindCreate = failed(await half.fed.create(kind, team, provider()));
      assert.equal(noBindCreate.code, 7);
      assert.match(noBindCreate.message, /role_bindings\.create/);
      assert.equal(
        failed(await half.fed.update(kind, p.uid, { description: "x" }, "description")).code,
        7,
      );

      const nobody = await actor(h, "idp-nobody", org, []);
      assert.equal(failed(await nobody.fed.get(kind, p.uid)).code, 5);

      const rival = await rivalOwner(h, "rival-idp");
      assert.equal(failed(await rival.fed.get(kind, p.uid)).code, 5);
      assert.equal(failed(await rival.fed.create(kind, team, provider())).code, 5);
      assert.equal(
        failed(await rival.fed.update(kind, p.uid, { description: "x" }, "description")).code,
        5,
      );
      assert.equal(failed(await rival.fed.delete(kind, p.uid)).code, 5);
      assert.deepEqual(ok(await rival.fed.list(kind)).identityProviders ?? [], []);
      ok(await fed.get(kind, p.uid));
    });
  },
  // Providers and issuers in these tests listen on loopback, which the operator must allow.
  { outboundAllow: "127.0.0.1" },
);
