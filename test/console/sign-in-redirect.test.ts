import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, it } from "node:test";
import { consoleSignedInPath } from "../../src/doors/sign-in/index.ts";
import { cliLoginUrl, type SignInFixture, startSignInFixture } from "../support/browser-sign-in.ts";
import type { Loose } from "../support/matrix.ts";
import { storeKinds } from "../support/stores.ts";

/**
 * The console's redirect URI on a deployment whose API URL is not loopback (nothing is sent
 * there: only /auth/v2/login is asked, which reads the test provider's discovery on loopback).
 */
for (const kind of storeKinds) {
  describe(`console sign-in redirect [${kind}]`, () => {
    const apiUrl = "https://lading.example.test";
    let fixture: SignInFixture;
    let listenUrl = "";
    before(async () => {
      const port = await freePort();
      listenUrl = `http://127.0.0.1:${port}`;
      fixture = await startSignInFixture(kind, { apiUrl, apiListen: `127.0.0.1:${port}` });
    });
    after(() => fixture?.close());

    const login = async (redirectUri: string) => {
      const { loginUrl } = cliLoginUrl(apiUrl, fixture.web, redirectUri);
      const local = new URL(loginUrl);
      const res = await fetch(`${listenUrl}${local.pathname}${local.search}`, {
        redirect: "manual",
      });
      const text = await res.text();
      return {
        status: res.status,
        location: res.headers.get("location") ?? "",
        body: (text ? JSON.parse(text) : {}) as Loose,
      };
    };

    it("accepts exactly {apiUrl}/signed-in", async () => {
      assert.equal(consoleSignedInPath, "/signed-in");
      const ok = await login(`${apiUrl}/signed-in`);
      assert.equal(ok.status, 302, JSON.stringify(ok.body));
      assert.ok(ok.location.startsWith(fixture.provider.issuer));
    });

    it("refuses every other redirect on or near the API origin", async () => {
      for (const uri of [
        `${apiUrl}/signed-in/`,
        `${apiUrl}/signed-in/x`,
        `${apiUrl}/signed-in?next=/`,
        `${apiUrl}/signed-in#x`,
        `${apiUrl}/`,
        `${apiUrl}/auth/v2/callback`,
        `${apiUrl}.evil.example/signed-in`,
        `${apiUrl}:8443/signed-in`,
        `https://user@lading.example.test/signed-in`,
        `http://lading.example.test/signed-in`,
        `https://evil.example/signed-in`,
        `//lading.example.test/signed-in`,
        "/signed-in",
      ]) {
        const refused = await login(uri);
        assert.equal(refused.status, 400, uri);
        assert.deepEqual(
          refused.body.details
            .flatMap((d: Loose) => d.fieldViolations ?? [])
            .map((v: Loose) => v.field),
          ["redirect_uri"],
          uri,
        );
      }
    });
  });
}

/** A port free on 127.0.0.1 a moment ago. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
