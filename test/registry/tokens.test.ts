import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { builtInRoleUid } from "../../src/auth/index.ts";
import { identityExtras } from "../../src/store/metadata/index.ts";
import { newChildUid } from "../../src/uidp/index.ts";
import { basicToken, claimsOf, ociClient, requestToken } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

for (const pair of registryPairs) {
  describe(`registry tokens [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    before(async () => {
      r = await startRegistryServer(pair);
      await ociClient(r.registryUrl, r.ownerToken).pushImage("acme/app", "v1", buildImage("app"));
      await ociClient(r.registryUrl, r.ownerToken).pushImage("acme/other", "v1", buildImage("o"));
    });
    after(() => r?.close());

    it("challenges unauthenticated requests with realm, service and scope", async () => {
      const base = await fetch(`${r.registryUrl}/v2/`);
      assert.equal(base.status, 401);
      assert.equal(
        base.headers.get("www-authenticate"),
        `Bearer realm="${r.registryUrl}/token",service="${r.host}"`,
      );
      const manifest = await fetch(`${r.registryUrl}/v2/acme/app/manifests/v1`);
      assert.equal(manifest.status, 401);
      assert.equal(
        manifest.headers.get("www-authenticate"),
        `Bearer realm="${r.registryUrl}/token",service="${r.host}",scope="repository:acme/app:pull"`,
      );
      const body = (await manifest.json()) as { errors: { code: string }[] };
      assert.equal(body.errors[0].code, "UNAUTHORIZED");
      const push = await fetch(`${r.registryUrl}/v2/acme/app/blobs/uploads/`, { method: "POST" });
      assert.match(push.headers.get("www-authenticate") ?? "", /scope="repository:acme\/app:push"/);
    });

    it("issues registry tokens for _token Basic and Bearer credentials, scoped to one repository", async () => {
      for (const authorization of [basicToken(r.ownerToken), `Bearer ${r.ownerToken}`]) {
        const { status, body } = await requestToken(
          r.registryUrl,
          ["repository:acme/app:pull,push", "repository:acme/new-repo:push"],
          authorization,
        );
        assert.equal(status, 200);
        assert.equal(body.token, body.access_token);
        assert.equal(body.expires_in, 300);
        assert.match(String(body.issued_at), /^\d{4}-\d{2}-\d{2}T/);
        const claims = claimsOf(String(body.token));
        assert.equal(claims.aud, r.host);
        assert.equal(claims.sub, r.server.org.identityUid);
        assert.deepEqual(claims.access, [
          { type: "repository", name: "acme/app", actions: ["pull", "push"] },
          { type: "repository", name: "acme/new-repo", actions: ["push"] },
        ]);
        const app = ociClient(r.registryUrl, String(body.token));
        assert.equal((await app.fetch("/v2/acme/app/manifests/v1")).status, 200);
        const other = await app.fetch("/v2/acme/other/manifests/v1");
        assert.equal(other.status, 401);
        assert.match(other.headers.get("www-authenticate") ?? "", /error="insufficient_scope"/);
      }
    });

    it("grants anonymous callers pull on the public organisation only", async () => {
      const { status, body } = await requestToken(r.registryUrl, [
        "repository:public/tool:pull,push",
        "repository:acme/app:pull",
      ]);
      assert.equal(status, 200);
      const claims = claimsOf(String(body.token));
      assert.equal(claims.sub, "anonymous");
      assert.deepEqual(claims.access, [
        { type: "repository", name: "public/tool", actions: ["pull"] },
        { type: "repository", name: "acme/app", actions: [] },
      ]);
      const res = await ociClient(r.registryUrl, String(body.token)).fetch(
        "/v2/acme/app/manifests/v1",
      );
      assert.equal(res.status, 401);
    });

    it("refuses tokens of another audience with 403 and expired tokens with 401", async () => {
      const api = await r.server.token(r.server.org.identityUid);
      const token = await requestToken(
        r.registryUrl,
        ["repository:acme/app:pull"],
        basicToken(api),
      );
      assert.equal(token.status, 403);
      assert.equal((token.body.errors as { code: string }[])[0].code, "DENIED");
      const direct = await ociClient(r.registryUrl, api).fetch("/v2/acme/app/manifests/v1");
      assert.equal(direct.status, 403);
      const short = await r.server.token(r.server.org.identityUid, {
        audience: r.host,
        ttlSeconds: 1,
      });
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const expired = await ociClient(r.registryUrl, short).fetch("/v2/acme/app/manifests/v1");
      assert.equal(expired.status, 401);
      assert.match(expired.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
      const refused = await requestToken(r.registryUrl, [], `Bearer ${short}`);
      assert.equal(refused.status, 401);
    });

    it("accepts a Lading token for the registry audience directly, resolving access at request time", async () => {
      const client = ociClient(r.registryUrl, r.ownerToken);
      assert.equal((await client.fetch("/v2/")).status, 200);
      assert.equal((await client.fetch("/v2/acme/app/manifests/v1")).status, 200);
      const foreign = ociClient(r.registryUrl, r.publicOrg.token);
      const denied = await foreign.fetch("/v2/acme/app/manifests/v1");
      assert.equal(denied.status, 403);
      assert.equal(
        ((await denied.json()) as { errors: { code: string }[] }).errors[0].code,
        "DENIED",
      );
    });

    it("creates a repo on push only for callers who may create repos", async () => {
      const { db } = r.server.lading.store;
      const acme = r.server.org.groupUid;
      const time = new Date().toISOString();
      const identityUid = newChildUid(acme);
      await db
        .insertInto("identities")
        .values({
          uid: identityUid,
          parent_uid: acme,
          name: "puller",
          description: "",
          issuer: "",
          subject: "",
          ...identityExtras,
          last_seen_time: null,
          create_time: time,
          update_time: time,
        })
        .execute();
      await db
        .insertInto("role_bindings")
        .values({
          uid: newChildUid(acme),
          parent_uid: acme,
          identity_uid: identityUid,
          role_uid: builtInRoleUid("registry.pull"),
          mapping_uid: "",
          create_time: time,
          update_time: time,
        })
        .execute();
      const puller = await r.server.token(identityUid, { audience: r.host });
      const { body } = await requestToken(
        r.registryUrl,
        ["repository:acme/app:pull,push", "repository:acme/fresh:push"],
        `Bearer ${puller}`,
      );
      assert.deepEqual(claimsOf(String(body.token)).access, [
        { type: "repository", name: "acme/app", actions: ["pull"] },
        { type: "repository", name: "acme/fresh", actions: [] },
      ]);
      const client = ociClient(r.registryUrl, puller);
      assert.equal((await client.fetch("/v2/acme/app/manifests/v1")).status, 200);
      const refused = await client.fetch("/v2/acme/fresh/blobs/uploads/", { method: "POST" });
      assert.equal(refused.status, 403);
      const repos = await db
        .selectFrom("repos")
        .select("name")
        .where("name", "=", "fresh")
        .execute();
      assert.equal(repos.length, 0);
      await ociClient(r.registryUrl, r.ownerToken).pushImage("acme/fresh", "v1", buildImage("f"));
      const created = await db
        .selectFrom("repos")
        .selectAll()
        .where("name", "=", "fresh")
        .executeTakeFirstOrThrow();
      assert.equal(created.parent_uid, acme);
      assert.equal(created.root_uid, acme);
    });

    it("keeps anonymous history, manifests and tag lists to the free tier", async () => {
      const owner = ociClient(r.registryUrl, r.publicOrg.token);
      await owner.pushImage("public/lib", "latest", buildImage("lib"));
      await owner.pushImage("public/lib", "2.0", buildImage("lib 2"));
      const { body } = await requestToken(r.registryUrl, ["repository:public/lib:pull"]);
      const anon = ociClient(r.registryUrl, String(body.token));
      assert.equal((await anon.fetch("/v2/public/lib/_lading/history/latest")).status, 200);
      assert.equal((await anon.fetch("/v2/public/lib/_lading/history/2.0")).status, 403);
      assert.equal((await anon.fetch("/v2/public/lib/manifests/2.0")).status, 403);
      const tags = (await (await anon.fetch("/v2/public/lib/tags/list")).json()) as {
        tags: string[];
      };
      assert.deepEqual(tags.tags, ["latest"]);
    });

    it("limits the catalog to what the caller may pull", async () => {
      const catalog = async (token: string, query = "") => {
        const res = await ociClient(r.registryUrl, token).fetch(`/v2/_catalog${query}`);
        assert.equal(res.status, 200);
        return {
          body: (await res.json()) as { repositories: string[] },
          link: res.headers.get("link"),
        };
      };
      assert.deepEqual((await catalog(r.ownerToken)).body.repositories, [
        "acme/app",
        "acme/fresh",
        "acme/other",
      ]);
      assert.deepEqual((await catalog(r.publicOrg.token)).body.repositories, ["public/lib"]);
      const page = await catalog(r.ownerToken, "?n=1");
      assert.deepEqual(page.body.repositories, ["acme/app"]);
      assert.equal(page.link, '</v2/_catalog?n=1&last=acme%2Fapp>; rel="next"');
    });
  });
}
