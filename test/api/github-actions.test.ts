import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { builtInRoleUid } from "../../src/auth/index.ts";
import { basicToken, claimsOf, ociClient, requestToken } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import { startProvider } from "../support/oidc-provider.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

/**
 * A CI job federating as GitHub Actions does: the provider mints tokens shaped like the
 * runner's (subject forms, custom claims, the owner audience), the job exchanges one for a
 * registry token and pushes. Only the trusted repository and branches get in.
 */
for (const kind of storeKinds) {
  describe(`GitHub-Actions-style workload federation [${kind}]`, () => {
    let server: TestServer;
    let provider: Awaited<ReturnType<typeof startProvider>>;
    let identity: string;
    const audience = "https://github.com/acme";

    before(async () => {
      // The provider listens on loopback, which the operator must allow.
      server = await startTestServer(kind, "acme", { outboundAllow: "127.0.0.1" });
      provider = await startProvider();
      const owner = { authorization: `Bearer ${server.org.token}` };
      const created = await fetch(`${server.apiUrl}/iam/v2/identities/${server.org.groupUid}`, {
        method: "POST",
        headers: owner,
        body: JSON.stringify({
          name: "github release",
          claimMatch: {
            issuer: provider.issuer,
            subjectPattern: "repo:acme(@[0-9]+)?/app(@[0-9]+)?:ref:refs/heads/(main|release-.+)",
            audience,
            claims: { repository_owner: "acme", ref_protected: "true" },
          },
        }),
      });
      const body = (await created.json()) as { uid: string };
      assert.equal(created.status, 200, JSON.stringify(body));
      identity = body.uid;
      const bound = await fetch(`${server.apiUrl}/iam/v2/roleBindings/${server.org.groupUid}`, {
        method: "POST",
        headers: owner,
        body: JSON.stringify({ identityUid: identity, roleUid: builtInRoleUid("registry.push") }),
      });
      assert.equal(bound.status, 200);
    });
    after(async () => {
      provider.server.close();
      await server.close();
    });

    /** A token with the claims a GitHub runner's token carries. */
    const runnerToken = (subject: string, extra: Record<string, unknown> = {}) =>
      provider.sign({
        iss: provider.issuer,
        aud: audience,
        sub: subject,
        jti: crypto.randomUUID(),
        nbf: Math.floor(Date.now() / 1000) - 5,
        repository: "acme/app",
        repository_id: "456",
        repository_owner: "acme",
        repository_owner_id: "123",
        repository_visibility: "private",
        ref: "refs/heads/main",
        ref_type: "branch",
        ref_protected: true,
        sha: "0".repeat(40),
        workflow: "release",
        job_workflow_ref: "acme/app/.github/workflows/release.yml@refs/heads/main",
        event_name: "push",
        actor: "octocat",
        run_id: "42",
        run_attempt: "1",
        runner_environment: "github-hosted",
        ...extra,
      });

    const exchange = (token: string) =>
      fetch(
        `${server.apiUrl}/sts/exchange?identity=${identity}&aud=${encodeURIComponent(server.lading.registryAudience)}`,
        { method: "POST", headers: { authorization: `Bearer ${token}` } },
      );

    it("trades a main-branch runner token for a registry token that pushes", async () => {
      const res = await exchange(await runnerToken("repo:acme/app:ref:refs/heads/main"));
      const { token } = (await res.json()) as { token: string };
      assert.equal(res.status, 200);
      assert.equal(claimsOf(token).sub, identity);
      const granted = await requestToken(
        server.lading.registryUrl,
        ["repository:acme/app:push,pull"],
        basicToken(token),
      );
      assert.equal(granted.status, 200);
      assert.deepEqual(claimsOf(String(granted.body.token)).access, [
        { type: "repository", name: "acme/app", actions: ["pull", "push"] },
      ]);
      await ociClient(server.lading.registryUrl, String(granted.body.token)).pushImage(
        "acme/app",
        "v1",
        buildImage("from ci"),
      );
    });

    it("accepts the immutable subject form and release branches", async () => {
      for (const subject of [
        "repo:acme@123/app@456:ref:refs/heads/main",
        "repo:acme/app:ref:refs/heads/release-1.2",
      ]) {
        assert.equal((await exchange(await runnerToken(subject))).status, 200, subject);
      }
    });

    it("refuses pull requests, other repositories, unprotected refs and the wrong audience", async () => {
      for (const [subject, extra] of [
        ["repo:acme/app:pull_request", {}],
        ["repo:acme/app:ref:refs/heads/feature", {}],
        ["repo:acme/other:ref:refs/heads/main", {}],
        ["repo:evil/app:ref:refs/heads/main", {}],
        ["repo:acme/app:ref:refs/heads/main", { ref_protected: false }],
        ["repo:acme/app:ref:refs/heads/main", { repository_owner: "evil" }],
        ["repo:acme/app:ref:refs/heads/main", { aud: server.apiUrl }],
      ] as const) {
        const res = await exchange(await runnerToken(subject, extra));
        assert.equal(res.status, 401, `${subject} ${JSON.stringify(extra)}`);
      }
    });
  });
}
