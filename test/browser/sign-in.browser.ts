import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import type { ConfigInput } from "../../src/config/index.ts";
import { type SignInFixture, startSignInFixture } from "../support/browser-sign-in.ts";
import { checkView, ensureConsoleBuilt, launchChromium, openPage } from "./browser.ts";

/**
 * Server settings for the sign-in suite. The test identity provider listens on loopback: once the
 * outbound guard refuses loopback issuers by default, its operator allow-list setting goes here.
 */
const signInConfig: ConfigInput = {};

/** Browser sign-in through an identity provider (the `oidc-provider` package on loopback). */
describe("console sign-in through an identity provider [sqlite]", () => {
  let fixture: SignInFixture;
  let browser: Browser;

  before(async () => {
    ensureConsoleBuilt();
    fixture = await startSignInFixture("sqlite", signInConfig);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await fixture?.close();
  });

  it("signs in with PKCE, returns to the page asked for, refreshes, and signs out", async () => {
    const { server } = fixture;
    const w = await openPage(browser, server.apiUrl);
    const { page } = w;
    // A deep link before signing in leads to the sign-in page, then back to it.
    await page.goto(`${server.apiUrl}/orgs/acme/access/roles`);
    await page.waitForURL(/\/sign-in\?next=/);
    await page.goto(`${page.url()}&identity_provider=${encodeURIComponent(fixture.pub)}`);
    await checkView(page, "sign-in-provider");
    await page.getByRole("button", { name: "Sign in" }).click();
    // The provider's own development forms: any login name, then consent.
    await page.locator('input[name="login"]').fill("ada");
    await page.locator('input[name="password"]').fill("any");
    await page.locator('button[type="submit"]').first().click();
    await page.locator('button[type="submit"]').first().click();
    await page.waitForURL(`${server.apiUrl}/orgs/acme/access/roles`, { timeout: 30_000 });
    await page.getByRole("heading", { name: "Access to acme" }).waitFor();
    assert.ok(w.requests.some((r) => r.startsWith(`${server.apiUrl}/signed-in?`)));
    assert.doesNotMatch(page.url(), /code=|state=/);
    const session = await page.evaluate(() =>
      JSON.parse(sessionStorage.getItem("lading.session") ?? "{}"),
    );
    assert.match(session.token, /^ey/);
    assert.match(session.refreshToken, /^lrt_/);
    assert.equal(
      await page.evaluate(
        () =>
          localStorage.length === 0 || !Object.values(localStorage).some((v) => v.includes("lrt_")),
      ),
      true,
    );

    // An access token the server refuses is replaced through the refresh token, unseen.
    await page.evaluate(() => {
      const s = JSON.parse(sessionStorage.getItem("lading.session") ?? "{}");
      sessionStorage.setItem("lading.session", JSON.stringify({ ...s, token: "ey.expired.token" }));
    });
    await page.reload();
    await page.getByText("viewer").first().waitFor();
    const refreshed = await page.evaluate(() =>
      JSON.parse(sessionStorage.getItem("lading.session") ?? "{}"),
    );
    assert.notEqual(refreshed.token, "ey.expired.token");
    assert.notEqual(refreshed.refreshToken, session.refreshToken);

    // Sign-out revokes the refresh token's family at the server.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to Lading" }).waitFor();
    const reuse = await fetch(`${server.apiUrl}/sts/exchange_refresh_token`, {
      method: "POST",
      headers: { authorization: `Bearer ${refreshed.refreshToken}` },
    });
    assert.equal(reuse.status, 401);
    assert.deepEqual(w.problems, []);
    await w.context.close();
  });

  it("says why when a sign-in was not started in this tab", async () => {
    const w = await openPage(browser, fixture.server.apiUrl);
    await w.page.goto(`${fixture.server.apiUrl}/signed-in?code=lsc_forged&state=forged`);
    await w.page.getByText(/not started in this tab/).waitFor();
    assert.equal(await w.page.evaluate(() => sessionStorage.getItem("lading.session")), null);
    await w.context.close();
  });
});
