import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

const root = fileURLToPath(new URL("../../", import.meta.url));
const require = createRequire(import.meta.url);

/** Where screenshots of each view go (gitignored): `test-output/console/`. */
export const outputDir = join(root, "test-output", "console");

/** Debian's Chromium, installed by `.ci/run`; never a browser downloaded by Playwright. */
export const chromiumPath = process.env.LADING_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Flags that keep Chromium on loopback: without the background-networking ones it reaches
 * for external hosts (updates, safe browsing, sync) on start.
 */
export const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-domain-reliability",
  "--disable-client-side-phishing-detection",
  "--no-pings",
];

/** Builds the console once when the checkout has no build yet (npm install builds it). */
export function ensureConsoleBuilt(): void {
  if (existsSync(join(root, "console", "dist", "index.html"))) return;
  execFileSync(process.execPath, [join(root, "console", "build.mjs")], { stdio: "inherit" });
}

/** Starts Chromium with a fresh profile (Playwright's launch makes a new user data dir). */
export async function launchChromium(): Promise<Browser> {
  assert.ok(
    existsSync(chromiumPath),
    `Chromium is missing at ${chromiumPath}: apt-get install -y chromium`,
  );
  return chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true });
}

/** A page that records what must never happen: CSP violations, page errors, requests off loopback. */
export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** CSP violation reports and uncaught errors seen so far. */
  problems: string[];
  /** Every URL the page requested. */
  requests: string[];
}

/** A new context and page with the clipboard allowed, watching for CSP violations and errors. */
export async function openPage(
  browser: Browser,
  origin: string,
  viewport = { width: 1280, height: 800 },
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport, colorScheme: "light" });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`error: ${e.message}`));
  page.on("request", (r) => requests.push(r.url()));
  return { page, context, problems, requests };
}

const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** The serious and critical axe-core violations of the page as it is now (axe from node_modules). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern; the page
  // itself never loads a script from anywhere but its own origin.
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (o: object) => Promise<AxeResults> } }).axe;
    return axe.run({ resultTypes: ["violations"] });
  });
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`,
    );
}

interface AxeResults {
  violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
}

/**
 * Checks a view: waits until nothing loads, asserts no serious accessibility violation, and
 * saves a screenshot as `test-output/console/<name>.png`.
 */
export async function checkView(page: Page, name: string): Promise<void> {
  await page.waitForLoadState("networkidle");
  await page
    .locator('[role="status"] .spinner')
    .first()
    .waitFor({ state: "detached", timeout: 15_000 })
    .catch(() => undefined);
  const violations = await seriousViolations(page);
  assert.deepEqual(violations, [], `accessibility of ${name}`);
  mkdirSync(outputDir, { recursive: true });
  await page.screenshot({ path: join(outputDir, `${name}.png`), fullPage: true });
}
