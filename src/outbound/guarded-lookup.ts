import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import type { AllowList } from "./allow-list.ts";
import { permitsAddress } from "./destination.ts";
import { notAllowed } from "./outbound-error.ts";

/** Resolves a host name to its addresses (the system resolver unless a test injects one). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** `dns.lookup` with every address, in the resolver's order: what Node connects to by default. */
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, order: "verbatim" }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

/**
 * The `lookup` a guarded socket connects with: it resolves the name once and hands the socket
 * only the addresses the guard permits, so the address checked is the address connected (no
 * second resolution for a rebinding name to change). When none is permitted the connection
 * fails with "destination not allowed" before any packet leaves. A host the operator allows by
 * name keeps all its addresses.
 */
export function guardedLookup(allow: AllowList, resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const candidates = found.filter((a) => family === 0 || a.family === family);
        const permitted = allow.allowsHost(hostname)
          ? candidates
          : candidates.filter((a) => permitsAddress(a.address, allow));
        if (permitted.length === 0) {
          const seen = candidates.map((a) => a.address).join(", ") || "no address";
          callback(notAllowed(`${hostname} resolves to ${seen}`), "", 0);
        } else if (options.all) {
          callback(null, permitted);
        } else {
          callback(null, permitted[0].address, permitted[0].family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0),
    );
  };
}
