import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { after, before, describe, it } from "node:test";
import { parseOutboundAllow } from "./allow-list.ts";
import type { Resolver } from "./guarded-lookup.ts";
import { OutboundError } from "./outbound-error.ts";
import { createOutboundGuard } from "./outbound-guard.ts";

/** Every spelling of this machine's loopback that the outside review tried, on `port`. */
function loopbackSpellings(port: number): string[] {
  return [
    "127.0.0.1",
    "localhost",
    "127.1",
    "2130706433",
    "0x7f000001",
    "0.0.0.0",
    "[::ffff:127.0.0.1]",
    "[::1]",
    "017700000001",
    "LOCALHOST.",
    "api.localhost",
    "127.0.0.1.",
    "127.0.0.1%2e",
    "0x7f.1",
    "\uff11\uff12\uff17.\uff10.\uff10.\uff11",
    "[0:0:0:0:0:0:0:1]",
    "[64:ff9b::127.0.0.1]",
  ].map((host) => `https://${host}:${port}/hook`);
}

const allow = (text: string) => parseOutboundAllow(text).value ?? { hosts: [], cidrs: [] };

/** A resolver that answers from `names`, counting its calls; unknown names fail. */
function fakeResolver(names: Record<string, string[][]>): Resolver & { calls: number } {
  const calls = new Map<string, number>();
  const resolve = Object.assign(
    async (hostname: string) => {
      resolve.calls++;
      const answers = names[hostname];
      if (!answers) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
      const n = calls.get(hostname) ?? 0;
      calls.set(hostname, n + 1);
      return answers[Math.min(n, answers.length - 1)].map((address) => ({
        address,
        family: address.includes(":") ? 6 : 4,
      }));
    },
    { calls: 0 },
  );
  return resolve;
}

async function refused(promise: Promise<unknown>, reason = "not_allowed"): Promise<OutboundError> {
  const error = await promise.then(
    () => assert.fail("the request was sent"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof OutboundError, String(error));
  assert.equal(error.reason, reason, error.detail);
  if (reason === "not_allowed") assert.equal(error.message, "destination not allowed");
  return error;
}

describe("outbound guard", () => {
  let server: Server;
  let port = 0;
  let base = "";
  let connections = 0;
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];

  before(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? "", headers: req.headers });
      const url = new URL(req.url ?? "/", "http://x");
      if (url.pathname === "/redirect") {
        res.writeHead(Number(url.searchParams.get("status") ?? 302), {
          location: url.searchParams.get("to") ?? "/",
        });
        res.end();
      } else if (url.pathname === "/big") {
        res.end("x".repeat(4096));
      } else if (url.pathname === "/huge") {
        res.end("x".repeat(256 * 1024));
      } else if (url.pathname === "/chunked") {
        res.write("x".repeat(3000));
        res.end("y".repeat(3000));
      } else if (url.pathname === "/silent") {
        // Never answers: the guard's deadline must end the request.
      } else if (url.pathname === "/empty") {
        res.writeHead(204).end();
      } else {
        res.setHeader("x-seen", req.url ?? "");
        res.end(`hello ${req.method}`);
      }
    });
    server.on("connection", () => connections++);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it("refuses every loopback spelling by default, before connecting", async () => {
    const guard = createOutboundGuard();
    const before = connections;
    for (const url of [...loopbackSpellings(port), `${base}/hook`, `http://localhost:${port}/`]) {
      assert.match(guard.destinationProblem(url) ?? "", /internal address/, url);
      await refused(guard.request(url, { method: "POST", body: "{}" }));
    }
    assert.equal(connections, before, "no connection reached the listener");
  });

  it("sends to an address the operator allows, and to nothing else internal", async () => {
    const guard = createOutboundGuard({ allow: allow("127.0.0.1/32") });
    const answer = await guard.request(`${base}/hello?x=1`, { method: "POST", body: "{}" });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.toString(), "hello POST");
    assert.equal(answer.headers.get("x-seen"), "/hello?x=1");
    const before = connections;
    for (const url of [
      `http://0.0.0.0:${port}/`,
      `http://[::1]:${port}/`,
      `http://127.0.0.2:${port}/`,
    ])
      await refused(guard.request(url));
    assert.equal(connections, before);
  });

  it("resolves names in the socket's lookup and refuses those that resolve internal", async () => {
    const resolve = fakeResolver({
      "hooks.example.test": [["127.0.0.1"]],
      "mixed.localhost": [["0.0.0.0", "::1", "127.0.0.1"]],
      "v6.localhost": [["::1"]],
    });
    const strict = createOutboundGuard({ resolve });
    const before = connections;
    const error = await refused(strict.request(`https://hooks.example.test:${port}/`));
    assert.match(error.detail, /hooks\.example\.test resolves to 127\.0\.0\.1/);
    assert.equal(connections, before);
    // Allowed loopback: only the permitted one of several answers is connected to.
    const open = createOutboundGuard({ allow: allow("127.0.0.1"), resolve });
    const mixed = await open.request(`http://mixed.localhost:${port}/m`);
    assert.equal(mixed.status, 200);
    await refused(open.request(`http://v6.localhost:${port}/`));
  });

  it("resolves once per connection: the address checked is the address connected", async () => {
    // A rebinding name: the first answer is allowed, any later one is not.
    const resolve = fakeResolver({ "rebind.localhost": [["127.0.0.1"], ["0.0.0.0"]] });
    const guard = createOutboundGuard({ allow: allow("127.0.0.1/32"), resolve });
    const answer = await guard.request(`http://rebind.localhost:${port}/rebind`);
    assert.equal(answer.status, 200);
    assert.equal(resolve.calls, 1);
    // With the kept-alive connection closed, the name is resolved again: it now resolves to a
    // refused address and nothing is sent.
    guard.close();
    const before = seen.length;
    await refused(guard.request(`http://rebind.localhost:${port}/rebind`));
    assert.equal(resolve.calls, 2);
    assert.equal(seen.length, before);
  });

  it("uses the system resolver: localhost reaches an allowed loopback listener", async () => {
    const guard = createOutboundGuard({ allow: allow("127.0.0.0/8,::1") });
    assert.equal((await guard.request(`http://localhost:${port}/`)).status, 200);
  });

  it("lets a host the operator names through whatever it resolves to", async () => {
    const resolve = fakeResolver({ "idp.corp.test": [["127.0.0.1"]] });
    const guard = createOutboundGuard({ allow: allow("idp.corp.test"), resolve });
    assert.equal(guard.destinationProblem(`https://idp.corp.test:${port}/`), undefined);
    const before = connections;
    // The listener speaks plain http, so TLS fails: but only after the guard let it connect.
    await refused(guard.request(`https://idp.corp.test:${port}/`), "failed");
    assert.equal(connections, before + 1);
  });

  it("checks every redirect it follows like the first request", async () => {
    const guard = createOutboundGuard({
      allow: allow("127.0.0.1/32"),
      resolve: fakeResolver({ "internal.test": [["0.0.0.0"]] }),
    });
    const targets = [
      `http://0.0.0.0:${port}/landed`,
      `http://[::1]:${port}/landed`,
      `http://[::ffff:127.0.0.2]:${port}/landed`,
      `http://2130706434:${port}/landed`,
      `https://internal.test:${port}/landed`,
      `https://169.254.169.254/latest/meta-data/`,
      `http://example.com/landed`,
    ];
    for (const to of targets) {
      const start = `${base}/redirect?to=${encodeURIComponent(to)}`;
      await refused(guard.request(start, { maxRedirects: 3 }));
    }
    assert.ok(!seen.some((s) => s.url === "/landed"), "no redirect reached its target");
    // A redirect to an allowed place is followed, relative locations included.
    const ok = await guard.request(`${base}/redirect?to=/landed`, { maxRedirects: 3 });
    assert.equal(ok.status, 200);
    assert.equal(ok.url, `${base}/landed`);
  });

  it("follows a bounded number of redirects, GET only, and none by default", async () => {
    const guard = createOutboundGuard({ allow: allow("127.0.0.1/32") });
    const loop = `${base}/redirect?to=${encodeURIComponent("/redirect?to=/redirect")}`;
    const stopped = await guard.request(loop, { maxRedirects: 2 });
    assert.equal(stopped.status, 302);
    assert.equal((await guard.request(`${base}/redirect?to=/x`)).status, 302);
    const post = await guard.request(`${base}/redirect?to=/x`, { method: "POST", maxRedirects: 3 });
    assert.equal(post.status, 302);
  });

  it("keeps credentials on the origin they were meant for", async () => {
    const guard = createOutboundGuard({ allow: allow("127.0.0.0/8,::1") });
    const headers = { authorization: "Bearer secret", "x-other": "kept" };
    const same = `${base}/redirect?to=/same-origin`;
    await guard.request(same, { headers, maxRedirects: 1 });
    const other = `${base}/redirect?to=${encodeURIComponent(`http://localhost:${port}/other-origin`)}`;
    await guard.request(other, { headers, maxRedirects: 1 });
    const landed = (path: string) => seen.findLast((s) => s.url === path)?.headers ?? {};
    assert.equal(landed("/same-origin").authorization, "Bearer secret");
    assert.equal(landed("/other-origin").authorization, undefined);
    assert.equal(landed("/other-origin")["x-other"], "kept");
  });

  it("bounds the answer's size and the request's time", async () => {
    const guard = createOutboundGuard({ allow: allow("127.0.0.1/32") });
    await refused(guard.request(`${base}/big`, { maxBytes: 1024 }), "too_large");
    await refused(guard.request(`${base}/chunked`, { maxBytes: 4096 }), "too_large");
    assert.equal((await guard.request(`${base}/chunked`, { maxBytes: 6000 })).body.length, 6000);
    const timeout = await refused(guard.request(`${base}/silent`, { timeoutMs: 300 }), "timeout");
    assert.equal(timeout.message, "no answer within 300 ms");
    const stop = new AbortController();
    const pending = guard.request(`${base}/silent`, { signal: stop.signal });
    stop.abort();
    await refused(pending, "aborted");
    // A discarded body is not read, however large.
    const headersOnly = await guard.request(`${base}/big`, { maxBytes: 1, readBody: false });
    assert.equal(headersOnly.body.length, 0);
  });

  it("keeps connections alive, whether the body is read or discarded", async () => {
    const guard = createOutboundGuard({ allow: allow("127.0.0.1/32") });
    const before = connections;
    for (let i = 0; i < 3; i++) {
      assert.equal((await guard.request(`${base}/a`)).status, 200);
      await guard.request(`${base}/a`, { method: "POST", body: "{}", readBody: false });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(connections, before + 1, "one connection served all six requests");
    // A large unread body is not drained: its connection is closed, and the next one is new.
    await guard.request(`${base}/huge`, { readBody: false });
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await guard.request(`${base}/a`)).status, 200);
    assert.equal(connections, before + 2);
    guard.close();
  });

  it("sends again on a fresh connection when a kept-alive one turns out closed", async () => {
    // A server that drops each connection when a second request arrives on it.
    let accepted = 0;
    const flaky = createNetServer((socket) => {
      accepted++;
      let requests = 0;
      socket.on("data", () => {
        if (++requests > 1) socket.resetAndDestroy();
        else socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      });
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => flaky.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/`;
    const guard = createOutboundGuard({ allow: allow("127.0.0.1/32") });
    try {
      assert.equal((await guard.request(url)).body.toString(), "ok");
      assert.equal((await guard.request(url, { method: "POST", body: "{}" })).status, 200);
      assert.equal(accepted, 2);
    } finally {
      guard.close();
      flaky.close();
    }
  });

  it("reports a failed allowed request by its error code", async () => {
    const guard = createOutboundGuard({ allow: allow("127.0.0.1/32") });
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const error = await refused(guard.request(`http://127.0.0.1:${closedPort}/`), "failed");
    assert.equal(error.message, "request failed: ECONNREFUSED");
  });

  it("offers a fetch for libraries, through the same checks", async () => {
    const guard = createOutboundGuard({ allow: allow("127.0.0.1/32") });
    const fetch = guard.fetcher({ maxBytes: 100 });
    const answer = await fetch(`${base}/f`, { headers: new Headers({ accept: "text/plain" }) });
    assert.equal(answer.status, 200);
    assert.equal(await answer.text(), "hello GET");
    assert.equal((await fetch(`${base}/empty`)).status, 204);
    await refused(fetch(`http://0.0.0.0:${port}/`));
    await refused(fetch(`${base}/big`), "too_large");
  });
});
