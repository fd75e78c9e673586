import { createHash } from "node:crypto";
import { createRemoteJWKSet, customFetch, errors, type JWTPayload, jwtVerify } from "jose";
import type { OutboundGuard } from "../outbound/index.ts";
import { authError, authReasons, refusal, upstreamUnavailable } from "./auth-errors.ts";
import { asymmetricAlgorithms } from "./jwt-algorithms.ts";

/** The settings of one identity provider that the sign-in flow uses. */
export interface OidcProvider {
  issuer: string;
  clientId: string;
  /** "" for a public client (PKCE alone); otherwise sent with client_secret_basic. */
  clientSecret: string;
  /** Scopes requested besides `openid`. */
  additionalScopes: string[];
  pkceEnabled: boolean;
}

/** How the OIDC client talks to providers. */
export interface OidcClientOptions {
  /** Every request to a provider (discovery, keys, token endpoint) goes through it. */
  outbound: OutboundGuard;
  /** Timeout of each request to a provider. Default 5000 ms. */
  fetchTimeoutMs?: number;
  /** How long a provider's discovery document and keys are reused. Default 10 minutes. */
  cacheTtlMs?: number;
  /** Allowed clock difference with providers for `exp`, `iat` and `nbf`. Default 5 seconds. */
  clockToleranceSeconds?: number;
}

/** What the authorization request carries besides the provider's settings. */
export interface AuthorizationRequest {
  redirectUri: string;
  state: string;
  nonce: string;
  /** The PKCE code verifier; sent as an S256 challenge. */
  verifier?: string;
}

/** What the code exchange needs besides the provider's settings. */
export interface CodeExchange {
  code: string;
  redirectUri: string;
  nonce: string;
  verifier?: string;
}

/** An OpenID Connect relying party for the authorization-code flow. */
export interface OidcClient {
  /** The provider's authorization endpoint with the request's parameters. */
  authorizationUrl(provider: OidcProvider, request: AuthorizationRequest): Promise<string>;
  /**
   * Redeems `code` at the token endpoint and returns the verified id token's claims: signature by
   * the provider's keys, `iss`, `aud` holding the client id, `nonce`, `exp`. Throws
   * UNAUTHENTICATED or UNAVAILABLE LadingErrors.
   */
  exchangeCode(provider: OidcProvider, exchange: CodeExchange): Promise<JWTPayload>;
}

interface Discovered {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwks: ReturnType<typeof createRemoteJWKSet>;
  expiresAt: number;
}

const maxDocumentBytes = 256 * 1024;
const algorithms = asymmetricAlgorithms;

/** The S256 PKCE challenge of `verifier` (RFC 7636). */
export function pkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

/** Creates the client; discovery documents and key sets are cached per issuer. */
export function createOidcClient(options: OidcClientOptions): OidcClient {
  const { outbound } = options;
  const timeout = options.fetchTimeoutMs ?? 5000;
  const cacheTtlMs = options.cacheTtlMs ?? 10 * 60_000;
  const clockTolerance = options.clockToleranceSeconds ?? 5;
  const cache = new Map<string, Promise<Discovered>>();

  async function discover(issuer: string): Promise<Discovered> {
    const where = `${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
    let document: Record<string, unknown>;
    try {
      const response = await outbound.request(where, {
        headers: { accept: "application/json" },
        timeoutMs: timeout,
        maxBytes: maxDocumentBytes,
      });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
      document = JSON.parse(response.body.toString("utf8"));
    } catch (error) {
      throw upstreamUnavailable(`cannot read ${where}${refusal(error)}`);
    }
    const urls = ["authorization_endpoint", "token_endpoint", "jwks_uri"].map((key) => {
      try {
        return new URL(String(document?.[key]));
      } catch {
        throw upstreamUnavailable(`${where} has no valid ${key}`);
      }
    });
    if (document.issuer !== issuer) {
      throw upstreamUnavailable(`${where} does not describe issuer ${issuer}`);
    }
    return {
      authorizationEndpoint: urls[0].toString(),
      tokenEndpoint: urls[1].toString(),
      jwks: createRemoteJWKSet(urls[2], {
        timeoutDuration: timeout,
        cacheMaxAge: cacheTtlMs,
        [customFetch]: outbound.fetcher({ timeoutMs: timeout, maxBytes: maxDocumentBytes }),
      }),
      expiresAt: Date.now() + cacheTtlMs,
    };
  }

  async function discovered(issuer: string): Promise<Discovered> {
    const cached = cache.get(issuer);
    if (cached) {
      const found = await cached.catch(() => undefined);
      if (found && found.expiresAt > Date.now()) return found;
      if (cache.get(issuer) === cached) cache.delete(issuer);
    }
    let pending = cache.get(issuer);
    if (!pending) {
      pending = discover(issuer);
      cache.set(issuer, pending);
      const started = pending;
      started.catch(() => {
        if (cache.get(issuer) === started) cache.delete(issuer);
      });
      while (cache.size > 1000) cache.delete(cache.keys().next().value as string);
    }
    return pending;
  }

  return {
    async authorizationUrl(provider, request) {
      const { authorizationEndpoint } = await discovered(provider.issuer);
      const url = new URL(authorizationEndpoint);
      const scopes = ["openid", ...provider.additionalScopes.filter((s) => s !== "openid")];
      url.searchParams.set("response_type", "code");
      url.searchParams.set("client_id", provider.clientId);
      url.searchParams.set("redirect_uri", request.redirectUri);
      url.searchParams.set("scope", scopes.join(" "));
      url.searchParams.set("state", request.state);
      url.searchParams.set("nonce", request.nonce);
      if (request.verifier) {
        url.searchParams.set("code_challenge", pkceChallenge(request.verifier));
        url.searchParams.set("code_challenge_method", "S256");
      }
      return url.toString();
    },

    async exchangeCode(provider, exchange) {
      const { tokenEndpoint, jwks } = await discovered(provider.issuer);
      const form = new URLSearchParams({
        grant_type: "authorization_code",
        code: exchange.code,
        redirect_uri: exchange.redirectUri,
      });
      const headers: Record<string, string> = {
        accept: "application/json",
        "content-type": "application/x-www-form-urlencoded",
      };
      if (provider.clientSecret) {
        const id = encodeURIComponent(provider.clientId);
        const secret = encodeURIComponent(provider.clientSecret);
        headers.authorization = `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
      } else {
        form.set("client_id", provider.clientId);
      }
      if (exchange.verifier) form.set("code_verifier", exchange.verifier);
      let status: number;
      let answer: { id_token?: unknown; error?: unknown; error_description?: unknown };
      try {
        const response = await outbound.request(tokenEndpoint, {
          method: "POST",
          headers,
          body: form.toString(),
          timeoutMs: timeout,
          maxBytes: maxDocumentBytes,
        });
        status = response.status;
        answer = JSON.parse(response.body.toString("utf8"));
      } catch (error) {
        throw upstreamUnavailable(
          `the identity provider's token endpoint ${tokenEndpoint} failed${refusal(error)}`,
        );
      }
      if (status !== 200 || typeof answer?.id_token !== "string") {
        const why = [answer?.error, answer?.error_description].filter((s) => typeof s === "string");
        throw authError(
          authReasons.upstreamSignature,
          `the identity provider refused the code (HTTP ${status}${why.length ? `: ${why.join(": ")}` : ""})`,
        );
      }
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(answer.id_token, jwks, {
          algorithms,
          issuer: provider.issuer,
          audience: provider.clientId,
          clockTolerance,
          requiredClaims: ["sub", "exp", "iat"],
        }));
      } catch (error) {
        throw idTokenError(error, provider);
      }
      if (claims.azp !== undefined && claims.azp !== provider.clientId) {
        throw authError(
          authReasons.upstreamAudience,
          `the id token's authorized party is not the client id ${provider.clientId}`,
        );
      }
      if (claims.nonce !== exchange.nonce) {
        throw authError(
          authReasons.tokenMalformed,
          "the id token's nonce does not match the sign-in",
        );
      }
      return claims;
    },
  };
}

function idTokenError(error: unknown, provider: OidcProvider): Error {
  if (error instanceof errors.JWTExpired) {
    return authError(authReasons.upstreamExpired, "the id token has expired");
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "aud") {
      return authError(
        authReasons.upstreamAudience,
        `the id token's audience is not the client id ${provider.clientId}`,
      );
    }
    if (error.claim === "iss") {
      return authError(
        authReasons.upstreamIssuer,
        `the id token was not issued by ${provider.issuer}`,
      );
    }
    return authError(authReasons.tokenMalformed, `the id token's ${error.claim} is invalid`);
  }
  if (error instanceof errors.JOSEError && !(error instanceof errors.JWKSTimeout)) {
    return authError(authReasons.upstreamSignature, "the id token's signature does not verify");
  }
  return upstreamUnavailable(`the identity provider's keys cannot be read${refusal(error)}`);
}
