import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { setQuota } from "../../src/lifecycle/index.ts";
import { createLogger } from "../../src/server/index.ts";
import { type EventSink, startEventSink } from "../support/event-sink.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import {
  checkView,
  ensureConsoleBuilt,
  launchChromium,
  openPage,
  type WatchedPage,
} from "./browser.ts";
import { rest, type Seeded, seedConsole } from "./seed.ts";

/** Every log line the server writes, to check that no token ever reaches it. */
function logSink(lines: string[]): Writable {
  return new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
}

/**
 * The console's main journeys in Debian's Chromium against a real server (scanning and events
 * on): sign in with a token link, find a repository, read a tag's history and copy a pinned
 * reference, compare two builds, open a vulnerability and its advisory, create an identity and
 * bind a role, create a webhook and redeliver an event. Each view passes axe-core without a
 * serious violation and leaves a screenshot in test-output/console/.
 */
describe("console journeys [sqlite]", () => {
  let server: TestServer;
  let seeded: Seeded;
  let browser: Browser;
  let w: WatchedPage;
  let page: Page;
  let sink: EventSink;
  const logs: string[] = [];
  const url = (path: string) => `${server.apiUrl}${path}`;

  before(async () => {
    ensureConsoleBuilt();
    server = await startTestServer(
      "sqlite",
      "acme",
      { eventsAllowHttpLoopback: "true" },
      createLogger({ level: "info", format: "json", destination: logSink(logs) }),
    );
    seeded = await seedConsole(server);
    sink = await startEventSink(server.apiUrl, server.org.groupUid);
    browser = await launchChromium();
    w = await openPage(browser, server.apiUrl);
    page = w.page;
  });
  after(async () => {
    await browser?.close();
    await sink?.close();
    await server?.close();
  });

  it("signs in with a #token link that leaves the address bar and never reaches the server", async () => {
    await page.goto(url(`/#token=${server.org.token}`));
    await page.getByRole("heading", { name: "Repositories of acme" }).waitFor();
    assert.equal(new URL(page.url()).hash, "");
    assert.equal(new URL(page.url()).pathname, "/orgs/acme");
    const stored = await page.evaluate(() => ({
      session: sessionStorage.getItem("lading.session") ?? "",
      local: Object.keys(localStorage).map((k) => localStorage.getItem(k) ?? ""),
    }));
    assert.ok(stored.session.includes(server.org.token));
    assert.ok(stored.local.every((v) => !v.includes(server.org.token)));
    assert.ok(
      w.requests.every((r) => !r.includes(server.org.token)),
      "no request URL carries the token",
    );
    assert.ok(logs.length > 0);
    assert.ok(
      logs.every((line) => !line.includes(server.org.token)),
      "no log line carries the token",
    );
    assert.ok(
      w.requests.every((r) => r.startsWith(server.apiUrl)),
      `only the API origin is asked: ${w.requests.filter((r) => !r.startsWith(server.apiUrl))}`,
    );
    await checkView(page, "repositories");
  });

  it("finds a repository and shows its readme without running hostile Markdown", async () => {
    await page.getByLabel("Repository name").fill("app");
    await page.getByRole("button", { name: "Find" }).click();
    await page.waitForURL(/name=app/);
    await page.getByRole("link", { name: "app", exact: true }).click();
    await page.getByRole("heading", { name: "app", exact: true }).waitFor();
    await page.getByRole("link", { name: "safe link" }).waitFor();
    const readme = page.locator(".markdown");
    assert.equal(await readme.locator("script, iframe, style, img").count(), 0);
    const hrefs = await readme
      .locator("a")
      .evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
    assert.ok(
      hrefs.every((h) => !/^javascript:/i.test(h)),
      `links: ${hrefs}`,
    );
    assert.ok(hrefs.includes("https://example.com/docs"));
    for (const link of await readme.locator("a").all()) {
      if ((await link.getAttribute("href")) === "")
        await link.click({ modifiers: [] }).catch(() => undefined);
    }
    assert.equal(
      await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned),
      undefined,
    );
    assert.deepEqual(w.problems, []);
    await page.getByRole("cell", { name: "amd64" }).first().waitFor();
    await checkView(page, "repository");
  });

  it("reads a tag's history oldest first and copies a pinned reference", async () => {
    await page.getByRole("link", { name: "latest" }).click();
    await page.getByRole("heading", { name: "History of app:latest" }).waitFor();
    const entries = page.locator("ol.timeline > li");
    await entries.nth(1).waitFor();
    assert.equal(await entries.count(), 2);
    const titles = await entries
      .locator("a.mono")
      .evaluateAll((as) => as.map((a) => a.getAttribute("title")));
    assert.deepEqual(titles, seeded.builds);
    await entries.first().getByRole("button", { name: "Copy pinned reference" }).click();
    await entries.first().getByText("Copied").waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, `${server.lading.registryAudience}/acme/app@${seeded.builds[0]}`);
    // The window is part of the address: a start after both builds shows none.
    await page.goto(url(`/orgs/acme/repos/app/-/tags/latest?start=2999-01-01T00:00:00.000Z`));
    await page.getByText("No build of this tag falls in the chosen time window.").waitFor();
    await page.goBack();
    await entries.nth(1).waitFor();
    await checkView(page, "tag-history");
  });

  it("compares two builds: the vulnerability fixed, the new one, and the packages", async () => {
    await page.getByRole("link", { name: "Compare with the build before" }).click();
    await page.getByRole("heading", { name: "Vulnerabilities fixed (1)" }).waitFor();
    const card = page.locator("article.card");
    await card.getByRole("link", { name: seeded.fixedCve }).waitFor();
    await card.getByRole("heading", { name: "New vulnerabilities (1)" }).waitFor();
    await card.getByRole("link", { name: seeded.newCve }).waitFor();
    await card.getByRole("heading", { name: "Packages added (1)" }).waitFor();
    assert.match(await card.innerText(), /curl 8\.5\.0-r0/);
    assert.match(await card.innerText(), /busybox 1\.36\.1-r29 → 1\.36\.1-r30/);
    assert.match(
      page.url(),
      new RegExp(`/compare/${seeded.builds[0]}\\.\\.\\.${seeded.builds[1]}$`),
    );
    await checkView(page, "compare");
  });

  it("opens an image's vulnerability, its metadata (CVSS, KEV, EPSS) and its advisory's timeline", async () => {
    await page.getByRole("link", { name: seeded.builds[0].slice(0, 19) }).click();
    await page.getByRole("heading", { name: "Vulnerabilities", exact: true }).waitFor();
    const row = page.getByRole("row", { name: new RegExp(seeded.fixedCve) });
    await row.waitFor();
    assert.match(await row.innerText(), /busybox@1\.36\.1-r29/);
    assert.match(await row.innerText(), /fixed in 1\.36\.1-r30/);
    await row.getByText("known exploited").waitFor();
    assert.match(await row.innerText(), /12\.35 %/);
    await page.getByLabel("Severity", { exact: true }).selectOption("critical");
    await page.getByText("No vulnerability matches these filters.").waitFor();
    assert.match(page.url(), /severity=critical/);
    await page.getByLabel("Severity", { exact: true }).selectOption("");
    // Platforms with their layers, and the SBOM packages the server's scan found.
    const platforms = page.getByRole("table", { name: "Platforms" });
    await platforms.getByText("1 layer", { exact: true }).click();
    const layers = platforms.locator("ol.layers > li");
    assert.equal(await layers.count(), 1, await platforms.innerHTML());
    assert.match(
      await layers.innerText(),
      /^sha256:[0-9a-f]{12} \d+ B application\/vnd\.oci\.image\.layer\.v1\.tar\+gzip$/,
    );
    const packages = page.getByRole("region", { name: "Packages", exact: true });
    await packages.getByText("amd64: 2 packages").waitFor();
    await packages.getByRole("rowheader", { name: "busybox" }).waitFor();
    await packages.getByLabel("Filter packages").fill("mus");
    assert.equal(await packages.locator("tbody tr").count(), 1);
    await packages.getByLabel("Filter packages").fill("");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download VEX" }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^app-[0-9a-f]{12}\.openvex\.json$/);
    const vex = JSON.parse(readFileSync((await download.path()) ?? "", "utf8"));
    assert.equal(vex["@context"], "https://openvex.dev/ns/v0.2.0");
    assert.ok(
      vex.statements.some(
        (st: { vulnerability: { name: string } }) => st.vulnerability.name === seeded.fixedCve,
      ),
    );
    await checkView(page, "image");
    await page.getByRole("link", { name: seeded.fixedCve }).click();
    await page.getByRole("heading", { name: seeded.fixedCve }).waitFor();
    await page.getByText("Known exploited (KEV)").waitFor();
    await page.getByText(/12\.35 % chance/).waitFor();
    await page
      .getByText(/CVSS V3 6\.5|CVSS v3 6\.5/i)
      .first()
      .waitFor();
    await checkView(page, "vulnerability");
    await page.getByRole("link", { name: seeded.fixedAdvisory }).click();
    await page.getByRole("heading", { name: new RegExp(seeded.fixedAdvisory) }).waitFor();
    const events = page.locator("ol.timeline > li");
    assert.equal(await events.count(), 2);
    assert.match(await events.nth(0).innerText(), /Detected/);
    assert.match(await events.nth(1).innerText(), /Fixed in 1\.36\.1-r30/);
    await checkView(page, "advisory");
  });

  it("shows advisory notes as text, never markup", async () => {
    await page.goto(url("/advisories"));
    await page.getByLabel("Search").fill(seeded.newAdvisory);
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("link", { name: seeded.newAdvisory }).click();
    await page.getByText(/Confirmed: <script>/).waitFor();
    assert.equal(await page.locator("main script, main img").count(), 0);
    assert.equal(
      await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned),
      undefined,
    );
    await checkView(page, "advisories");
  });

  it("creates an identity, shows the API's error next to the field, and binds a role", async () => {
    await page.getByRole("link", { name: "Access" }).click();
    await page.getByRole("heading", { name: "New identity" }).waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Bad Name!");
    await page.getByRole("button", { name: "Create identity" }).click();
    const nameError = page.locator(".field-error");
    await nameError.first().waitFor();
    assert.match(await nameError.first().innerText(), /must match the pattern/);
    const describedBy = await page
      .getByLabel("Name", { exact: true })
      .getAttribute("aria-describedby");
    assert.ok(describedBy);
    await page.getByLabel("Name", { exact: true }).fill("ci-robot");
    await page.getByLabel("Issuer").fill("https://token.actions.githubusercontent.com");
    await page.getByLabel("Subject").fill("repo:acme/app:ref:refs/heads/main");
    await page.getByRole("button", { name: "Create identity" }).click();
    await page.getByRole("rowheader", { name: /ci-robot/ }).waitFor();
    await page.getByRole("button", { name: "Edit identity ci-robot" }).click();
    const edit = page.getByRole("form", { name: "Edit identity ci-robot" });
    await edit.getByLabel("Description").fill("Builds the app");
    await edit.getByRole("button", { name: "Save" }).click();
    await page.getByRole("rowheader", { name: /ci-robot.*Builds the app/ }).waitFor();
    await checkView(page, "access-identities");
    await page.getByRole("link", { name: "Role bindings" }).click();
    await page.getByRole("heading", { name: "Bind a role" }).waitFor();
    await page.getByLabel("Identity", { exact: true }).selectOption({ label: "ci-robot" });
    await page.getByLabel("Role", { exact: true }).selectOption({ label: "viewer" });
    await page.getByRole("button", { name: "Bind" }).click();
    const roleOf = page.getByLabel("Role of ci-robot in acme");
    await roleOf.waitFor();
    assert.equal(await roleOf.locator("option:checked").innerText(), "viewer");
    const roleNames = async () =>
      (
        await rest<{
          roleBindings: { identity: { name: string }; role: { name: string } }[];
        }>(server, "GET", `/iam/v2/roleBindings?uidp.descendants_of=${server.org.groupUid}`)
      ).roleBindings
        .filter((b) => b.identity?.name === "ci-robot")
        .map((b) => b.role?.name);
    assert.deepEqual(await roleNames(), ["viewer"]);
    // Editing a binding changes its role in place (UpdateRoleBinding).
    await roleOf.selectOption({ label: "registry.pull" });
    for (let i = 0; i < 50 && (await roleNames())[0] !== "registry.pull"; i++) {
      await page.waitForTimeout(100);
    }
    assert.deepEqual(await roleNames(), ["registry.pull"]);
    await checkView(page, "access-bindings");
    await page.getByRole("link", { name: "Roles" }).click();
    await page.getByText("viewer").first().waitFor();
    await page.getByLabel("Name", { exact: true }).fill("deployer");
    await page.getByRole("button", { name: "Create role" }).click();
    await page.locator(".field-error", { hasText: "must name at least one capability" }).waitFor();
    await page.getByRole("checkbox", { name: "repo.list" }).check();
    await page.getByRole("checkbox", { name: "tag.list" }).check();
    await page.getByRole("button", { name: "Create role" }).click();
    await page.locator("summary", { hasText: "deployer" }).getByText("custom").waitFor();
    await page.locator("summary", { hasText: "deployer" }).click();
    await page.getByRole("button", { name: "Edit role deployer" }).click();
    const editRole = page.getByRole("form", { name: "Edit role deployer" });
    await editRole.getByLabel("Description").fill("Deploys the app");
    await editRole.getByRole("button", { name: "Save" }).click();
    await page.locator("summary", { hasText: "Deploys the app" }).waitFor();
    await checkView(page, "access-roles");
  });

  it("creates a webhook, sends a test event and redelivers it", async () => {
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByLabel("Sink URL").fill("ftp://example.invalid/");
    await page.getByRole("button", { name: "Create webhook" }).click();
    await page.locator(".field-error").first().waitFor();
    await page.getByLabel("Sink URL").fill(sink.url);
    await page.getByRole("button", { name: "Create webhook" }).click();
    await page.getByRole("link", { name: sink.url }).click();
    await page.getByRole("button", { name: "Send a test event" }).click();
    await page.getByText("A test event was queued for delivery.").waitFor();
    await sink.waitFor((r) => r.some((x) => x.status === 200), 30_000);
    const first = sink.receipts.length;
    await page.reload();
    const redeliver = page.getByRole("button", { name: /Redeliver event/ }).first();
    await redeliver.waitFor({ timeout: 30_000 });
    await checkView(page, "webhook-deliveries");
    await redeliver.click();
    await page.getByText(/was queued again/).waitFor();
    await sink.waitFor((r) => r.length > first, 30_000);
    const again = sink.receipts.at(-1);
    assert.equal(again?.id, sink.receipts[first - 1].id, "the same event is delivered again");
    await page.getByRole("link", { name: "Webhooks" }).first().click();
    await checkView(page, "webhooks");
  });

  it("keeps every view usable: libraries, storage, sign-in, not found, dark theme, phone size, keyboard", async () => {
    await page.goto(url("/libraries"));
    await page.getByRole("heading", { name: "Libraries" }).waitFor();
    await checkView(page, "libraries");
    // An operator's quota (lading admin storage quota) shows as a meter beside the usage.
    await setQuota(server.lading.store.db, server.org.groupUid, 50_000_000);
    await page.goto(url("/orgs/acme/storage"));
    await page.getByRole("heading", { name: "Storage of acme" }).waitFor();
    await page.getByText(/% of the 50\.0 MB quota/).waitFor();
    const row = page.getByRole("table", { name: "Storage by repository" }).getByRole("row", {
      name: /^app /,
    });
    await row.getByText(/^\d+(\.\d+)? (B|kB|MB)$/).waitFor();
    await checkView(page, "storage");
    await page.goto(url("/no/such/page"));
    await page.getByRole("heading", { name: "Page not found" }).waitFor();
    await page.goto(url("/orgs/acme"));
    await page.getByRole("button", { name: /Switch to dark theme/ }).click();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");
    await page.getByRole("link", { name: "app", exact: true }).waitFor();
    await checkView(page, "repositories-dark");
    await page.getByRole("button", { name: /Switch to light theme/ }).click();
    // Keyboard: on a page load the skip link is the first stop, and it moves to the content.
    await page.reload();
    await page.getByRole("link", { name: "app", exact: true }).waitFor();
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Skip to content");
    await page.keyboard.press("Enter");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "main");
    const phone = await openPage(browser, server.apiUrl, { width: 390, height: 844 });
    await phone.page.goto(url(`/#token=${server.org.token}`));
    await phone.page.goto(url(`/orgs/acme/repos/app/-/images/${seeded.builds[1]}`));
    await phone.page.getByRole("heading", { name: "Vulnerabilities", exact: true }).waitFor();
    const overflow = await phone.page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    assert.ok(overflow <= 1, `the page is ${overflow}px wider than a phone`);
    await checkView(phone.page, "image-phone");
    await phone.context.close();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to Lading" }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem("lading.session")), null);
    await checkView(page, "sign-in");
    await page.goto(url("/orgs/acme"));
    await page.waitForURL(/\/sign-in\?next=%2Forgs%2Facme/);
    assert.deepEqual(w.problems, []);
  });

  it("restores an earlier build from the tag's history, itself a new history entry", async () => {
    // The journey before signs out; sign in again as the first one did.
    await page.goto(url(`/#token=${server.org.token}`));
    await page.getByRole("heading", { name: "Repositories of acme" }).waitFor();
    await page.goto(url("/orgs/acme/repos/app/-/tags/latest"));
    const entries = page.locator("ol.timeline > li");
    await entries.nth(1).waitFor();
    // The build the tag points to now has nothing to restore.
    assert.equal(
      await entries.nth(1).getByRole("button", { name: "Restore this build" }).count(),
      0,
    );
    page.once("dialog", (dialog) => void dialog.accept());
    await entries.first().getByRole("button", { name: "Restore this build" }).click();
    await entries.nth(2).waitFor();
    const titles = await entries
      .locator("a.mono")
      .evaluateAll((as) => as.map((a) => a.getAttribute("title")));
    assert.deepEqual(titles, [seeded.builds[0], seeded.builds[1], seeded.builds[0]]);
    await entries.nth(2).getByText("current").waitFor();
    const res = await fetch(
      `${server.apiUrl}/registry/v2/tags?uidp.children_of=${seeded.repoUid}&name=latest`,
      { headers: { authorization: `Bearer ${server.org.token}` } },
    );
    const { tags } = (await res.json()) as { tags: { digest: string }[] };
    assert.equal(tags[0]?.digest, seeded.builds[0]);
    await checkView(page, "tag-restored");
  });
});
