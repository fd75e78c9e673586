import { isIP } from "node:net";
import { internalRange } from "./address-ranges.ts";
import { type AllowList, normalHost } from "./allow-list.ts";

/** The flag an operator uses to allow internal destinations, named in refusals. */
export const allowFlag = "--outbound-allow";

/** `localhost` and its subdomains, which resolve to loopback (RFC 6761 §6.3). */
export function isLocalhostName(hostname: string): boolean {
  const host = normalHost(hostname);
  return host === "localhost" || host.endsWith(".localhost");
}

/** A loopback address literal (any spelling URL accepts) or a localhost name. */
export function isLoopbackHost(hostname: string): boolean {
  const host = normalHost(hostname);
  return isLocalhostName(host) || (isIP(host) !== 0 && internalRange(host) === "loopback");
}

/** Whether the guard lets a connection to `address` (an IP literal) through. */
export function permitsAddress(address: string, allow: AllowList): boolean {
  return internalRange(address) === undefined || allow.allowsAddress(address);
}

/**
 * Why Lading will not send to `url`, as far as can be told without resolving its host; undefined
 * when it may. The URL must be https, or http to a loopback host (clear text never leaves the
 * machine); a literal address must be globally reachable unless the operator allows it, and so
 * must `localhost` (taken as 127.0.0.1 and ::1). Other names are checked when they are resolved,
 * at each connection. Resources that hold a URL are checked with this when created, so a literal
 * internal address is refused at once.
 */
export function destinationProblem(url: string | URL, allow: AllowList): string | undefined {
  let parsed: URL;
  try {
    parsed = typeof url === "string" ? new URL(url) : url;
  } catch {
    return "must be an absolute https URL";
  }
  const host = normalHost(parsed.hostname);
  if (parsed.protocol !== "https:") {
    if (parsed.protocol !== "http:") return "must be an https URL";
    if (!isLoopbackHost(host)) return "must be an https URL (http only to a loopback host)";
  }
  if (allow.allowsHost(host)) return undefined;
  if (isIP(host) !== 0) {
    const range = internalRange(host);
    if (range === undefined || allow.allowsAddress(host)) return undefined;
    return `must not be an internal address (${range}) unless the operator allows it (${allowFlag})`;
  }
  if (isLocalhostName(host) && !allow.allowsAddress("127.0.0.1") && !allow.allowsAddress("::1")) {
    return `must not be an internal address (loopback) unless the operator allows it (${allowFlag})`;
  }
  return undefined;
}
