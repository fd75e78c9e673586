import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { builtInRoleUid } from "../../src/auth/index.ts";
import {
  addIdentityProvider,
  browserSignIn,
  cliLoginUrl,
  postForm,
  type SignInFixture,
  signIn,
  startSignInFixture,
} from "../support/browser-sign-in.ts";
import { type Loose, timestamp } from "../support/matrix.ts";
import { browserClients } from "../support/oidc-provider.ts";
import { storeKinds } from "../support/stores.ts";

/** Browser sign-in through a configured identity provider, refresh tokens and logout. */
for (const kind of storeKinds) {
  describe(`browser sign-in [${kind}]`, () => {
    let fixture: SignInFixture;
    let server: SignInFixture["server"];
    let provider: SignInFixture["provider"];
    let web: string;
    let pub: string;
    const time = new Date().toISOString();

    const api = async (method: string, path: string, token = server.org.token, body?: unknown) => {
      const res = await fetch(`${server.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Loose };
    };
    const userUid = (login: string) =>
      createHash("sha256").update(`${provider.issuer}\n${login}`).digest("hex").slice(0, 40);
    const bindingsOf = async (identity: string) =>
      (
        await server.lading.store.db
          .selectFrom("role_bindings")
          .select(["parent_uid", "role_uid", "mapping_uid"])
          .where("identity_uid", "=", identity)
          .execute()
      )
        .map(
          (b) =>
            `${b.role_uid === builtInRoleUid("viewer") ? "viewer" : b.role_uid}:${b.mapping_uid ? "mapped" : "manual"}`,
        )
        .sort();
    const identityRow = (uid: string) =>
      server.lading.store.db
        .selectFrom("identities")
        .selectAll()
        .where("uid", "=", uid)
        .executeTakeFirstOrThrow();
    /** Sets lastSeenTime to a past time and returns it, so a later update is visible. */
    const ageLastSeen = async (uid: string) => {
      const past = "2001-01-01T00:00:00.000Z";
      await server.lading.store.db
        .updateTable("identities")
        .set({ last_seen_time: past })
        .where("uid", "=", uid)
        .execute();
      return past;
    };
    const reason = (body: Loose) => body.details?.find((d: Loose) => d.reason)?.reason;
    const fields = (body: Loose) =>
      (body.details?.find((d: Loose) => d.fieldViolations)?.fieldViolations ?? []).map(
        (v: Loose) => v.field,
      );
    const refresh = (refreshToken: string, aud?: string[]) =>
      postForm(`${server.apiUrl}/sts/exchange_refresh_token`, aud ? { aud } : {}, refreshToken);

    before(async () => {
      fixture = await startSignInFixture(kind);
      ({ server, provider, web, pub } = fixture);
    });
    after(() => fixture?.close());

    it("signs a user in with the confidential client: derived uid, default role, a working token", async () => {
      provider.setAccount("alice", { name: "Alice Liddell", email: "alice@wonder.land" });
      const session = await signIn(server.apiUrl, web, "alice");
      assert.equal(session.identity, userUid("alice"));
      assert.match(session.refreshToken, /^lrt_/);
      assert.match(session.expiry, timestamp);
      const claims = JSON.parse(Buffer.from(session.token.split(".")[1], "base64url").toString());
      assert.equal(claims.sub, session.identity);
      assert.equal(claims.aud, server.apiUrl);
      assert.equal(claims.exp - claims.iat, 3600);
      assert.deepEqual(claims.act, {
        iss: provider.issuer,
        sub: "alice",
        aud: browserClients.web.clientId,
      });
      const identity = await identityRow(session.identity);
      assert.equal(identity.parent_uid, "");
      assert.equal(identity.name, "alice");
      assert.equal(identity.email, "alice@wonder.land");
      assert.equal(identity.issuer, provider.issuer);
      assert.equal(identity.subject, "alice");
      assert.equal(identity.provider_uid, web);
      assert.match(identity.last_seen_time ?? "", timestamp);
      assert.deepEqual(await bindingsOf(session.identity), ["viewer:manual"]);
      const groups = await api("GET", "/iam/v2/groups", session.token);
      assert.equal(groups.status, 200, JSON.stringify(groups.body));
      assert.deepEqual(
        groups.body.groups.map((g: Loose) => g.uid),
        [server.org.groupUid],
      );
    });

    it("signs a user in with the public PKCE client; no email when it is not verified", async () => {
      provider.setAccount("bob", { emailVerified: false });
      const session = await signIn(server.apiUrl, pub, "bob");
      assert.equal(session.identity, userUid("bob"));
      assert.equal((await identityRow(session.identity)).email, "");
      assert.equal((await api("GET", "/iam/v2/groups", session.token)).status, 200);
    });

    it("a second sign-in updates lastSeenTime and creates nothing new", async () => {
      const first = await signIn(server.apiUrl, web, "carol");
      const seen = await ageLastSeen(first.identity);
      const second = await signIn(server.apiUrl, pub, "carol");
      assert.equal(second.identity, first.identity);
      const again = (await identityRow(first.identity)).last_seen_time ?? "";
      assert.ok(again > seen, `${again} > ${seen}`);
      const rows = await server.lading.store.db
        .selectFrom("identities")
        .select("uid")
        .where("uid", "=", first.identity)
        .execute();
      assert.equal(rows.length, 1);
      assert.deepEqual(await bindingsOf(first.identity), ["viewer:manual"]);
    });

    it("reconciles group mappings at each sign-in and keeps bindings made through the API", async () => {
      const mapping = async (group: string, role: string) => {
        const uid = `${web}/${createHash("sha256").update(group).digest("hex").slice(0, 16)}`;
        await server.lading.store.db
          .insertInto("external_group_role_mappings")
          .values({
            uid,
            parent_uid: web,
            external_group_id: group,
            role_uid: builtInRoleUid(role),
            scope_uid: server.org.groupUid,
            create_time: time,
            update_time: time,
          })
          .execute();
      };
      await mapping("devs", "editor");
      await mapping("pushers", "registry.push");
      await mapping("unused", "owner");
      const [editor, push, pull] = ["editor", "registry.push", "registry.pull"].map(builtInRoleUid);
      provider.setAccount("dave", { groups: ["devs", "pushers", "elsewhere"] });
      const { identity } = await signIn(server.apiUrl, web, "dave");
      assert.deepEqual(
        await bindingsOf(identity),
        [`${editor}:mapped`, `${push}:mapped`, "viewer:manual"].sort(),
      );
      const manual = await api("POST", `/iam/v2/roleBindings/${server.org.groupUid}`, undefined, {
        identityUid: identity,
        roleUid: pull,
      });
      assert.equal(manual.status, 200, JSON.stringify(manual.body));
      provider.setAccount("dave", { groups: "pushers" });
      await signIn(server.apiUrl, web, "dave");
      assert.deepEqual(
        await bindingsOf(identity),
        [`${push}:mapped`, `${pull}:manual`, "viewer:manual"].sort(),
      );
      provider.setAccount("dave", {});
      await signIn(server.apiUrl, web, "dave");
      assert.deepEqual(await bindingsOf(identity), [`${pull}:manual`, "viewer:manual"].sort());
    });

    it("rotates refresh tokens; a spent one is refused and revokes the whole family", async () => {
      const session = await signIn(server.apiUrl, web, "erin");
      const first = await refresh(session.refreshToken);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.notEqual(first.body.refreshToken, session.refreshToken);
      assert.match(first.body.expiry, timestamp);
      assert.equal((await api("GET", "/iam/v2/groups", first.body.token)).status, 200);
      const seen = await ageLastSeen(session.identity);
      const second = await refresh(first.body.refreshToken);
      assert.ok(((await identityRow(session.identity)).last_seen_time ?? "") > seen);
      assert.equal(second.status, 200);
      const reused = await refresh(session.refreshToken);
      assert.equal(reused.status, 401);
      assert.equal(reason(reused.body), "REFRESH_TOKEN_REUSED");
      const revoked = await refresh(second.body.refreshToken);
      assert.equal(revoked.status, 401);
      assert.equal(reason(revoked.body), "REFRESH_TOKEN_INVALID");
      const other = await signIn(server.apiUrl, web, "erin");
      assert.equal((await refresh(other.refreshToken)).status, 200);
    });

    it("logout revokes the family; an unknown refresh token is refused", async () => {
      const session = await signIn(server.apiUrl, pub, "frank");
      const rotated = await refresh(session.refreshToken);
      const out = await postForm(`${server.apiUrl}/auth/v2/logout`, {}, rotated.body.refreshToken);
      assert.equal(out.status, 200);
      assert.deepEqual(out.body, {});
      assert.equal((await refresh(rotated.body.refreshToken)).status, 401);
      const unknown = await refresh("lrt_nothing");
      assert.equal(unknown.status, 401);
      assert.equal(reason(unknown.body), "REFRESH_TOKEN_INVALID");
      assert.equal((await postForm(`${server.apiUrl}/auth/v2/logout`, {}, "lrt_x")).status, 401);
      assert.equal((await postForm(`${server.apiUrl}/auth/v2/logout`, {})).status, 401);
    });

    it("refresh fails once the identity is deleted", async () => {
      const session = await signIn(server.apiUrl, web, "gina");
      await server.lading.store.db
        .deleteFrom("identities")
        .where("uid", "=", session.identity)
        .execute();
      const refused = await refresh(session.refreshToken);
      assert.equal(refused.status, 401);
      assert.equal(reason(refused.body), "IDENTITY_NOT_FOUND");
    });

    it("refresh fails once the identity provider is deleted", async () => {
      const db = server.lading.store.db;
      const idp = await addIdentityProvider(
        db,
        server.org.groupUid,
        provider.issuer,
        browserClients.web,
      );
      const session = await signIn(server.apiUrl, idp, "hank");
      assert.equal((await refresh(session.refreshToken)).status, 200);
      const again = await signIn(server.apiUrl, idp, "hank");
      await db.deleteFrom("identity_providers").where("uid", "=", idp).execute();
      const refused = await refresh(again.refreshToken);
      assert.equal(refused.status, 401);
      assert.equal(reason(refused.body), "REFRESH_TOKEN_INVALID");
      assert.match(refused.body.message, /identity provider/);
    });

    it("issues registry-audience tokens that work on the registry and not on the API", async () => {
      const audience = server.lading.registryAudience;
      const session = await signIn(server.apiUrl, web, "hank", [audience]);
      const registry = await fetch(`${server.lading.registryUrl}/v2/`, {
        headers: { authorization: `Bearer ${session.token}` },
      });
      assert.equal(registry.status, 200);
      const basic = Buffer.from(`_token:${session.token}`).toString("base64");
      const exchanged = await fetch(
        `${server.lading.registryUrl}/token?service=${audience}&scope=repository:acme/app:pull`,
        { headers: { authorization: `Basic ${basic}` } },
      );
      assert.equal(exchanged.status, 200);
      const pull = (await exchanged.json()) as Loose;
      assert.deepEqual(
        JSON.parse(Buffer.from(pull.token.split(".")[1], "base64url").toString()).access,
        [{ type: "repository", name: "acme/app", actions: ["pull"] }],
      );
      assert.equal((await api("GET", "/iam/v2/groups", session.token)).status, 403);
      const both = await refresh(session.refreshToken, [audience, server.apiUrl]);
      assert.equal(both.status, 200);
      assert.equal((await api("GET", "/iam/v2/groups", both.body.token)).status, 200);
      const elsewhere = await refresh(both.body.refreshToken, ["https://sink.example.com"]);
      assert.equal(elsewhere.status, 400);
      assert.deepEqual(fields(elsewhere.body), ["aud"]);
      assert.equal((await refresh(both.body.refreshToken)).status, 200);
    });

    const exchangeCode = (form: Record<string, string>) =>
      postForm(`${server.apiUrl}/auth/v2/token`, { grant_type: "authorization_code", ...form });
    async function codeFor(login: string, providerUid = web) {
      const cli = cliLoginUrl(server.apiUrl, providerUid);
      const { params } = await browserSignIn(cli.loginUrl, login);
      assert.equal(params.get("state"), cli.state);
      return { ...cli, code: params.get("code") ?? "" };
    }

    it("refuses a replayed code, a wrong code_verifier, a wrong redirect_uri and missing fields", async () => {
      const a = await codeFor("ivan");
      const good = { code: a.code, code_verifier: a.verifier, redirect_uri: a.redirectUri };
      assert.equal((await exchangeCode(good)).status, 200);
      const replay = await exchangeCode(good);
      assert.equal(replay.status, 400);
      assert.deepEqual(fields(replay.body), ["code"]);
      const b = await codeFor("ivan", pub);
      const wrong = { code: b.code, code_verifier: "x".repeat(43), redirect_uri: b.redirectUri };
      const badVerifier = await exchangeCode(wrong);
      assert.equal(badVerifier.status, 400);
      assert.deepEqual(fields(badVerifier.body), ["code_verifier"]);
      const spent = await exchangeCode({ ...wrong, code_verifier: b.verifier });
      assert.deepEqual(fields(spent.body), ["code"]);
      const c = await codeFor("ivan");
      const elsewhere = "http://127.0.0.1:10/callback";
      const badRedirect = await exchangeCode({ ...good, code: c.code, redirect_uri: elsewhere });
      assert.equal(badRedirect.status, 400);
      assert.deepEqual(fields(badRedirect.body), ["redirect_uri"]);
      const empty = await postForm(`${server.apiUrl}/auth/v2/token`, { grant_type: "password" });
      assert.equal(empty.status, 400);
      assert.deepEqual(fields(empty.body), ["grant_type", "code", "code_verifier", "redirect_uri"]);
    });

    it("refuses an unknown, expired or already used state at the callback", async () => {
      const callback = async (state: string) => {
        const res = await fetch(`${server.apiUrl}/auth/v2/callback?code=x&state=${state}`, {
          redirect: "manual",
        });
        return { status: res.status, body: (await res.json()) as Loose };
      };
      const unknown = await callback("nope");
      assert.equal(unknown.status, 400);
      assert.deepEqual(fields(unknown.body), ["state"]);
      const cli = cliLoginUrl(server.apiUrl, web);
      const login = await fetch(cli.loginUrl, { redirect: "manual" });
      assert.equal(login.status, 302);
      const state = new URL(login.headers.get("location") ?? "").searchParams.get("state") ?? "";
      await server.lading.store.db
        .updateTable("sign_ins")
        .set({ expire_time: "2000-01-01T00:00:00.000Z" })
        .where("state", "=", state)
        .execute();
      assert.deepEqual(fields((await callback(state)).body), ["state"]);
      await codeFor("judy");
      const used = await server.lading.store.db
        .selectFrom("sign_ins")
        .select("state")
        .where("identity_uid", "=", userUid("judy"))
        .executeTakeFirstOrThrow();
      const again = await callback(used.state);
      assert.equal(again.status, 400);
      assert.deepEqual(fields(again.body), ["state"]);
    });

    it("refuses bad login parameters: non-loopback redirect_uri, no S256 challenge, unknown provider", async () => {
      const login = async (change: Record<string, string | null>) => {
        const url = new URL(cliLoginUrl(server.apiUrl, web).loginUrl);
        for (const [key, value] of Object.entries(change)) {
          if (value === null) url.searchParams.delete(key);
          else url.searchParams.set(key, value);
        }
        const res = await fetch(url, { redirect: "manual" });
        const text = await res.text();
        return { status: res.status, body: (text ? JSON.parse(text) : {}) as Loose };
      };
      for (const uri of ["https://evil.example/cb", "http://evil.example/cb", "not a url"]) {
        const refused = await login({ redirect_uri: uri });
        assert.equal(refused.status, 400);
        assert.deepEqual(fields(refused.body), ["redirect_uri"]);
      }
      assert.equal((await login({ redirect_uri: "http://localhost:1234/x" })).status, 302);
      assert.equal((await login({ redirect_uri: "http://[::1]:1234/x" })).status, 302);
      assert.deepEqual(fields((await login({ code_challenge: null })).body), ["code_challenge"]);
      assert.deepEqual(fields((await login({ code_challenge_method: "plain" })).body), [
        "code_challenge_method",
      ]);
      const unknown = await login({ identity_provider: `${server.org.groupUid}/0000000000000000` });
      assert.equal(unknown.status, 400);
      assert.deepEqual(fields(unknown.body), ["identity_provider"]);
      assert.deepEqual(fields((await login({ identity_provider: "x", state: null })).body), [
        "identity_provider",
        "state",
      ]);
    });

    it("refuses an id token with the wrong nonce or audience, back to the CLI with an error", async () => {
      for (const [claim, value, pattern] of [
        ["nonce", "another", /nonce/],
        ["aud", "someone-else", /audience/],
      ] as const) {
        provider.tamperIdTokens((claims) => ({ ...claims, [claim]: value }));
        try {
          const cli = cliLoginUrl(server.apiUrl, web);
          const { params } = await browserSignIn(cli.loginUrl, "kate");
          assert.equal(params.get("error"), "access_denied");
          assert.match(params.get("error_description") ?? "", pattern);
          assert.equal(params.get("state"), cli.state);
          assert.equal(params.get("code"), null);
        } finally {
          provider.tamperIdTokens(undefined);
        }
      }
      const none = await server.lading.store.db
        .selectFrom("identities")
        .select("uid")
        .where("uid", "=", userUid("kate"))
        .execute();
      assert.deepEqual(none, []);
    });
  });
}
