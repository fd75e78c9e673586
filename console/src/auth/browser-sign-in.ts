import { setSession } from "./session.ts";

/** What a sign-in in progress keeps in session storage until the console is called back. */
interface Pending {
  state: string;
  verifier: string;
  /** Where to go once signed in (a path of the console). */
  next: string;
}

const pendingKey = "lading.sign-in";

/** A path of the console to go to after signing in: `/…`, never another origin (`//host`). */
export function safeNext(next: string | null | undefined): string {
  return next && /^\/(?![/\\])/.test(next) ? next : "/";
}
/** The console's redirect URI: the one Lading accepts besides loopback ones (docs/sign-in.md). */
export const signedInPath = "/signed-in";

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function random(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * Starts a browser sign-in through identity provider `provider` (authorization code + PKCE S256,
 * as the CLI does, with the console's own redirect URI): keeps state and verifier in session
 * storage and navigates to `GET /auth/v2/login`.
 */
export async function startSignIn(provider: string, next: string): Promise<void> {
  const verifier = random(48);
  const state = random(24);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  const pending: Pending = { state, verifier, next: safeNext(next) };
  sessionStorage.setItem(pendingKey, JSON.stringify(pending));
  const url = new URL("/auth/v2/login", location.origin);
  url.searchParams.set("identity_provider", provider);
  url.searchParams.set("redirect_uri", `${location.origin}${signedInPath}`);
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", base64url(new Uint8Array(digest)));
  url.searchParams.set("code_challenge_method", "S256");
  location.assign(url.toString());
}

/**
 * Finishes a sign-in on the console's redirect page: checks the state, redeems the one-time
 * code with the verifier at `POST /auth/v2/token`, and starts the session. Returns the path to
 * go to, or throws an Error whose message says what went wrong.
 */
export async function finishSignIn(params: URLSearchParams): Promise<string> {
  const text = sessionStorage.getItem(pendingKey);
  sessionStorage.removeItem(pendingKey);
  const pending = text ? (JSON.parse(text) as Pending) : undefined;
  if (!pending || params.get("state") !== pending.state) {
    throw new Error(
      "This sign-in was not started in this tab, or it was already finished. Sign in again.",
    );
  }
  const error = params.get("error");
  if (error) throw new Error(params.get("error_description") ?? `The sign-in failed: ${error}`);
  const body = new URLSearchParams({
    grant_type: "authorization_code",
    code: params.get("code") ?? "",
    code_verifier: pending.verifier,
    redirect_uri: `${location.origin}${signedInPath}`,
  });
  const res = await fetch("/auth/v2/token", { method: "POST", body });
  const answer = (await res.json()) as {
    token?: string;
    refreshToken?: string;
    expiry?: string;
    identity?: string;
    message?: string;
  };
  if (!res.ok || !answer.token)
    throw new Error(answer.message ?? `The sign-in failed (HTTP ${res.status}).`);
  setSession({
    token: answer.token,
    refreshToken: answer.refreshToken,
    expiry: answer.expiry,
    identity: answer.identity,
  });
  return safeNext(pending.next);
}
