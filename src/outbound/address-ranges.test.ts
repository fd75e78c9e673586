import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { internalRange } from "./address-ranges.ts";

describe("internalRange", () => {
  it("names every internal IPv4 range", () => {
    const cases: [string, string][] = [
      ["0.0.0.0", "unspecified"],
      ["0.1.2.3", "unspecified"],
      ["10.20.30.40", "private"],
      ["100.64.0.1", "carrier-grade NAT"],
      ["100.127.255.254", "carrier-grade NAT"],
      ["127.0.0.1", "loopback"],
      ["127.255.255.254", "loopback"],
      ["169.254.169.254", "link-local"],
      ["172.16.0.1", "private"],
      ["172.31.255.255", "private"],
      ["192.0.0.8", "IETF protocol assignments"],
      ["192.0.2.1", "documentation"],
      ["192.88.99.1", "6to4 relay anycast"],
      ["192.168.1.1", "private"],
      ["198.18.0.1", "benchmarking"],
      ["198.51.100.7", "documentation"],
      ["203.0.113.9", "documentation"],
      ["224.0.0.1", "multicast"],
      ["239.255.255.250", "multicast"],
      ["240.0.0.1", "reserved or broadcast"],
      ["255.255.255.255", "reserved or broadcast"],
    ];
    for (const [address, range] of cases) assert.equal(internalRange(address), range, address);
  });

  it("names every internal IPv6 range, and IPv4 carried inside IPv6 as its IPv4", () => {
    const cases: [string, string][] = [
      ["::", "unspecified"],
      ["::1", "loopback"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["::ffff:10.0.0.1", "private"],
      ["::ffff:169.254.169.254", "link-local"],
      ["::ffff:100.64.0.1", "carrier-grade NAT"],
      ["::ffff:0.0.0.0", "unspecified"],
      ["::127.0.0.1", "IPv4-compatible"],
      ["::ffff:0:7f00:1", "IPv4-translated"],
      ["64:ff9b::127.0.0.1", "NAT64 of loopback"],
      ["64:ff9b::10.1.2.3", "NAT64 of private"],
      ["64:ff9b::169.254.169.254", "NAT64 of link-local"],
      ["64:ff9b:1::1", "local-use NAT64"],
      ["2002:7f00:1::1", "6to4 of loopback"],
      ["2002:c0a8:101::", "6to4 of private"],
      ["2002:a9fe:a9fe::1", "6to4 of link-local"],
      ["100::1", "discard-only"],
      ["2001::1", "IETF protocol assignments"],
      ["2001:db8::1", "documentation"],
      ["3fff::1", "documentation"],
      ["5f00::1", "segment routing"],
      ["fc00::1", "unique-local"],
      ["fd12:3456::1", "unique-local"],
      ["fe80::1", "link-local"],
      ["febf::1", "link-local"],
      ["fec0::1", "site-local"],
      ["ff02::1", "multicast"],
      ["ff0e::1", "multicast"],
      ["4000::1", "not global unicast"],
      ["::2", "IPv4-compatible"],
    ];
    for (const [address, range] of cases) assert.equal(internalRange(address), range, address);
  });

  it("lets globally reachable addresses through, in every form", () => {
    for (const address of [
      "1.1.1.1",
      "8.8.8.8",
      "100.63.255.255",
      "100.128.0.0",
      "172.15.255.255",
      "172.32.0.0",
      "192.169.0.1",
      "223.255.255.255",
      "2606:4700:4700::1111",
      "2a00:1450:4001::1",
      "::ffff:8.8.8.8",
      "64:ff9b::8.8.8.8",
      "2002:808:808::1",
    ]) {
      assert.equal(internalRange(address), undefined, address);
    }
  });

  it("knows a name is not an address", () => {
    assert.equal(internalRange("localhost"), "not an IP address");
    assert.equal(internalRange("[::1]"), "not an IP address");
  });
});
