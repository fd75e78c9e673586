import { BlockList, isIP } from "node:net";

/**
 * IPv4 ranges that are not globally reachable (the IANA special-purpose registry, RFC 6890 and
 * its updates, plus multicast and the reserved class E with the broadcast address).
 */
const internalV4: readonly (readonly [name: string, address: string, prefix: number])[] = [
  ["unspecified", "0.0.0.0", 8],
  ["private", "10.0.0.0", 8],
  ["carrier-grade NAT", "100.64.0.0", 10],
  ["loopback", "127.0.0.0", 8],
  ["link-local", "169.254.0.0", 16],
  ["private", "172.16.0.0", 12],
  ["IETF protocol assignments", "192.0.0.0", 24],
  ["documentation", "192.0.2.0", 24],
  ["6to4 relay anycast", "192.88.99.0", 24],
  ["private", "192.168.0.0", 16],
  ["benchmarking", "198.18.0.0", 15],
  ["documentation", "198.51.100.0", 24],
  ["documentation", "203.0.113.0", 24],
  ["multicast", "224.0.0.0", 4],
  ["reserved or broadcast", "240.0.0.0", 4],
];

/**
 * IPv6 ranges that are not globally reachable. IPv4-mapped addresses (`::ffff:a.b.c.d`) need
 * no entry: a BlockList matches them against the IPv4 ranges. The whole IETF protocol block
 * 2001::/23 is refused, Teredo (which can carry any IPv4 address) with it.
 */
const internalV6: readonly (readonly [name: string, address: string, prefix: number])[] = [
  ["unspecified", "::", 128],
  ["loopback", "::1", 128],
  ["IPv4-compatible", "::", 96],
  ["IPv4-translated", "::ffff:0:0:0", 96],
  ["local-use NAT64", "64:ff9b:1::", 48],
  ["discard-only", "100::", 64],
  ["IETF protocol assignments", "2001::", 23],
  ["documentation", "2001:db8::", 32],
  ["documentation", "3fff::", 20],
  ["segment routing", "5f00::", 16],
  ["unique-local", "fc00::", 7],
  ["link-local", "fe80::", 10],
  ["site-local", "fec0::", 10],
  ["multicast", "ff00::", 8],
];

/**
 * IPv6 prefixes that carry an IPv4 address in their low bits (`shift` = where its 32 bits
 * start): such an address is as internal as the IPv4 address it carries.
 */
const carriers: readonly (readonly [name: string, prefixHextets: string, shift: number])[] = [
  ["NAT64", "64:ff9b:0:0:0:0", 96],
  ["6to4", "2002", 16],
];

/** Where IPv6 unicast is globally reachable at all: 2000::/3, and the forms carrying IPv4. */
const globalV6 = new BlockList();
globalV6.addSubnet("2000::", 3, "ipv6");
globalV6.addSubnet("64:ff9b::", 96, "ipv6");
globalV6.addSubnet("::ffff:0:0", 96, "ipv6");

const ranges: { name: string; list: BlockList }[] = [];
function add(name: string, address: string, prefix: number, family: "ipv4" | "ipv6") {
  const list = new BlockList();
  list.addSubnet(address, prefix, family);
  ranges.push({ name, list });
}
for (const [name, address, prefix] of internalV4) add(name, address, prefix, "ipv4");
for (const [name, address, prefix] of internalV6) add(name, address, prefix, "ipv6");
for (const [carrier, hextets, shift] of carriers) {
  for (const [name, address, prefix] of internalV4) {
    const [a, b, c, d] = address.split(".").map(Number);
    const high = ((a << 8) | b).toString(16);
    const low = ((c << 8) | d).toString(16);
    // The IPv4 address's two hextets follow the prefix: after 96 bits they end the address,
    // after 16 bits (6to4) the rest is the site's own and is left as zeros.
    const v6 = shift === 96 ? `${hextets}:${high}:${low}` : `${hextets}:${high}:${low}::`;
    add(`${carrier} of ${name}`, v6, shift + prefix, "ipv6");
  }
}

/**
 * The name of the non-global range `address` (an IPv4 or IPv6 literal, without brackets) falls
 * in, e.g. "loopback", "private", "NAT64 of loopback"; undefined for a globally reachable
 * unicast address. Anything that is not an IP address is "not an IP address".
 */
export function internalRange(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return "not an IP address";
  const type = family === 4 ? "ipv4" : "ipv6";
  for (const range of ranges) if (range.list.check(address, type)) return range.name;
  if (family === 6 && !globalV6.check(address, "ipv6")) return "not global unicast";
  return undefined;
}
