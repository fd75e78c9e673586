import type { Kysely } from "kysely";
import type { TokenIssuer } from "../../auth/index.ts";
import {
  bearerToken,
  createUpstreamVerifier,
  type UpstreamVerifierOptions,
} from "../../auth/index.ts";
import { createExchange } from "../../auth/sts-exchange.ts";
import { invalidArgument } from "../../errors/index.ts";
import type { OutboundGuard } from "../../outbound/index.ts";
import type { HttpRequest, HttpResponse, RawRoute } from "../../rpc/raw-route.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";

/** What the issuer endpoints serve. */
export interface IssuerRoutesOptions {
  db: Kysely<MetadataSchema>;
  tokens: TokenIssuer;
  /** The issuer URL; must equal `tokens.issuer` (a trailing slash is ignored). Default that. */
  issuerUrl?: string;
  /** The API URL: the audience of an exchanged token when the request names none. */
  apiAudience: string;
  /**
   * The audiences an exchanged token may carry. Default `[apiAudience]`; add the registry host
   * so workloads can log in to the registry. Never open-ended: a Lading-signed token for any
   * audience would let a workload impersonate Lading towards third parties.
   */
  allowedAudiences?: string[];
  /** Lifetime of an exchanged token. Default 3600 seconds ("valid up to an hour"). */
  exchangeTtlSeconds?: number;
  /** Every request to an upstream issuer goes through it. */
  outbound: OutboundGuard;
  /** Upstream verification settings (timeouts, cache, clock tolerance). */
  upstream?: Omit<UpstreamVerifierOptions, "issuerUrl" | "outbound">;
}

const maxBodyBytes = 64 * 1024;

/**
 * The OIDC discovery document, the JWKS and the token exchange (`GET|POST /sts/exchange`, see
 * {@link createExchange}), mounted on the API listener (DESIGN §1, §5).
 */
export function createIssuerRoutes(options: IssuerRoutesOptions): RawRoute[] {
  const { db, tokens, apiAudience } = options;
  const issuer = tokens.issuer;
  if (options.issuerUrl !== undefined && options.issuerUrl.replace(/\/+$/, "") !== issuer) {
    throw new Error(`issuerUrl ${options.issuerUrl} differs from the token issuer ${issuer}`);
  }
  const allowed = new Set(options.allowedAudiences ?? [apiAudience]);
  const ttlSeconds = Math.min(options.exchangeTtlSeconds ?? 3600, tokens.maxTtlSeconds);
  const upstream = createUpstreamVerifier({
    ...options.upstream,
    issuerUrl: issuer,
    outbound: options.outbound,
  });
  const discovery = JSON.stringify({
    issuer,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    token_endpoint: `${issuer}/sts/exchange`,
    response_types_supported: ["id_token"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["ES256"],
    claims_supported: ["iss", "sub", "aud", "iat", "exp", "jti", "act"],
  });

  const exchangeToken = createExchange({
    db,
    tokens,
    upstream,
    apiAudience,
    allowed,
    ttlSeconds,
  });

  async function exchange(req: HttpRequest, res: HttpResponse): Promise<void> {
    const params = await readParams(req);
    const presented = bearerToken(req.headers.authorization);
    sendJson(res, await exchangeToken(params, presented), "no-store");
  }

  return [
    {
      method: "GET",
      path: "/.well-known/openid-configuration",
      async handle(_req, res) {
        sendJson(res, discovery, "public, max-age=300");
      },
    },
    {
      method: "GET",
      path: "/.well-known/jwks.json",
      async handle(_req, res) {
        sendJson(res, await tokens.jwks(), "public, max-age=300");
      },
    },
    { method: "POST", path: "/sts/exchange", handle: exchange },
    { method: "GET", path: "/sts/exchange", handle: exchange },
  ];
}

/** Query parameters, plus form parameters of a POST body (never JSON, as upstream). */
export async function readParams(req: HttpRequest): Promise<URLSearchParams> {
  const params = new URL(req.url ?? "/", "http://lading.invalid").searchParams;
  if (req.method !== "POST") return params;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) {
      throw invalidArgument("auth", [{ field: "body", description: "must be at most 64 KiB" }]);
    }
    chunks.push(chunk);
  }
  if (size === 0) return params;
  const type = String(req.headers["content-type"] ?? "")
    .split(";")[0]
    .trim()
    .toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw invalidArgument("auth", [
      { field: "body", description: "must be application/x-www-form-urlencoded" },
    ]);
  }
  for (const [key, value] of new URLSearchParams(Buffer.concat(chunks).toString("utf8"))) {
    params.append(key, value);
  }
  return params;
}

/** Answers 200 with `body` as JSON (a string is sent as is). */
export function sendJson(res: HttpResponse, body: unknown, cacheControl: string): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.statusCode = 200;
  res.setHeader("content-type", "application/json");
  res.setHeader("cache-control", cacheControl);
  res.setHeader("content-length", Buffer.byteLength(text));
  res.end(text);
}
