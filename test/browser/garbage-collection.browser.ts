import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { identityExtras } from "../../src/store/metadata/index.ts";
import { newRootUid } from "../../src/uidp/index.ts";
import { postBlob, randomLayer } from "../lifecycle/gc-push.ts";
import { ociClient } from "../support/oci-client.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { checkView, ensureConsoleBuilt, launchChromium, openPage } from "./browser.ts";

/**
 * The console's Garbage collection page (issue 26) in Debian's Chromium against a real server:
 * an operator finds it in the navigation, starts a dry run and a real run and sees each listed
 * with the bytes it reclaimed; the organisation's owner, no operator, is told the page is the
 * operators' and is not linked to it.
 */
describe("console garbage collection [sqlite]", () => {
  const operatorUid = newRootUid();
  let server: TestServer;
  let browser: Browser;
  const url = (path: string) => `${server.apiUrl}${path}`;

  before(async () => {
    ensureConsoleBuilt();
    server = await startTestServer("sqlite", "acme", {
      gcInterval: "off",
      gcGrace: "0s",
      operators: operatorUid,
    });
    const time = new Date().toISOString();
    await server.lading.store.db
      .insertInto("identities")
      .values({
        uid: operatorUid,
        parent_uid: "",
        name: "operator",
        description: "",
        issuer: "https://idp.example.com",
        subject: operatorUid,
        ...identityExtras,
        email: "",
        last_seen_time: null,
        create_time: time,
        update_time: time,
      })
      .execute();
    // An upload no manifest names: garbage at once with no grace window.
    const registryToken = await server.token(server.org.identityUid, {
      audience: server.lading.registryAudience,
    });
    await postBlob(ociClient(server.lading.registryUrl, registryToken), "acme/app", randomLayer());
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it("lets an operator run a dry run and a collection and read what they did", async () => {
    const w = await openPage(browser, server.apiUrl);
    const { page } = w;
    await page.goto(url(`/#token=${await server.token(operatorUid)}`));
    await page.getByRole("link", { name: "Garbage collection" }).click();
    await page.getByRole("heading", { name: "Garbage collection" }).waitFor();
    await page.getByText("No garbage collection has run yet.").waitFor();

    await page.getByRole("button", { name: "Dry run" }).click();
    const table = page.getByRole("table", { name: "Garbage collections" });
    const rows = table.locator("tbody tr");
    await rows.filter({ hasText: "done" }).first().waitFor({ timeout: 30_000 });
    assert.equal(await rows.count(), 1);
    const dry = await rows.first().locator("td").allInnerTexts();
    assert.deepEqual(dry.slice(0, 3), ["api", "yes", "done"]);
    assert.match(dry[5], /^2\.0 kB$/, "the upload's 2048 bytes would be reclaimed");

    await page.getByRole("button", { name: "Run now" }).click();
    await page.waitForFunction(
      () =>
        document.querySelectorAll('table[aria-label="Garbage collections"] tbody tr').length === 2,
    );
    await table.locator("tbody tr").first().filter({ hasText: "done" }).waitFor();
    const real = await rows.first().locator("td").allInnerTexts();
    assert.deepEqual(real.slice(0, 3), ["api", "no", "done"]);
    assert.equal(real[4], "1", "one blob deleted");
    assert.equal(real[5], "2.0 kB");
    assert.equal(real[7], "—", "no error");
    await checkView(page, "garbage-collection");
    assert.deepEqual(w.problems, []);
    await w.context.close();
  });

  it("tells anyone else the page is the operators'", async () => {
    const w = await openPage(browser, server.apiUrl);
    const { page } = w;
    await page.goto(url(`/#token=${server.org.token}`));
    await page.getByRole("heading", { name: "Repositories of acme" }).waitFor();
    await page.getByRole("link", { name: "Storage" }).click();
    await page.getByRole("heading", { name: "Storage of acme" }).waitFor();
    await page.waitForLoadState("networkidle");
    const nav = page.getByRole("navigation", { name: "Main" });
    assert.equal(await nav.getByRole("link", { name: "Garbage collection" }).count(), 0);
    await page.getByRole("main").getByRole("link", { name: "Garbage collection" }).click();
    await page
      .getByText("Garbage collections are shown only to the installation's operators")
      .waitFor();
    assert.equal(await page.getByRole("alert").count(), 0, "no error box");
    assert.equal(await page.getByRole("button", { name: "Run now" }).count(), 0);
    await checkView(page, "garbage-collection-refused");
    assert.deepEqual(w.problems, []);
    await w.context.close();
  });
});
