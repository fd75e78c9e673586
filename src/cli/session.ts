import { decodeJwt } from "jose";
import { type CachedToken, readCredentials, updateCredentials } from "./credentials-store.ts";

/** Where the CLI finds its URLs, environment and stored session. */
export interface SessionOptions {
  /** The API URL (token issuer). */
  apiUrl: string;
  /** The CLI's config directory ($XDG_CONFIG_HOME/lading). */
  configDir: string;
  /** The environment (LADING_TOKEN). */
  env: Record<string, string | undefined>;
}

/** What the token endpoints answer. */
export interface TokenResponse {
  token: string;
  refreshToken?: string;
  expiry: string;
  identity?: string;
}

/** A failed call to a Lading endpoint, with the server's message. */
export class ServerError extends Error {
  /** The HTTP status. */
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** Seconds of validity a cached token must still have to be used. */
const minimumValiditySeconds = 60;

const notSignedIn = "not signed in: run `lading auth login` or set LADING_TOKEN";

/**
 * A Lading token for `audience`.
 *
 * LADING_TOKEN when set: used as is when its `aud` covers `audience`, else re-minted for
 * `audience` through `/sts/exchange`. Otherwise the stored session: a cached token with more
 * than 60 s left, else a refresh through `/sts/exchange_refresh_token` (the rotated refresh
 * token is stored). Throws an Error with a readable message when there is none.
 */
export async function tokenFor(options: SessionOptions, audience: string): Promise<string> {
  const ready = options.env.LADING_TOKEN?.trim();
  if (ready) return fromEnvironment(options.apiUrl, ready, audience);

  const cached = usable(
    (await readCredentials(options.configDir)).sessions[options.apiUrl],
    audience,
  );
  if (cached) return cached;
  return updateCredentials(options.configDir, async (credentials) => {
    const session = credentials.sessions[options.apiUrl];
    const again = usable(session, audience);
    if (again) return again;
    if (!session?.refreshToken) throw new Error(notSignedIn);
    let refreshed: TokenResponse;
    try {
      refreshed = await postForm(
        `${options.apiUrl}/sts/exchange_refresh_token`,
        new URLSearchParams({ aud: audience }),
        session.refreshToken,
      );
    } catch (error) {
      if (error instanceof ServerError && (error.status === 401 || error.status === 403)) {
        throw new Error(`session expired or revoked (${error.message}): run \`lading auth login\``);
      }
      throw error;
    }
    if (refreshed.refreshToken) session.refreshToken = refreshed.refreshToken;
    session.tokens = pruned(session.tokens);
    session.tokens[audience] = { token: refreshed.token, expiry: expiryOf(refreshed) };
    return refreshed.token;
  });
}

/** The audiences of a JWT (`aud` as string or array); empty when it is not a JWT. */
export function audiencesOf(token: string): string[] {
  try {
    const aud = decodeJwt(token).aud;
    return aud === undefined ? [] : Array.isArray(aud) ? aud : [aud];
  } catch {
    return [];
  }
}

/** Whether `audiences` includes `audience` (a trailing slash is ignored). */
export function covers(audiences: string[], audience: string): boolean {
  const want = audience.replace(/\/+$/, "");
  return audiences.some((a) => a.replace(/\/+$/, "") === want);
}

/** The expiry of a token response: its `expiry`, else the token's `exp`. */
export function expiryOf(response: TokenResponse): string {
  if (response.expiry) return new Date(response.expiry).toISOString();
  const exp = decodeJwt(response.token).exp ?? 0;
  return new Date(exp * 1000).toISOString();
}

/** Drops expired tokens from a cache. */
export function pruned(
  tokens: Record<string, CachedToken> | undefined,
): Record<string, CachedToken> {
  const now = Date.now();
  return Object.fromEntries(
    Object.entries(tokens ?? {}).filter(([, t]) => Date.parse(t.expiry) > now),
  );
}

/**
 * POSTs form `params` to `url` with an optional Bearer token and returns the JSON answer;
 * a non-2xx answer throws a {@link ServerError} carrying the server's message.
 */
export async function postForm<T = TokenResponse>(
  url: string,
  params: URLSearchParams,
  bearer?: string,
): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  return readAnswer<T>(await send(url, { method: "POST", headers, body: params.toString() }));
}

/** Sends a request, turning a connection failure into a readable error. */
export async function send(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: "manual" });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new Error(`cannot reach ${new URL(url).origin}: ${cause ?? String(error)}`);
  }
}

/** The JSON of a 2xx answer; else a {@link ServerError} with the server's message. */
export async function readAnswer<T>(response: Response): Promise<T> {
  const text = await response.text();
  let body: Record<string, unknown> | undefined;
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = undefined;
  }
  if (response.ok && body) return body as T;
  const message =
    (typeof body?.message === "string" && body.message) ||
    (typeof body?.error_description === "string" && body.error_description) ||
    (typeof body?.error === "string" && body.error) ||
    `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ""}`;
  const violations = (Array.isArray(body?.details) ? body.details : []).flatMap(
    (d: { fieldViolations?: { field: string; description: string }[] }) =>
      (d.fieldViolations ?? []).map((v) => `\n  ${v.field}: ${v.description}`),
  );
  throw new ServerError(response.status, message + violations.join(""));
}

async function fromEnvironment(apiUrl: string, token: string, audience: string): Promise<string> {
  let claims: ReturnType<typeof decodeJwt>;
  try {
    claims = decodeJwt(token);
  } catch {
    throw new Error("LADING_TOKEN is not a JWT");
  }
  if (claims.exp !== undefined && claims.exp * 1000 <= Date.now()) {
    throw new Error("LADING_TOKEN has expired");
  }
  if (covers(audiencesOf(token), audience)) return token;
  const params = new URLSearchParams({ aud: audience });
  if (claims.sub) params.set("identity", claims.sub);
  try {
    return (await postForm(`${apiUrl}/sts/exchange`, params, token)).token;
  } catch (error) {
    throw new Error(
      `LADING_TOKEN cannot be exchanged for audience ${audience}: ${(error as Error).message}`,
    );
  }
}

function usable(
  session: { tokens?: Record<string, CachedToken> } | undefined,
  audience: string,
): string | undefined {
  const cached = session?.tokens?.[audience];
  if (!cached) return undefined;
  const left = (Date.parse(cached.expiry) - Date.now()) / 1000;
  return left > minimumValiditySeconds ? cached.token : undefined;
}
