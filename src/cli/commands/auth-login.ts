import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { delimiter, join } from "node:path";
import { readConfig } from "../cli-config.ts";
import type { CliContext } from "../cli-context.ts";
import { readCredentials, updateCredentials } from "../credentials-store.ts";
import { audiencesOf, expiryOf, postForm, type TokenResponse } from "../session.ts";

/** What `lading auth login` was asked for. */
export interface LoginOptions {
  identityProvider?: string;
  noBrowser: boolean;
  /** How long to wait for the browser. Default 5 minutes. */
  timeoutMs?: number;
}

/** A failed sign-in (exit code 1). */
export class LoginError extends Error {}

/**
 * Browser sign-in (authorization code + PKCE S256 on a loopback redirect): returns the signed-in
 * identity uid after storing the session in credentials.json.
 */
export async function login(ctx: CliContext, options: LoginOptions): Promise<string> {
  const stored = (await readCredentials(ctx.configDir)).sessions[ctx.apiUrl];
  const identityProvider =
    options.identityProvider ||
    stored?.identityProvider ||
    (await readConfig(ctx.configDir)).identityProvider;
  if (!identityProvider) {
    throw new LoginError(
      "no identity provider: pass --identity-provider UID or run `lading config set identity-provider UID`",
    );
  }
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const state = randomBytes(24).toString("base64url");

  const callback = await awaitCallback(state, options.timeoutMs ?? 5 * 60_000);
  try {
    const redirectUri = `${callback.origin}/callback`;
    const url = new URL(`${ctx.apiUrl}/auth/v2/login`);
    url.search = new URLSearchParams({
      identity_provider: identityProvider,
      redirect_uri: redirectUri,
      state,
      code_challenge: challenge,
      code_challenge_method: "S256",
    }).toString();
    await preflight(url);
    ctx.stderr.write(`Open this URL to sign in: ${url}\n`);
    if (!options.noBrowser && !ctx.env.LADING_NO_BROWSER) openBrowser(url.toString(), ctx.env);

    const { code, answer } = await callback.result;
    let signedIn: TokenResponse;
    try {
      signedIn = await postForm(
        `${ctx.apiUrl}/auth/v2/token`,
        new URLSearchParams({
          grant_type: "authorization_code",
          code,
          code_verifier: verifier,
          redirect_uri: redirectUri,
        }),
      );
    } catch (error) {
      answer(false, `Sign-in failed: ${(error as Error).message}`);
      throw new LoginError(`sign-in failed: ${(error as Error).message}`);
    }
    const identity = signedIn.identity ?? "";
    await updateCredentials(ctx.configDir, async (credentials) => {
      const expiry = expiryOf(signedIn);
      const audiences = audiencesOf(signedIn.token);
      credentials.sessions[ctx.apiUrl] = {
        identity,
        refreshToken: signedIn.refreshToken,
        identityProvider,
        tokens: Object.fromEntries(
          (audiences.length ? audiences : [ctx.apiUrl]).map((a) => [
            a,
            { token: signedIn.token, expiry },
          ]),
        ),
      };
    });
    answer(true, `Signed in to Lading as ${identity}. You can close this tab.`);
    if (stored?.refreshToken) {
      await postForm(
        `${ctx.apiUrl}/auth/v2/logout`,
        new URLSearchParams(),
        stored.refreshToken,
      ).catch(() => {});
    }
    return identity;
  } finally {
    await callback.close();
  }
}

/**
 * Asks the server for the sign-in redirect before a browser opens it, so an unknown identity
 * provider or an unreachable one fails at once with the server's message instead of leaving the
 * CLI waiting for a callback that never comes. The redirect is not followed; the pending
 * sign-in it leaves on the server expires unused.
 */
async function preflight(url: URL): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw new LoginError(`cannot reach ${url.origin}: ${(error as Error).message}`);
  }
  if (res.status >= 300 && res.status < 400 && res.headers.get("location")) {
    await res.body?.cancel();
    return;
  }
  const body = (await res.json().catch(() => undefined)) as
    | {
        message?: string;
        details?: { fieldViolations?: { field: string; description: string }[] }[];
      }
    | undefined;
  const violations = (body?.details ?? [])
    .flatMap((d) => d.fieldViolations ?? [])
    .map((v) => `${v.field} ${v.description}`);
  const reason =
    violations.length > 0 ? violations.join("; ") : (body?.message ?? `HTTP ${res.status}`);
  throw new LoginError(`the server refused the sign-in: ${reason}`);
}

interface Callback {
  origin: string;
  result: Promise<{ code: string; answer: (ok: boolean, message: string) => void }>;
  close(): Promise<void>;
}

/**
 * A loopback server on 127.0.0.1:0 that waits for `/callback?code=…&state=…`. A wrong state is
 * answered 400 and ignored (a stale tab); `error=…` with the right state ends the wait.
 */
async function awaitCallback(state: string, timeoutMs: number): Promise<Callback> {
  const settle = Promise.withResolvers<Awaited<Callback["result"]>>();
  const result = settle.promise;
  result.catch(() => {});
  let done = false;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== "/callback") return page(res, 404, "Not found.");
    if (done) return page(res, 409, "This sign-in has already finished.");
    if (url.searchParams.get("state") !== state) {
      return page(res, 400, "This sign-in link is stale or was not started here; try again.");
    }
    const error = url.searchParams.get("error");
    const code = url.searchParams.get("code");
    done = true;
    if (error || !code) {
      const description = url.searchParams.get("error_description") ?? error ?? "no code";
      page(res, 400, `Sign-in failed: ${description}`);
      settle.reject(
        new LoginError(`sign-in failed: ${error ?? "invalid_request"}: ${description}`),
      );
      return;
    }
    settle.resolve({
      code,
      answer: (ok, message) => page(res, ok ? 200 : 400, message),
    });
  });
  server.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const timer = setTimeout(() => {
    settle.reject(new LoginError(`no sign-in within ${Math.round(timeoutMs / 1000)} s`));
  }, timeoutMs);
  const interrupt = () => settle.reject(new LoginError("sign-in interrupted"));
  process.once("SIGINT", interrupt);
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    result,
    async close() {
      clearTimeout(timer);
      process.removeListener("SIGINT", interrupt);
      server.closeIdleConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function page(res: ServerResponse, status: number, message: string): void {
  const escaped = message.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const body = `<!doctype html><html><head><meta charset="utf-8"><title>Lading</title></head><body><p>${escaped}</p></body></html>\n`;
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    connection: "close",
  });
  res.end(body);
}

/** Opens `url` with xdg-open (or macOS `open`) when a display is available; errors are ignored. */
function openBrowser(url: string, env: Record<string, string | undefined>): void {
  const command = process.platform === "darwin" ? "open" : "xdg-open";
  if (process.platform !== "darwin" && !env.DISPLAY && !env.WAYLAND_DISPLAY) return;
  const found = (env.PATH ?? "")
    .split(delimiter)
    .some((dir) => dir && existsSync(join(dir, command)));
  if (!found) return;
  try {
    const child = spawn(command, [url], { detached: true, stdio: "ignore" });
    child.on("error", () => {});
    child.unref();
  } catch {
    // The URL is printed; opening a browser is a convenience.
  }
}
