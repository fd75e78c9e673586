import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createAllowList, parseOutboundAllow } from "./allow-list.ts";

describe("parseOutboundAllow", () => {
  it("reads hosts, addresses and CIDRs, normalised and without repeats", () => {
    const { value, error } = parseOutboundAllow(
      " 127.0.0.1, 10.1.0.0/16,::1,[fd00::]/8, IdP.Corp.Example., *.corp.example,,idp.corp.example",
    );
    assert.equal(error, undefined);
    assert.deepEqual(value, {
      hosts: ["idp.corp.example", "*.corp.example"],
      cidrs: ["127.0.0.1/32", "10.1.0.0/16", "::1/128", "fd00::/8"],
    });
    assert.deepEqual(parseOutboundAllow("").value, { hosts: [], cidrs: [] });
  });

  it("refuses what is neither a host nor an address", () => {
    for (const bad of [
      "10.0.0.0/33",
      "::/129",
      "10.0.0.0/x",
      "nope/8",
      "a b",
      "*",
      "http://x",
      "x..y",
    ]) {
      assert.match(parseOutboundAllow(bad).error ?? "", /CIDR|prefix|host name/, bad);
    }
  });
});

describe("createAllowList", () => {
  const list = createAllowList(
    parseOutboundAllow("127.0.0.1,10.1.0.0/16,fd00::/8,idp.corp.example,*.svc.example").value ?? {
      hosts: [],
      cidrs: [],
    },
  );

  it("allows listed addresses in every spelling", () => {
    for (const address of ["127.0.0.1", "::ffff:127.0.0.1", "10.1.200.3", "fd00::5", "[fd00::5]"])
      assert.ok(list.allowsAddress(address), address);
    for (const address of ["127.0.0.2", "10.2.0.1", "::1", "fe80::1", "localhost"])
      assert.ok(!list.allowsAddress(address), address);
  });

  it("allows listed names exactly, and subdomains of a *. entry only", () => {
    for (const host of [
      "idp.corp.example",
      "IDP.corp.example.",
      "a.svc.example",
      "b.a.svc.example",
    ])
      assert.ok(list.allowsHost(host), host);
    for (const host of [
      "corp.example",
      "x.idp.corp.example",
      "svc.example",
      "evilsvc.example",
      "127.0.0.1",
    ])
      assert.ok(!list.allowsHost(host), host);
  });

  it("lets an operator allow everything", () => {
    const all = createAllowList(
      parseOutboundAllow("0.0.0.0/0,::/0").value ?? { hosts: [], cidrs: [] },
    );
    for (const address of ["127.0.0.1", "10.0.0.1", "::1", "fe80::1", "::ffff:127.0.0.1"])
      assert.ok(all.allowsAddress(address), address);
  });
});
