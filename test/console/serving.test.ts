import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { consoleCsp } from "../../src/doors/console/index.ts";
import { createLogger } from "../../src/server/index.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const meta = '<meta name="lading-registry" content="" />';
const html = `<!doctype html>${meta}<title>Lading</title><script type=module src=/assets/app-abc123.js></script>`;
const script = "console.log('console');";

async function fixture(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "lading-console-"));
  await mkdir(join(dir, "assets"));
  await writeFile(join(dir, "index.html"), html);
  await writeFile(join(dir, "assets", "app-abc123.js"), script);
  await writeFile(join(dir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  await writeFile(join(dir, ".secret.txt"), "dot-files are never served");
  await writeFile(join(dir, ".secret"), "dot-files are never served");
  return dir;
}

function assertSecure(res: Response): void {
  assert.equal(res.headers.get("content-security-policy"), consoleCsp);
  assert.match(consoleCsp, /script-src 'self'(;|$)/);
  assert.match(consoleCsp, /frame-ancestors 'none'/);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  assert.equal(res.headers.get("x-frame-options"), "DENY");
}

describe("The API listener serves the console", () => {
  let server: TestServer;
  let dir: string;
  let url: string;
  const page = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };
  /** index.html with the registry host the server writes in. */
  const served = () =>
    html.replace(
      meta,
      `<meta name="lading-registry" content="${server.lading.registryAudience}" />`,
    );

  before(async () => {
    dir = await fixture();
    server = await startTestServer("sqlite", "acme", {}, createLogger({ level: "silent" }), {
      consoleDir: dir,
    });
    url = server.apiUrl;
  });
  after(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers / with index.html, a strict CSP and no-cache", async () => {
    const res = await fetch(`${url}/`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(res.headers.get("cache-control"), "no-cache");
    assertSecure(res);
    const text = await res.text();
    assert.equal(text, served());
    assert.match(text, /<meta name="lading-registry" content="127\.0\.0\.1:\d+" \/>/);
    const again = await fetch(`${url}/`, {
      headers: { "if-none-match": res.headers.get("etag") ?? "" },
    });
    assert.equal(again.status, 304);
  });

  it("answers client-side routes a browser asks for with index.html", async () => {
    for (const path of [
      "/orgs/acme",
      "/orgs/acme/repos/app/-/tags/latest",
      "/advisories/CVE-2024-1",
    ]) {
      const res = await fetch(`${url}${path}`, { headers: page });
      assert.equal(res.status, 200, path);
      assertSecure(res);
      assert.equal(await res.text(), served());
    }
  });

  it("serves hashed assets for a year and other files for an hour", async () => {
    const asset = await fetch(`${url}/assets/app-abc123.js`);
    assert.equal(asset.status, 200);
    assert.equal(asset.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal(asset.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assertSecure(asset);
    assert.equal(await asset.text(), script);
    const icon = await fetch(`${url}/favicon.svg`);
    assert.equal(icon.headers.get("content-type"), "image/svg+xml");
    assert.equal(icon.headers.get("cache-control"), "public, max-age=3600");
    const head = await fetch(`${url}/assets/app-abc123.js`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-length"), String(script.length));
  });

  it("keeps every API answer as it was", async () => {
    const health = await fetch(`${url}/healthz`, { headers: page });
    assert.deepEqual(await health.json(), { status: "ok" });
    const discovery = await fetch(`${url}/.well-known/openid-configuration`, { headers: page });
    assert.equal(((await discovery.json()) as { issuer: string }).issuer, url);
    const list = await fetch(`${url}/iam/v2/groups`, {
      headers: { ...page, authorization: `Bearer ${server.org.token}` },
    });
    assert.equal(list.status, 200);
    assert.ok(Array.isArray(((await list.json()) as { groups: unknown }).groups));
    const anonymous = await fetch(`${url}/iam/v2/groups`, { headers: page });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get("content-security-policy"), null);
    const post = await fetch(`${url}/`, { method: "POST", headers: page });
    assert.equal(post.status, 404);
    assert.equal(((await post.json()) as { code: number }).code, 5);
  });

  it("keeps the JSON 404 for API clients and for missing or hidden files", async () => {
    for (const [path, headers] of [
      ["/orgs/acme", {}],
      ["/orgs/acme", { accept: "application/json" }],
      ["/assets/missing-000.js", page],
      ["/.secret.txt", page],
      ["/assets/..%2F.secret.txt", page],
      ["/assets/%2e%2e/.secret.txt", page],
      ["/%ff.js", page],
    ] as const) {
      const res = await fetch(`${url}${path}`, { headers });
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get("content-type") ?? "", /application\/json/, path);
      assert.doesNotMatch(await res.text(), /dot-files/);
    }
    // A path without a file extension is a page: the page, never the file of that name.
    for (const path of ["/.secret", "/assets/..%2F.secret", "/x/.secret"]) {
      const res = await fetch(`${url}${path}`, { headers: page });
      assert.equal(await res.text(), served(), path);
    }
  });
});

describe("The API listener without a built console", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer("sqlite", "acme", {}, createLogger({ level: "silent" }), {
      consoleDir: join(tmpdir(), "lading-console-not-built"),
    });
  });
  after(() => server?.close());

  it("answers / with a sentence saying how to build it, and serves the API", async () => {
    const res = await fetch(`${server.apiUrl}/`);
    assert.equal(res.status, 404);
    assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.match(await res.text(), /console is not built.*npm install/);
    assert.equal((await fetch(`${server.apiUrl}/healthz`)).status, 200);
  });
});
