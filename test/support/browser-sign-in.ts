import { createHash, randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { LadingHooks } from "../../src/app/index.ts";
import { builtInRoleUid } from "../../src/auth/index.ts";
import type { ConfigInput } from "../../src/config/index.ts";
import type { MetadataSchema } from "../../src/store/metadata/index.ts";
import type { Loose } from "./matrix.ts";
import { browserClients, startBrowserProvider } from "./oidc-provider.ts";
import { startTestServer, type TestServer } from "./server.ts";

/** One cookie as a browser keeps it. */
interface Cookie {
  name: string;
  value: string;
  path: string;
}

/** What {@link browserSignIn} returns. */
export interface BrowserSignInResult {
  /** The final redirect to the CLI's loopback redirect_uri (not requested). */
  location: string;
  /** Its query parameters: `code` and `state`, or `error`, `error_description` and `state`. */
  params: URLSearchParams;
}

/**
 * Plays the browser in a sign-in: requests `loginUrl` (Lading's `/auth/v2/login?…`), follows
 * every redirect by hand keeping cookies per host, submits the test provider's development login
 * form as `login` (any password) and its consent form, and stops at the redirect to the
 * `redirect_uri` named in `loginUrl`, which it returns without requesting it. Throws with the
 * status and body of any answer that is neither a redirect nor a form.
 */
export async function browserSignIn(loginUrl: string, login: string): Promise<BrowserSignInResult> {
  const target = new URL(new URL(loginUrl).searchParams.get("redirect_uri") ?? "http://invalid/");
  const jar = new Map<string, Cookie[]>();
  let request: { url: string; method: "GET" | "POST"; body?: URLSearchParams } = {
    url: loginUrl,
    method: "GET",
  };
  for (let step = 0; step < 30; step++) {
    const url = new URL(request.url);
    const response = await fetch(url, {
      method: request.method,
      redirect: "manual",
      headers: {
        ...cookieHeader(jar, url),
        ...(request.body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body: request.body?.toString(),
    });
    keepCookies(jar, url, response.headers.getSetCookie());
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = new URL(response.headers.get("location") ?? "", url);
      if (location.origin === target.origin && location.pathname === target.pathname) {
        return { location: location.toString(), params: location.searchParams };
      }
      request = { url: location.toString(), method: "GET" };
      continue;
    }
    const text = await response.text();
    const form = response.status === 200 ? parseForm(text) : undefined;
    if (!form) throw new Error(`${request.method} ${url} answered ${response.status}: ${text}`);
    if (form.fields.has("login")) {
      form.fields.set("login", login);
      form.fields.set("password", "any");
    }
    request = { url: new URL(form.action, url).toString(), method: "POST", body: form.fields };
  }
  throw new Error(`too many redirects from ${loginUrl}`);
}

/** The first form of an HTML page: its action and its named inputs with their values. */
function parseForm(html: string): { action: string; fields: URLSearchParams } | undefined {
  const form = /<form\b[^>]*\baction="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return undefined;
  const fields = new URLSearchParams();
  for (const input of form[2].matchAll(/<input\b[^>]*>/gi)) {
    const name = /\bname="([^"]*)"/i.exec(input[0])?.[1];
    if (name) fields.set(name, decode(/\bvalue="([^"]*)"/i.exec(input[0])?.[1] ?? ""));
  }
  return { action: decode(form[1]), fields };
}

function decode(text: string): string {
  return text
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
}

function cookieHeader(jar: Map<string, Cookie[]>, url: URL): Record<string, string> {
  const cookies = (jar.get(url.host) ?? []).filter(
    (c) =>
      url.pathname === c.path ||
      url.pathname.startsWith(c.path.endsWith("/") ? c.path : `${c.path}/`),
  );
  return cookies.length === 0
    ? {}
    : { cookie: cookies.map((c) => `${c.name}=${c.value}`).join("; ") };
}

function keepCookies(jar: Map<string, Cookie[]>, url: URL, setCookies: string[]): void {
  for (const line of setCookies) {
    const [pair, ...attributes] = line.split(";").map((part) => part.trim());
    const eq = pair.indexOf("=");
    if (eq < 1) continue;
    const cookie = { name: pair.slice(0, eq), value: pair.slice(eq + 1), path: "/" };
    let expired = false;
    for (const attribute of attributes) {
      const [key, value = ""] = attribute.split("=");
      const lower = key.toLowerCase();
      if (lower === "path" && value.startsWith("/")) cookie.path = value;
      if (lower === "max-age" && Number(value) <= 0) expired = true;
      if (lower === "expires" && Date.parse(value) <= Date.now()) expired = true;
    }
    const kept = (jar.get(url.host) ?? []).filter(
      (c) => c.name !== cookie.name || c.path !== cookie.path,
    );
    if (!expired) kept.push(cookie);
    jar.set(url.host, kept);
  }
}

/** What a CLI holds before its sign-in: the PKCE verifier, its challenge and its state. */
export interface CliSignIn {
  loginUrl: string;
  redirectUri: string;
  verifier: string;
  state: string;
}

/**
 * The `/auth/v2/login` URL a CLI would open for `identityProvider`, with a fresh PKCE verifier
 * and state and the loopback `redirectUri` (nothing listens there).
 */
export function cliLoginUrl(
  apiUrl: string,
  identityProvider: string,
  redirectUri = "http://127.0.0.1:9/callback",
): CliSignIn {
  const verifier = randomBytes(32).toString("base64url");
  const state = randomBytes(16).toString("base64url");
  const url = new URL(`${apiUrl}/auth/v2/login`);
  url.searchParams.set("identity_provider", identityProvider);
  url.searchParams.set("redirect_uri", redirectUri);
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", createHash("sha256").update(verifier).digest("base64url"));
  url.searchParams.set("code_challenge_method", "S256");
  return { loginUrl: url.toString(), redirectUri, verifier, state };
}

/** POSTs a form to `url` and returns the status and the JSON body. */
export async function postForm(
  url: string,
  form: Record<string, string | string[]>,
  bearer?: string,
): Promise<{ status: number; body: Loose }> {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(form)) {
    for (const v of [value].flat()) body.append(key, v);
  }
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: body.toString(),
  });
  return { status: response.status, body: (await response.json()) as Loose };
}

/** A finished sign-in: what `/auth/v2/token` answered. */
export interface SignedIn {
  token: string;
  refreshToken: string;
  expiry: string;
  identity: string;
}

/**
 * A whole CLI sign-in as `login` through `identityProvider`: login URL, browser part, then the
 * code exchange at `/auth/v2/token` (for `aud` when given). Throws unless every step succeeds.
 */
export async function signIn(
  apiUrl: string,
  identityProvider: string,
  login: string,
  aud?: string[],
): Promise<SignedIn> {
  const cli = cliLoginUrl(apiUrl, identityProvider);
  const { params } = await browserSignIn(cli.loginUrl, login);
  const code = params.get("code");
  if (!code || params.get("state") !== cli.state) {
    throw new Error(`sign-in failed: ${params.toString()}`);
  }
  const answer = await postForm(`${apiUrl}/auth/v2/token`, {
    grant_type: "authorization_code",
    code,
    code_verifier: cli.verifier,
    redirect_uri: cli.redirectUri,
    ...(aud ? { aud } : {}),
  });
  if (answer.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(answer)}`);
  return answer.body as SignedIn;
}

/** A Lading server with a browser test provider configured as two identity providers. */
export interface SignInFixture {
  server: TestServer;
  provider: Awaited<ReturnType<typeof startBrowserProvider>>;
  /** Identity provider uid using the confidential client (client_secret_basic). */
  web: string;
  /** Identity provider uid using the public client (PKCE, no secret). */
  pub: string;
  close(): Promise<void>;
}

/**
 * Starts a test server on `kind`, then {@link startBrowserProvider} with Lading's callback, and
 * inserts two identity providers on the organisation (groups claim `groups`, scopes email,
 * profile and groups, default role viewer).
 */
export async function startSignInFixture(
  kind: "sqlite" | "postgres",
  extra: ConfigInput = {},
  hooks: LadingHooks = {},
): Promise<SignInFixture> {
  // The provider listens on loopback, which the operator must allow.
  const server = await startTestServer(
    kind,
    "acme",
    { outboundAllow: "127.0.0.1", ...extra },
    undefined,
    hooks,
  );
  const provider = await startBrowserProvider({ redirectUri: `${server.apiUrl}/auth/v2/callback` });
  const db = server.lading.store.db;
  return {
    server,
    provider,
    web: await addIdentityProvider(db, server.org.groupUid, provider.issuer, browserClients.web),
    pub: await addIdentityProvider(db, server.org.groupUid, provider.issuer, browserClients.public),
    async close() {
      await provider.close();
      await server.close();
    },
  };
}

/**
 * Inserts an identity provider row under `group` (PKCE exactly when the client has no secret)
 * and returns its uid.
 */
export async function addIdentityProvider(
  db: Kysely<MetadataSchema>,
  group: string,
  issuer: string,
  client: { clientId: string; clientSecret: string },
  defaultRole = builtInRoleUid("viewer"),
): Promise<string> {
  const uid = `${group}/${randomBytes(8).toString("hex")}`;
  const time = new Date().toISOString();
  await db
    .insertInto("identity_providers")
    .values({
      uid,
      parent_uid: group,
      name: client.clientId,
      description: "",
      issuer,
      client_id: client.clientId,
      client_secret: client.clientSecret,
      additional_scopes: JSON.stringify(["email", "profile", "groups"]),
      groups_claim: "groups",
      default_role_uid: defaultRole,
      pkce_enabled: client.clientSecret ? 0 : 1,
      create_time: time,
      update_time: time,
    })
    .execute();
  return uid;
}
