import { BlockList, isIP } from "node:net";

/** What the operator allows although it is internal (`--outbound-allow`), as parsed. */
export interface OutboundAllow {
  /** Host names, lower case without a trailing dot; `*.corp.example` allows its subdomains. */
  hosts: readonly string[];
  /** CIDRs, `address/prefix`; a bare address in the setting is one address (/32 or /128). */
  cidrs: readonly string[];
}

/** Nothing internal is allowed: the default. */
export const allowNothing: OutboundAllow = Object.freeze({ hosts: [], cidrs: [] });

/** What a destination is checked against. */
export interface AllowList {
  /** The operator listed this host name (or a `*.` parent of it): its addresses are not checked. */
  allowsHost(hostname: string): boolean;
  /** The address is in one of the operator's CIDRs. */
  allowsAddress(address: string): boolean;
}

const hostName = /^(\*\.)?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/** `Host.Example.` → `host.example`; IPv6 brackets (as URL.hostname has them) removed. */
export function normalHost(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

/**
 * Parses a comma-separated list of host names (`idp.corp.example`, `*.corp.example`), addresses
 * and CIDRs (`127.0.0.1`, `10.1.0.0/16`, `::1`, `fd00::/8`). Entries are trimmed; empty ones are
 * skipped.
 */
export function parseOutboundAllow(text: string): { value?: OutboundAllow; error?: string } {
  const hosts = new Set<string>();
  const cidrs = new Set<string>();
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const cidr = parseCidr(entry);
    if (cidr) {
      if (cidr.error !== undefined) return { error: cidr.error };
      cidrs.add(cidr.value);
      continue;
    }
    const host = normalHost(entry);
    if (host.length > 253 || !hostName.test(host)) {
      return {
        error: `"${entry}" is neither a host name (optionally *.parent) nor an address or CIDR`,
      };
    }
    hosts.add(host);
  }
  return { value: { hosts: [...hosts], cidrs: [...cidrs] } };
}

/** undefined when `entry` is no address at all; otherwise the CIDR or why it is not one. */
function parseCidr(
  entry: string,
): { value: string; error?: undefined } | { error: string } | undefined {
  const slash = entry.indexOf("/");
  const address = normalHost(slash < 0 ? entry : entry.slice(0, slash));
  const family = isIP(address);
  if (family === 0) return slash < 0 ? undefined : { error: `"${entry}" is not a CIDR` };
  const max = family === 4 ? 32 : 128;
  const prefixText = slash < 0 ? String(max) : entry.slice(slash + 1);
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
  if (prefix < 0 || prefix > max) {
    return { error: `"${entry}": the prefix length must be 0 to ${max}` };
  }
  return { value: `${address}/${prefix}` };
}

/** The allow list of `allow`, for the guard's checks. */
export function createAllowList(allow: OutboundAllow): AllowList {
  const exact = new Set(allow.hosts.filter((h) => !h.startsWith("*.")));
  const parents = allow.hosts.filter((h) => h.startsWith("*.")).map((h) => h.slice(1));
  const blocks = new BlockList();
  for (const cidr of allow.cidrs) {
    const [address, prefix] = cidr.split("/");
    blocks.addSubnet(address, Number(prefix), isIP(address) === 4 ? "ipv4" : "ipv6");
  }
  return {
    allowsHost(hostname) {
      const host = normalHost(hostname);
      if (isIP(host) !== 0) return false;
      return exact.has(host) || parents.some((parent) => host.endsWith(parent));
    },
    allowsAddress(address) {
      const bare = normalHost(address);
      const family = isIP(bare);
      return family !== 0 && blocks.check(bare, family === 4 ? "ipv4" : "ipv6");
    },
  };
}
