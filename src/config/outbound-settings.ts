import { type OutboundAllow, parseOutboundAllow } from "../outbound/index.ts";

/** Where requests made on a tenant's behalf may go (docs/security.md "Outbound requests"). */
export interface OutboundSettings {
  /**
   * Internal hosts and CIDRs the operator allows (on-premises identity providers, receivers
   * inside the network, tests). Default none: only globally reachable addresses.
   */
  allow: Readonly<OutboundAllow>;
}

/** What `--events-allow-http-loopback` adds to the allow list: the loopback ranges. */
export const loopbackCidrs: readonly string[] = ["127.0.0.0/8", "::1/128"];

/** The settings as strings, from flags, the environment or the file. */
export interface OutboundSettingsInput {
  outboundAllow?: string;
  /** The older flag, kept as an alias: `true` allows {@link loopbackCidrs}. */
  eventsAllowHttpLoopback?: string;
}

/** Validates the settings, naming the flag of a bad one. */
export function resolveOutboundSettings(input: OutboundSettingsInput): OutboundSettings {
  const parsed = parseOutboundAllow(input.outboundAllow ?? "");
  if (parsed.error !== undefined) throw new Error(`--outbound-allow: ${parsed.error}`);
  const allow = parsed.value as OutboundAllow;
  const loopback = input.eventsAllowHttpLoopback ?? "false";
  if (loopback !== "true" && loopback !== "false") {
    throw new Error(`--events-allow-http-loopback must be true or false, got "${loopback}"`);
  }
  const cidrs =
    loopback === "true" ? [...new Set([...allow.cidrs, ...loopbackCidrs])] : allow.cidrs;
  return {
    allow: Object.freeze({ hosts: Object.freeze([...allow.hosts]), cidrs: Object.freeze(cidrs) }),
  };
}
