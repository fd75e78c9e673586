import type { TokenIssuer } from "../../auth/index.ts";

/** How long a verified token's claims are reused, in milliseconds. */
const verifiedTtlMs = 2000;
/** At most this many tokens are remembered; the cache is emptied when it is full. */
const verifiedMax = 1024;

/**
 * `tokens` whose `verify` for the registry `audience` reuses, for at most 2 seconds and never
 * past the token's `exp`, the claims of a token it verified before. This caches only what the
 * token itself proves (its signature and claims, including a registry token's self-contained
 * `access` claim): a Lading token's identity and grants, and a registry token's identity, are
 * still read from the database on every request, so revoking them takes effect at once. Retiring a signing key reaches a token
 * already verified within at most those 2 seconds. Failures are never cached. Per process.
 */
export function cachingVerifier(tokens: TokenIssuer, audience: string): TokenIssuer {
  type Claims = Awaited<ReturnType<TokenIssuer["verify"]>>;
  const verified = new Map<string, { claims: Claims; until: number }>();
  const verify: TokenIssuer["verify"] = async (token, options) => {
    if (!token || options.audience !== audience) return tokens.verify(token, options);
    const now = Date.now();
    const hit = verified.get(token);
    if (hit && hit.until > now) return hit.claims;
    verified.delete(token);
    const claims = await tokens.verify(token, options);
    const until = Math.min(Date.now() + verifiedTtlMs, claims.exp * 1000);
    if (until > now) {
      if (verified.size >= verifiedMax) verified.clear();
      verified.set(token, { claims, until });
    }
    return claims;
  };
  return { ...tokens, verify };
}
