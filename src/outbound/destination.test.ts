import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createAllowList, parseOutboundAllow } from "./allow-list.ts";
import { destinationProblem, isLoopbackHost } from "./destination.ts";

const list = (text: string) =>
  createAllowList(parseOutboundAllow(text).value ?? { hosts: [], cidrs: [] });

describe("destinationProblem", () => {
  const none = list("");

  it("wants https, or http to a loopback host", () => {
    assert.equal(destinationProblem("https://hooks.example.com/x", none), undefined);
    assert.match(destinationProblem("http://hooks.example.com/", none) ?? "", /loopback host/);
    assert.match(destinationProblem("ftp://hooks.example.com/", none) ?? "", /https URL/);
    assert.match(destinationProblem("not a url", none) ?? "", /absolute https URL/);
    const loopback = list("127.0.0.0/8,::1");
    for (const url of [
      "http://127.0.0.1:1/",
      "http://localhost/",
      "http://[::1]/",
      "http://127.1/",
    ])
      assert.equal(destinationProblem(url, loopback), undefined, url);
    assert.match(destinationProblem("http://10.0.0.1/", list("10.0.0.0/8")) ?? "", /loopback host/);
  });

  it("refuses literal internal addresses and localhost names, naming the range", () => {
    const cases: [string, RegExp][] = [
      ["https://127.0.0.1/", /\(loopback\)/],
      ["https://0x7f000001/", /\(loopback\)/],
      ["https://[::ffff:7f00:1]/", /\(loopback\)/],
      ["https://0.0.0.0/", /\(unspecified\)/],
      ["https://192.168.0.1/", /\(private\)/],
      ["https://100.100.100.200/", /\(carrier-grade NAT\)/],
      ["https://[fe80::1]/", /\(link-local\)/],
      ["https://localhost./", /\(loopback\)/],
      ["https://a.b.localhost/", /\(loopback\)/],
    ];
    for (const [url, range] of cases) {
      const problem = destinationProblem(url, none) ?? "";
      assert.match(problem, range, url);
      assert.match(problem, /--outbound-allow/, url);
    }
    // Names that are not localhost are judged when resolved, not here.
    assert.equal(destinationProblem("https://db.internal/", none), undefined);
  });

  it("lets through what the operator allows, by address or by name", () => {
    assert.equal(destinationProblem("https://10.1.2.3/", list("10.1.0.0/16")), undefined);
    assert.match(destinationProblem("https://10.2.0.1/", list("10.1.0.0/16")) ?? "", /private/);
    assert.equal(destinationProblem("https://localhost/", list("::1")), undefined);
    assert.equal(destinationProblem("https://idp.localhost/", list("idp.localhost")), undefined);
  });
});

describe("isLoopbackHost", () => {
  it("knows loopback in every spelling URL leaves, and nothing else", () => {
    for (const host of [
      "localhost",
      "LOCALHOST.",
      "x.localhost",
      "127.0.0.1",
      "127.9.9.9",
      "[::1]",
      "::ffff:7f00:1",
    ])
      assert.ok(isLoopbackHost(host), host);
    for (const host of [
      "128.0.0.1",
      "localhost.example.com",
      "[::2]",
      "10.0.0.1",
      "0.0.0.0",
      "mylocalhost",
    ])
      assert.ok(!isLoopbackHost(host), host);
  });
});
