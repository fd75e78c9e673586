/**
 * The outbound guard (DESIGN §8a): every request Lading sends on a tenant's or an anonymous
 * caller's behalf goes through {@link createOutboundGuard}. Today that is event deliveries to
 * subscription sinks, OIDC discovery, JWKS and the token endpoint of identity providers, and the
 * discovery documents and JWKS of token-exchange (claim-match) issuers; every later feature that
 * fetches a URL a tenant chose uses it too.
 *
 * Requests that do not go through it, because the operator or the user chose their destination:
 * the metadata store (`--database-url`), the S3 client of the blob store (`--blob-store`), and
 * the CLI's own requests (the API URL it is given, `lading events receive` fetching the issuer
 * documents of the server it names), which run on the user's machine, not the server's.
 */
export * from "./address-ranges.ts";
export * from "./allow-list.ts";
export * from "./destination.ts";
export * from "./guarded-lookup.ts";
export * from "./outbound-error.ts";
export * from "./outbound-guard.ts";
